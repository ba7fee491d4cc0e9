/// Writes D-Bus marshalled values, little-endian, with padding relative to the start of `bytes` (the start of the
/// message, or of a body that itself starts on an 8-byte boundary).
struct DBusEncoder {
    private(set) var bytes: [UInt8] = []

    mutating func align(_ alignment: Int) {
        while bytes.count % alignment != 0 { bytes.append(0) }
    }

    /// Writes `value`; the caller guarantees that the value's shape matches its own type tags.
    mutating func encode(_ value: DBusValue) {
        switch value {
        case .byte(let byte): bytes.append(byte)
        case .boolean(let flag): writeInteger(UInt64(flag ? 1 : 0), count: 4)
        case .int16(let number): writeInteger(UInt64(UInt16(bitPattern: number)), count: 2)
        case .uint16(let number): writeInteger(UInt64(number), count: 2)
        case .int32(let number): writeInteger(UInt64(UInt32(bitPattern: number)), count: 4)
        case .uint32(let number), .unixFD(let number): writeInteger(UInt64(number), count: 4)
        case .int64(let number): writeInteger(UInt64(bitPattern: number), count: 8)
        case .uint64(let number): writeInteger(number, count: 8)
        case .double(let number): writeInteger(number.bitPattern, count: 8)
        case .string(let text), .objectPath(let text):
            writeInteger(UInt64(text.utf8.count), count: 4)
            bytes += text.utf8
            bytes.append(0)
        case .signature(let text):
            writeSignature(text)
        case .variant(let type, let inner):
            writeSignature(type.description)
            encode(inner)
        case .array(let element, let values):
            writeArray(elementAlignment: element.alignment) { encoder in
                for value in values { encoder.encode(value) }
            }
        case .dictionary(_, _, let entries):
            writeArray(elementAlignment: 8) { encoder in
                for entry in entries {
                    encoder.align(8)
                    encoder.encode(entry.key)
                    encoder.encode(entry.value)
                }
            }
        case .structure(let fields):
            align(8)
            for field in fields { encode(field) }
        }
    }

    private mutating func writeSignature(_ text: String) {
        bytes.append(UInt8(truncatingIfNeeded: text.utf8.count))
        bytes += text.utf8
        bytes.append(0)
    }

    /// The length, padding to the element alignment, then the elements; the length counts the elements only.
    private mutating func writeArray(elementAlignment: Int, elements: (inout DBusEncoder) -> Void) {
        align(4)
        let lengthAt = bytes.count
        writeInteger(0, count: 4)
        align(elementAlignment)
        let start = bytes.count
        elements(&self)
        let length = UInt32(bytes.count - start)
        for index in 0..<4 { bytes[lengthAt + index] = UInt8(truncatingIfNeeded: length >> (8 * index)) }
    }

    private mutating func writeInteger(_ value: UInt64, count: Int) {
        align(count)
        for index in 0..<count { bytes.append(UInt8(truncatingIfNeeded: value >> (8 * index))) }
    }
}
