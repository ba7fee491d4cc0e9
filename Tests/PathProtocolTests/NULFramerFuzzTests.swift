// SPDX-License-Identifier: Apache-2.0
import FuzzSupport
import Testing

@testable import PathProtocol

// The client side's framing of replies: NUL-terminated messages, each at most the limit.

@Test func nulFramerSurvivesMutatedStreams() {
    let seeds = [
        Array(#"{"method":"io.pathmond.GetPath"}"#.utf8) + [0] + Array(#"{"method":"io.pathmond.ListInterfaces"}"#.utf8)
            + [0],
        [0, 0, 0], Array("{}".utf8),
    ]
    let mutator = Mutator(seeds: seeds, dictionary: [[0], [0, 0]], maximumLength: 2048, seed: 0x40_F4A3)
    let report = Fuzz.run("nul-framer", count: 100_000, mutator: mutator) { input in
        // A small limit, so that the too-large path is taken as often as the whole-message one.
        var framer = NULFramer(maximumSize: 64)
        var messages = 0
        // Fed in two pieces split where the input's first byte says, to vary the boundaries.
        let split = input.isEmpty ? 0 : Int(input[0]) % (input.count + 1)
        for piece in [input[..<split], input[split...]] {
            framer.append(piece)
            do {
                while let message = try framer.nextMessage() {
                    #expect(!message.contains(0) && message.count <= 64)
                    messages += 1
                }
            } catch {
                return messages > 0
            }
        }
        return messages > 0
    }
    #expect(report.accepted > 1000 && report.accepted < report.count)
    #expect(report.peakMemoryGrowthKiB < Fuzz.memoryBoundKiB)
}
