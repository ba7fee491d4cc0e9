// SPDX-License-Identifier: Apache-2.0
internal import CNetlink

/// The first step every libnl socket here takes: a `struct nl_sock *` and a reference to its callback set, freed
/// together if the second cannot be had. Allocation failure is libnl's NLE_NOMEM, our `.overflow`.
enum LibnlAllocation {
    static func socketWithCallbacks() throws(NetlinkError) -> (handle: OpaquePointer, callbacks: OpaquePointer) {
        guard let handle = nl_socket_alloc() else { throw .overflow }
        guard let callbacks = nl_socket_get_cb(handle) else {
            nl_socket_free(handle)
            throw .overflow
        }
        return (handle, callbacks)
    }
}
