// SPDX-License-Identifier: Apache-2.0
import PathProtocol
import Testing

@Suite struct NULFramerTests {
    let messages: [[UInt8]] = [
        Array(#"{"method":"io.pathmond.GetPath"}"#.utf8),
        Array(#"{"method":"io.pathmond.WatchPath","more":true}"#.utf8),
        Array("{}".utf8),
    ]

    var stream: [UInt8] { messages.flatMap { $0 + [0] } }

    func drain(_ framer: inout NULFramer) throws -> [[UInt8]] {
        var result: [[UInt8]] = []
        while let message = try framer.nextMessage() { result.append(message) }
        return result
    }

    @Test func wholeStreamAtOnce() throws {
        var framer = NULFramer()
        framer.append(stream)
        #expect(try drain(&framer) == messages)
        #expect(framer.pendingByteCount == 0)
    }

    @Test func byteByByte() throws {
        var framer = NULFramer()
        var received: [[UInt8]] = []
        for byte in stream {
            framer.append([byte])
            received += try drain(&framer)
        }
        #expect(received == messages)
    }

    @Test(arguments: [1, 2, 3, 5, 7, 13, 64])
    func inChunks(size: Int) throws {
        var framer = NULFramer()
        var received: [[UInt8]] = []
        var index = 0
        while index < stream.count {
            framer.append(stream[index..<min(index + size, stream.count)])
            received += try drain(&framer)
            index += size
        }
        #expect(received == messages)
    }

    @Test func partialMessageWaits() throws {
        var framer = NULFramer()
        framer.append(Array(#"{"method":"#.utf8))
        #expect(try framer.nextMessage() == nil)
        #expect(framer.pendingByteCount == 10)
    }

    @Test func oversizedWithoutNULIsAnError() {
        var framer = NULFramer(maximumSize: 16)
        framer.append([UInt8](repeating: UInt8(ascii: "a"), count: 17))
        #expect(throws: FramingError.messageTooLarge(limit: 16)) { try framer.nextMessage() }
    }

    @Test func oversizedWithNULIsAnError() {
        var framer = NULFramer(maximumSize: 16)
        framer.append([UInt8](repeating: UInt8(ascii: "a"), count: 17) + [0])
        #expect(throws: FramingError.messageTooLarge(limit: 16)) { try framer.nextMessage() }
    }

    @Test func messageAtTheLimitPasses() throws {
        var framer = NULFramer(maximumSize: 16)
        let message = [UInt8](repeating: UInt8(ascii: "a"), count: 16)
        framer.append(message + [0])
        #expect(try framer.nextMessage() == message)
    }

    /// A server takes one message at a time while more arrive (a client pipelining calls): what was taken is
    /// dropped from the front now and then, and nothing may be lost, repeated or cut at that point.
    @Test(arguments: [1, 5, 17, 64, 4096])
    func messagesTakenOneAtATimeWhileMoreArrive(chunkSize: Int) throws {
        let sent = (0..<500).map { index in Array("{\"call\":\(index)}".utf8) }
        let stream: [UInt8] = sent.flatMap { $0 + [UInt8(0)] }
        var framer = NULFramer()
        var received: [[UInt8]] = []
        var index = 0
        while index < stream.count {
            framer.append(stream[index..<min(stream.count, index + chunkSize)])
            index += chunkSize
            if let message = try framer.nextMessage() { received.append(message) }
        }
        received += try drain(&framer)
        #expect(received == sent)
        #expect(framer.pendingByteCount == 0)
    }

    @Test func aMessageTooLargeIsCaughtAfterSmallerOnesWereTaken() throws {
        var framer = NULFramer(maximumSize: 16)
        framer.append(Array("ok".utf8) + [0] + [UInt8](repeating: UInt8(ascii: "a"), count: 17))
        #expect(try framer.nextMessage() == Array("ok".utf8))
        #expect(throws: FramingError.messageTooLarge(limit: 16)) { try framer.nextMessage() }
    }
}
