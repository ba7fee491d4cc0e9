import FuzzSupport
import NIOCore
import NIOEmbedded
import PathProtocol
import Testing

@testable import pathmond

// The daemon's framing of what a client sends: NUL-terminated messages, each at most the server's limit.

@Test func varlinkFrameDecoderSurvivesMutatedStreams() throws {
    let seeds = [
        Array(#"{"method":"io.pathmond.GetPath"}"#.utf8) + [0] + Array(#"{"method":"io.pathmond.ListInterfaces"}"#.utf8)
            + [0],
        [0, 0, 0], Array(repeating: UInt8(ascii: "x"), count: 100),
    ]
    let mutator = Mutator(seeds: seeds, dictionary: [[0], [0, 0]], maximumLength: 512, seed: 0xF7A3_EDEC)
    // One channel for the whole run (a fresh one per input would time NIO's setup, not the decoder); a small
    // limit, so that too-large messages close it as often as whole ones pass.
    var channel = try frameChannel(limit: 64)
    let report = Fuzz.run("varlink-frame-decoder", count: 100_000, mutator: mutator) { input in
        var buffer = channel.allocator.buffer(capacity: input.count)
        buffer.writeBytes(input)
        var accepted = false
        do {
            try channel.writeInbound(buffer)
            while let message = try channel.readInbound(as: [UInt8].self) {
                #expect(!message.contains(0) && message.count <= 64)
                accepted = true
            }
        } catch {
            // Too large: the server closes such a connection; so does the test, and starts a fresh one.
            _ = try? channel.finish()
            channel = (try? frameChannel(limit: 64)) ?? channel
        }
        return accepted
    }
    #expect(report.accepted > 1000 && report.accepted < report.count)
    #expect(report.peakMemoryGrowthKiB < Fuzz.memoryBoundKiB)
}

private func frameChannel(limit: Int) throws -> EmbeddedChannel {
    let channel = EmbeddedChannel()
    try channel.pipeline.syncOperations.addHandler(ByteToMessageHandler(VarlinkFrameDecoder(maximumSize: limit)))
    return channel
}
