// SPDX-License-Identifier: Apache-2.0
extension VarlinkInterfaces {
    /// io.pathmond, part of its description: the errors the calls answer with.
    static let errorsDefinition = """
        # The caller may not change policy: only root and the configured admin group may.
        error PermissionDenied (reason: string)

        # No interface has that name.
        error NoSuchInterface (interface: string)

        # The interface's network is not known (yet): no SSID, SIM or resolved gateway.
        error NetworkNotIdentified (interface: string)

        # The key is not a network key (at most 128 bytes; a Wi-Fi SSID at most 32 bytes).
        error InvalidNetworkKey (key: string)

        # No setting is remembered for that network.
        error NoSuchNetwork (key: string)

        # The policy could not be written to disk; nothing changed.
        error PolicyNotSaved (reason: string)

        # A limit that keeps the daemon fair to every local user was reached (reason says which); try again later.
        # The connection is closed after this error when the limit is on connections.
        error LimitReached (reason: string)

        # The message could not be read: not JSON, not a Varlink call, or larger than the limit; or a call
        # came while another streamed on the connection (a streaming call owns its connection).
        # The connection is closed after this error.
        error ProtocolError (reason: string)

        # pathmond refuses its configuration file (reason: FILE:LINE: why) and answers every call with this
        # error until the file is fixed and pathmond reloaded or restarted.
        error ConfigurationRefused (reason: string)
        """
}
