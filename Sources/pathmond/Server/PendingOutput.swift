// SPDX-License-Identifier: Apache-2.0
import SystemPackage

/// What a client has not taken yet: replies that did not fit its socket, in order, written from the first byte not
/// yet sent. Empty almost always: a reply is written at once, and only what the socket refuses waits here.
struct PendingOutput {
    private var chunks: [[UInt8]] = []
    /// The first chunk not yet sent whole, and how much of it was sent.
    private var first = 0
    private var sentOfFirst = 0
    private(set) var byteCount = 0

    var isEmpty: Bool { byteCount == 0 }

    /// Writes `bytes` to `descriptor`, or queues whatever the socket does not take now (all of it while older bytes
    /// wait, so replies never overtake each other).
    mutating func write(_ bytes: [UInt8], to descriptor: FileDescriptor) throws(Errno) {
        guard isEmpty else {
            append(bytes, sent: 0)
            return
        }
        let sent = try Self.writeSome(bytes[...], to: descriptor)
        if sent < bytes.count { append(bytes, sent: sent) }
    }

    /// Writes what waits until the socket refuses more. True once nothing waits.
    mutating func flush(to descriptor: FileDescriptor) throws(Errno) -> Bool {
        while first < chunks.count {
            let chunk = chunks[first]
            let sent = try Self.writeSome(chunk[sentOfFirst...], to: descriptor)
            byteCount -= sent
            sentOfFirst += sent
            guard sentOfFirst == chunk.count else {
                // A client that reads slowly but never catches up: drop what it took, now and then, not per chunk.
                if first >= 64 && first * 2 >= chunks.count {
                    chunks.removeFirst(first)
                    first = 0
                }
                return false
            }
            first += 1
            sentOfFirst = 0
        }
        chunks.removeAll()
        first = 0
        return true
    }

    private mutating func append(_ bytes: [UInt8], sent: Int) {
        if first == chunks.count { sentOfFirst = sent }
        chunks.append(bytes)
        byteCount += bytes.count - sent
    }

    /// One write(2): how many bytes the socket took, 0 when it takes none now (EAGAIN).
    private static func writeSome(_ bytes: ArraySlice<UInt8>, to descriptor: FileDescriptor) throws(Errno) -> Int {
        do {
            return try bytes.withUnsafeBytes { try descriptor.write($0) }
        } catch Errno.wouldBlock {
            return 0
        } catch let error as Errno {
            throw error
        } catch {
            // withUnsafeBytes rethrows only what FileDescriptor.write threw, which is always an Errno.
            throw Errno.ioError
        }
    }
}
