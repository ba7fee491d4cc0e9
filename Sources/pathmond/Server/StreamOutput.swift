// SPDX-License-Identifier: Apache-2.0
/// Where a streamed call's replies go: a client's connection, or a recording in tests. Used on the daemon's main
/// loop only.
protocol StreamOutput: AnyObject {
    /// False while the client leaves more unread than the connection buffers (then only state worth keeping
    /// waits); true again once it has caught up.
    var isWritable: Bool { get }
    /// Sends one encoded reply (NUL included).
    func write(_ bytes: [UInt8])
    /// Ends the connection.
    func close()
}
