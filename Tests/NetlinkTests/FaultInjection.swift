// SPDX-License-Identifier: Apache-2.0
import Locking

@testable import Netlink

/// Makes the watcher's libnl seam fail on demand: the next N receives report -NLE_NOMEM (lost notifications), the
/// next N dumps -NLE_DUMP_INTR (read to the end, then flagged inconsistent) or another error.
final class FaultInjection: Sendable {
    let overflowingReceives = Locked(0)
    let interruptedDumps = Locked(0)
    let failedDumps = Locked(0)

    var calls: NetlinkCalls {
        let live = NetlinkCalls.live
        return NetlinkCalls(
            receiveNotifications: { socket in
                if Self.take(self.overflowingReceives) { return -NetlinkError.overflow.rawValue }
                return live.receiveNotifications(socket)
            },
            dump: { socket, type in
                if Self.take(self.failedDumps) { return -NetlinkError.badSocket.rawValue }
                let result = live.dump(socket, type)
                if result >= 0, Self.take(self.interruptedDumps) { return -NetlinkError.dumpInterrupted.rawValue }
                return result
            }
        )
    }

    private static func take(_ counter: borrowing Locked<Int>) -> Bool {
        counter.withLock { count in
            guard count > 0 else { return false }
            count -= 1
            return true
        }
    }
}
