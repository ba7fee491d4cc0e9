import Logging
import NIOCore
import NIOEmbedded
import PathModel
import PathProtocol
import Testing

@testable import pathmond

/// The newest-wins delivery to a client that stops reading, on an embedded channel whose writability the test
/// controls.
@Suite struct ChannelSubscriptionTests {
    static func update(_ generation: UInt64, _ reason: UnsatisfiedReason?) -> Update {
        let path = reason.map(Path.unsatisfied) ?? Path(status: .satisfied)
        let bytes = VarlinkCodec().encodeReply(Methods.PathReply(path: WirePath(path)), continues: true)
        return Update(generation: generation, value: .path(path), streamedReply: bytes)
    }

    static func sentPaths(_ channel: EmbeddedChannel) throws -> [String] {
        var result: [String] = []
        while var buffer = try channel.readOutbound(as: ByteBuffer.self) {
            let bytes = buffer.readBytes(length: buffer.readableBytes) ?? []
            let reply = try VarlinkCodec().decode(VarlinkReply<Methods.PathReply>.self, from: Array(bytes.dropLast()))
            let path = try #require(reply.parameters?.path)
            // Wire names: the reason when unsatisfied, else the status.
            result.append(path.unsatisfiedReason ?? path.status)
        }
        return result
    }

    @Test func writableChannelGetsEveryUpdate() throws {
        let channel = EmbeddedChannel()
        let subscription = ChannelSubscription(interest: .path(.unrestricted), channel: channel)
        subscription.send(Self.update(1, .noCarrier))
        subscription.send(Self.update(2, nil))
        #expect(try Self.sentPaths(channel) == ["noCarrier", "satisfied"])
    }

    @Test func stalledChannelKeepsOnlyTheNewest() throws {
        let channel = EmbeddedChannel()
        let subscription = ChannelSubscription(interest: .path(.unrestricted), channel: channel)
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
        let channel = EmbeddedChannel()
        let subscription = ChannelSubscription(interest: .path(.unrestricted), channel: channel)
        subscription.send(Self.update(5, .noCarrier))
        subscription.send(Self.update(4, nil))
        #expect(try Self.sentPaths(channel) == ["noCarrier"])
    }

    @Test func aPathTheClientAlreadyHasIsNotSentAgain() throws {
        let channel = EmbeddedChannel()
        let subscription = ChannelSubscription(interest: .path(.unrestricted), channel: channel)
        subscription.send(Self.update(1, .noCarrier))
        channel.isWritable = false
        subscription.send(Self.update(2, nil))
        subscription.send(Self.update(3, .noCarrier))
        channel.isWritable = true
        subscription.flushPending()
        #expect(try Self.sentPaths(channel) == ["noCarrier"])
    }
}
