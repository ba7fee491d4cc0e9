// SPDX-License-Identifier: Apache-2.0
import PathModel
import PathProtocol
import SDEvent
import Testing

@testable import pathmond

/// The newest-wins delivery to a client that stops reading, on a recorded connection whose writability the test
/// controls.
@Suite struct ChannelSubscriptionTests {
    static func update(_ generation: UInt64, _ reason: UnsatisfiedReason?) -> Update {
        let path = reason.map(Path.unsatisfied) ?? Path(status: .satisfied)
        let bytes = VarlinkCodec().encodeReply(Methods.PathReply(path: WirePath(path)), continues: true)
        return Update(generation: generation, value: .path(path), streamedReply: bytes)
    }

    static func sentPaths(_ channel: RecordingOutput) throws -> [String] {
        var result: [String] = []
        for bytes in channel.takeWritten() {
            let reply = try VarlinkCodec().decode(VarlinkReply<Methods.PathReply>.self, from: bytes)
            let path = try #require(reply.parameters?.path)
            // Wire names: the reason when unsatisfied, else the status.
            result.append(path.unsatisfiedReason ?? path.status)
        }
        return result
    }

    @Test func writableChannelGetsEveryUpdate() throws {
        let channel = RecordingOutput()
        let subscription = ChannelSubscription(interest: .path(.unrestricted), output: channel, loop: try SDEventLoop())
        subscription.send(Self.update(1, .noCarrier))
        subscription.send(Self.update(2, nil))
        #expect(try Self.sentPaths(channel) == ["noCarrier", "satisfied"])
    }

    @Test func stalledChannelKeepsOnlyTheNewest() throws {
        let channel = RecordingOutput()
        let subscription = ChannelSubscription(interest: .path(.unrestricted), output: channel, loop: try SDEventLoop())
        subscription.send(Self.update(1, .noCarrier))
        channel.isWritable = false
        for generation in 2...500 {
            subscription.send(Self.update(UInt64(generation), generation.isMultiple(of: 2) ? nil : .noAddress))
        }
        subscription.send(Self.update(501, .noDefaultRoute))
        #expect(try Self.sentPaths(channel) == ["noCarrier"])
        channel.isWritable = true
        subscription.flushPending()
        #expect(try Self.sentPaths(channel) == ["noDefaultRoute"])
    }

    @Test func olderGenerationsAreDropped() throws {
        let channel = RecordingOutput()
        let subscription = ChannelSubscription(interest: .path(.unrestricted), output: channel, loop: try SDEventLoop())
        subscription.send(Self.update(5, .noCarrier))
        subscription.send(Self.update(4, nil))
        #expect(try Self.sentPaths(channel) == ["noCarrier"])
    }

    @Test func aPathTheClientAlreadyHasIsNotSentAgain() throws {
        let channel = RecordingOutput()
        let subscription = ChannelSubscription(interest: .path(.unrestricted), output: channel, loop: try SDEventLoop())
        subscription.send(Self.update(1, .noCarrier))
        channel.isWritable = false
        subscription.send(Self.update(2, nil))
        subscription.send(Self.update(3, .noCarrier))
        channel.isWritable = true
        subscription.flushPending()
        #expect(try Self.sentPaths(channel) == ["noCarrier"])
    }
}
