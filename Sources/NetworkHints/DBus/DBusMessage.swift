/// One D-Bus message (D-Bus Specification, "Message Protocol"): a fixed 12-byte start, an array of header fields
/// `a(yv)`, padding to 8, then the body whose types the SIGNATURE field names.
struct DBusMessage: Hashable, Sendable {
    enum Kind: UInt8, Sendable {
        case methodCall = 1
        case methodReturn = 2
        case error = 3
        case signal = 4
    }

    /// Header flag: the caller does not want the bus to start the destination if it is not running.
    static let noAutoStart: UInt8 = 0x2
    /// The specification's maximum message size: 128 MiB.
    static let maximumLength = 128 << 20

    var kind: Kind
    var flags: UInt8 = 0
    var serial: UInt32
    var path: String?
    var interface: String?
    var member: String?
    var errorName: String?
    var replySerial: UInt32?
    var destination: String?
    var sender: String?
    var body: [DBusValue] = []
    /// The body's signature; empty for no body.
    var signature: String = ""

    /// The bytes of this message, little-endian.
    func encoded() -> [UInt8] {
        var fields: [DBusValue] = []
        func field(_ code: UInt8, _ type: DBusType, _ value: DBusValue?) {
            if let value { fields.append(.structure([.byte(code), .variant(type, value)])) }
        }
        field(1, .objectPath, path.map(DBusValue.objectPath))
        field(2, .string, interface.map(DBusValue.string))
        field(3, .string, member.map(DBusValue.string))
        field(4, .string, errorName.map(DBusValue.string))
        field(5, .uint32, replySerial.map(DBusValue.uint32))
        field(6, .string, destination.map(DBusValue.string))
        field(7, .string, sender.map(DBusValue.string))
        if !signature.isEmpty { field(8, .signature, .signature(signature)) }

        var bodyEncoder = DBusEncoder()
        for value in body { bodyEncoder.encode(value) }
        var encoder = DBusEncoder()
        for byte in [UInt8(ascii: "l"), kind.rawValue, flags, 1] { encoder.encode(.byte(byte)) }
        encoder.encode(.uint32(UInt32(bodyEncoder.bytes.count)))
        encoder.encode(.uint32(serial))
        encoder.encode(.array(.structure([.byte, .variant]), fields))
        encoder.align(8)
        return encoder.bytes + bodyEncoder.bytes
    }

    /// The total length of the message that `prefix` (at least its first 16 bytes) starts, so a reader knows how
    /// much more to wait for; nil while fewer than 16 bytes are there.
    static func frameLength(prefix: ArraySlice<UInt8>) throws(DBusError) -> Int? {
        guard prefix.count >= 16 else { return nil }
        let start = Array(prefix.prefix(16))
        let isLittleEndian = try endianness(start[0])
        var decoder = DBusDecoder(bytes: start, isLittleEndian: isLittleEndian, offset: 4)
        let bodyLength = Int(try decoder.readUInt32())
        _ = try decoder.readUInt32()
        let fieldsLength = Int(try decoder.readUInt32())
        guard bodyLength <= maximumLength, fieldsLength <= maximumLength else { throw .tooLong(offset: 4) }
        let headerLength = (16 + fieldsLength + 7) / 8 * 8
        guard headerLength + bodyLength <= maximumLength else { throw .tooLong(offset: 4) }
        return headerLength + bodyLength
    }

    /// Decodes exactly one whole message; any byte left over, missing, or out of place is an error.
    static func decode(_ bytes: [UInt8]) throws(DBusError) -> DBusMessage {
        guard bytes.count >= 16 else { throw .truncated(offset: bytes.count) }
        let isLittleEndian = try endianness(bytes[0])
        guard let kind = Kind(rawValue: bytes[1]) else { throw .invalidHeader("message type \(bytes[1])") }
        guard bytes[3] == 1 else { throw .invalidHeader("protocol version \(bytes[3])") }
        guard let length = try frameLength(prefix: bytes[...]) else { throw .truncated(offset: bytes.count) }
        guard length == bytes.count else {
            throw length > bytes.count ? .truncated(offset: bytes.count) : .invalidHeader("trailing bytes")
        }
        var decoder = DBusDecoder(bytes: bytes, isLittleEndian: isLittleEndian, offset: 4)
        let bodyLength = Int(try decoder.readUInt32())
        let serial = try decoder.readUInt32()
        guard serial != 0 else { throw .invalidHeader("serial 0") }
        let fieldsValue = try decoder.decode(.array(.structure([.byte, .variant])))
        try decoder.align(8)
        var message = DBusMessage(kind: kind, flags: bytes[2], serial: serial)
        guard case .array(_, let fields) = fieldsValue else { throw .invalidHeader("header fields") }
        for case .structure(let pair) in fields {
            guard case .byte(let code) = pair[0], case .variant(let type, let value) = pair[1] else { continue }
            try message.setField(code: code, type: type, value: value)
        }
        try message.checkRequiredFields()
        let types = try DBusType.parse(signature: message.signature)
        let bodyStart = decoder.offset
        guard bodyStart + bodyLength == bytes.count else { throw .invalidHeader("body length") }
        var bodyDecoder = DBusDecoder(bytes: bytes, isLittleEndian: isLittleEndian, offset: bodyStart)
        for type in types { message.body.append(try bodyDecoder.decode(type)) }
        guard bodyDecoder.isAtEnd else { throw .invalidHeader("body longer than its signature") }
        return message
    }

    private static func endianness(_ marker: UInt8) throws(DBusError) -> Bool {
        switch marker {
        case UInt8(ascii: "l"): return true
        case UInt8(ascii: "B"): return false
        default: throw .invalidHeader("endianness marker \(marker)")
        }
    }

    /// Stores a known header field after checking its type; unknown fields are ignored, as the specification
    /// requires.
    private mutating func setField(code: UInt8, type: DBusType, value: DBusValue) throws(DBusError) {
        let expected: [UInt8: DBusType] = [
            1: .objectPath, 2: .string, 3: .string, 4: .string, 5: .uint32, 6: .string, 7: .string, 8: .signature,
            9: .uint32,
        ]
        guard let wanted = expected[code] else { return }
        guard wanted == type else { throw .invalidHeader("field \(code) has type \(type)") }
        switch code {
        case 1: path = value.text
        case 2: interface = value.text
        case 3: member = value.text
        case 4: errorName = value.text
        case 5: replySerial = value.uint32Value
        case 6: destination = value.text
        case 7: sender = value.text
        case 8: signature = value.text ?? ""
        default: break
        }
    }

    private func checkRequiredFields() throws(DBusError) {
        switch kind {
        case .methodCall where path == nil || member == nil: throw .invalidHeader("method call without path or member")
        case .signal where path == nil || member == nil || interface == nil: throw .invalidHeader("incomplete signal")
        case .methodReturn where replySerial == nil: throw .invalidHeader("method return without reply serial")
        case .error where replySerial == nil || errorName == nil: throw .invalidHeader("incomplete error")
        default: return
        }
    }
}
