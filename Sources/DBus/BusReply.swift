// SPDX-License-Identifier: Apache-2.0
internal import CSystemd

/// A method's reply, kept as sd-bus's message so that parts of it can be sent on with their exact types
/// (`BusArgument.settingsCopy`). Read its values with `body()`.
///
/// @unchecked Sendable: the message is only read (rewound and read, or copied) on the connection's loop thread.
public final class BusReply: @unchecked Sendable {
    let raw: OpaquePointer

    /// Takes a reference of its own to `message`.
    init(referencing message: OpaquePointer) {
        raw = sd_bus_message_ref(message)
    }

    deinit {
        sd_bus_message_unref(raw)
    }

    /// The reply's values, read from the start.
    public func body() throws(BusError) -> [BusValue] {
        try check(sd_bus_message_rewind(raw, 1))
        return try BusMessageReader.body(of: raw)
    }
}

/// One argument of a method call.
public enum BusArgument: Sendable {
    case string(String)
    case objectPath(String)
    case uint32(UInt32)
    case uint64(UInt64)
    /// The settings dictionary (`a{sa{sv}}`) that starts `reply`, with `group`.`key` set to an int32: how a
    /// NetworkManager connection is sent back with one property changed (`nmcli device modify`).
    case settingsCopy(BusReply, group: String, key: String, value: Int32)

    /// Appends the argument to a message being built.
    func append(to message: OpaquePointer?) throws(BusError) {
        switch self {
        case .string(let text):
            _ = try check(text.withCString { sd_bus_message_append_basic(message, CChar(UInt8(ascii: "s")), $0) })
        case .objectPath(let path):
            _ = try check(path.withCString { sd_bus_message_append_basic(message, CChar(UInt8(ascii: "o")), $0) })
        case .uint32(var value):
            _ = try check(sd_bus_message_append_basic(message, CChar(UInt8(ascii: "u")), &value))
        case .uint64(var value):
            _ = try check(sd_bus_message_append_basic(message, CChar(UInt8(ascii: "t")), &value))
        case .settingsCopy(let reply, let group, let key, let value):
            try check(sd_bus_message_rewind(reply.raw, 1))
            _ = try check(pathmond_copy_settings_setting_int32(message, reply.raw, group, key, value))
        }
    }
}
