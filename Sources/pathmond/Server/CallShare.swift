// SPDX-License-Identifier: Apache-2.0
/// How many of one connection's calls a turn of the main loop answers. A client that pipelines a thousand calls
/// takes turns with the other clients and a change's slices, a share at a time, instead of holding the loop for
/// all that one read brought in: 200 such clients of one user held root's `pathctl status` for 2.4-2.9 s (debug
/// build) while whole reads were answered at once.
struct CallShare {
    static let callsPerTurn = 16

    /// The turn (the loop's iteration) whose calls `used` counts.
    private var turn: UInt64 = 0
    private var used = 0
    /// The share ran out with calls it could have answered: the rest wait for the connection's next turn.
    private(set) var isSpent = false

    /// Counts one call against `turn`'s share; false once it is spent.
    mutating func take(in turn: UInt64) -> Bool {
        if turn != self.turn {
            self.turn = turn
            used = 0
        }
        guard used < Self.callsPerTurn else {
            isSpent = true
            return false
        }
        used += 1
        return true
    }

    /// The connection's next turn has come: what was left may be answered.
    mutating func renew() { isSpent = false }
}
