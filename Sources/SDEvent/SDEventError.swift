// SPDX-License-Identifier: Apache-2.0
import Glibc

/// An sd-event call that failed, with its errno (sd-event returns negative errno values).
public struct SDEventError: Error, Hashable, CustomStringConvertible {
    public var errno: Int32

    public init(errno: Int32) { self.errno = errno }

    public var description: String { "sd-event: \(String(cString: strerror(errno)))" }

    @discardableResult
    static func check(_ result: Int32) throws(SDEventError) -> Int32 {
        guard result >= 0 else { throw SDEventError(errno: -result) }
        return result
    }
}
