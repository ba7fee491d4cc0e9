// SPDX-License-Identifier: Apache-2.0
internal import CSystemd

/// Copies a message's body out of sd-bus into `BusValue`s. sd-bus has already checked the message against the
/// specification (lengths, alignment, signature, nesting); this only walks it with peek/enter/read/exit.
enum BusMessageReader {
    /// Every value of the body, from the start.
    static func body(of message: OpaquePointer) throws(BusError) -> [BusValue] {
        try check(sd_bus_message_rewind(message, 1))
        return try values(in: message)
    }

    /// The values up to the end of the current container.
    private static func values(in message: OpaquePointer) throws(BusError) -> [BusValue] {
        var values: [BusValue] = []
        while let value = try next(in: message) { values.append(value) }
        return values
    }

    private static func next(in message: OpaquePointer) throws(BusError) -> BusValue? {
        var type: CChar = 0
        var contentsPointer: UnsafePointer<CChar>?
        let found = sd_bus_message_peek_type(message, &type, &contentsPointer)
        if found < 0 { throw BusError(returned: found) }
        if found == 0 { return nil }
        // Copied now: the pointer points into the message and is only valid until the next read.
        let contents = contentsPointer.map { String(cString: $0) }
        switch UInt8(bitPattern: type) {
        case UInt8(ascii: "a"), UInt8(ascii: "v"), UInt8(ascii: "r"), UInt8(ascii: "e"):
            return try container(type: type, contents: contents, in: message)
        default:
            return try basic(type: type, in: message)
        }
    }

    private static func container(
        type: CChar, contents: String?, in message: OpaquePointer
    ) throws(BusError) -> BusValue {
        try check(sd_bus_message_enter_container(message, type, contents))
        let inner = try values(in: message)
        try check(sd_bus_message_exit_container(message))
        switch UInt8(bitPattern: type) {
        case UInt8(ascii: "v"):
            guard inner.count == 1 else { throw .badMessage }
            return .variant(inner[0])
        case UInt8(ascii: "r"), UInt8(ascii: "e"):
            return .structure(inner)
        default:
            guard contents?.first == "{" else { return .array(inner) }
            var entries: [BusDictionaryEntry] = []
            for case .structure(let pair) in inner where pair.count == 2 {
                entries.append(BusDictionaryEntry(key: pair[0], value: pair[1]))
            }
            guard entries.count == inner.count else { throw .badMessage }
            return .dictionary(entries)
        }
    }

    private static func basic(type: CChar, in message: OpaquePointer) throws(BusError) -> BusValue {
        func read<T>(_ initial: T) throws(BusError) -> T {
            var value = initial
            try check(withUnsafeMutablePointer(to: &value) { sd_bus_message_read_basic(message, type, $0) })
            return value
        }
        switch UInt8(bitPattern: type) {
        case UInt8(ascii: "y"): return .byte(try read(UInt8(0)))
        // sd-bus reads a boolean into an int.
        case UInt8(ascii: "b"): return .boolean(try read(Int32(0)) != 0)
        case UInt8(ascii: "n"): return .int16(try read(Int16(0)))
        case UInt8(ascii: "q"): return .uint16(try read(UInt16(0)))
        case UInt8(ascii: "i"): return .int32(try read(Int32(0)))
        case UInt8(ascii: "u"): return .uint32(try read(UInt32(0)))
        case UInt8(ascii: "x"): return .int64(try read(Int64(0)))
        case UInt8(ascii: "t"): return .uint64(try read(UInt64(0)))
        case UInt8(ascii: "d"): return .double(try read(Double(0)))
        case UInt8(ascii: "h"):
            _ = try read(Int32(-1))
            return .unixFD
        case UInt8(ascii: "s"), UInt8(ascii: "o"), UInt8(ascii: "g"):
            let pointer = try read(UnsafePointer<CChar>?.none)
            guard let pointer else { throw .badMessage }
            let text = String(cString: pointer)
            switch UInt8(bitPattern: type) {
            case UInt8(ascii: "s"): return .string(text)
            case UInt8(ascii: "o"): return .objectPath(text)
            default: return .signature(text)
            }
        default:
            throw .badMessage
        }
    }
}

/// Turns an sd-bus return value into a thrown `BusError` when negative; returns it otherwise.
@discardableResult
func check(_ returned: Int32) throws(BusError) -> Int32 {
    if returned < 0 { throw BusError(returned: returned) }
    return returned
}
