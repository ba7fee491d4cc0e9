import Testing

@testable import NetworkHints

/// Fixtures/dbus holds messages captured from a real dbus-daemon 1.14 with `dbus-monitor --binary` (see
/// Fixtures/README.md): the bodies were marshalled by GLib's GDBus, an implementation independent of ours.
@Test func decodesCapturedManagedObjects() throws {
    let message = try DBusMessage.decode(fixtureBytes("dbus/managed-objects.bin"))
    #expect(message.kind == .methodCall)
    #expect(message.signature == "a{oa{sa{sv}}}")
    #expect(message.path == "/org/freedesktop/ModemManager1")
    #expect(message.destination == "org.freedesktop.ModemManager1")
    let modems = try ModemManagerObjects.modems(fromBody: message.body)
    #expect(
        modems == [
            ModemRecord(
                path: "/org/freedesktop/ModemManager1/Modem/0", networkPorts: ["wwan0"],
                simPath: "/org/freedesktop/ModemManager1/SIM/0", equipmentIdentifier: "356938035643809"),
            ModemRecord(
                path: "/org/freedesktop/ModemManager1/Modem/1", networkPorts: ["wwan1"], simPath: nil,
                equipmentIdentifier: "490154203237518"),
        ])
}

@Test func decodesCapturedSimProperties() throws {
    let message = try DBusMessage.decode(fixtureBytes("dbus/sim-properties.bin"))
    let sim = try ModemManagerObjects.sim(fromBody: message.body)
    #expect(sim.iccid == "89014103211118510720")
    #expect(sim.imsi == "310150123456789")
}

@Test func decodesCapturedBusReplies() throws {
    let error = try DBusMessage.decode(fixtureBytes("dbus/service-unknown.bin"))
    #expect(error.kind == .error)
    #expect(error.errorName == "org.freedesktop.DBus.Error.ServiceUnknown")
    #expect(error.replySerial == 3)
    #expect(error.body.first?.text?.hasPrefix("The name org.freedesktop.ModemManager1") == true)
    let hello = try DBusMessage.decode(fixtureBytes("dbus/hello-reply.bin"))
    #expect(hello.kind == .methodReturn && hello.replySerial == 1 && hello.body == [.string(":1.1")])
    let signal = try DBusMessage.decode(fixtureBytes("dbus/name-acquired.bin"))
    #expect(signal.kind == .signal && signal.member == "NameAcquired")
}

/// Our encoder and decoder agree, and our encoding of a captured message is as long as the original: the same
/// padding and lengths, with header fields perhaps in another order.
@Test func encodingReproducesCapturedBytes() throws {
    for name in ["managed-objects.bin", "sim-properties.bin", "service-unknown.bin", "hello-reply.bin"] {
        let bytes = fixtureBytes("dbus/" + name)
        var message = try DBusMessage.decode(bytes)
        #expect(try DBusMessage.decode(message.encoded()) == message, "\(name)")
        message.body = try DBusMessage.decode(message.encoded()).body
        #expect(message.encoded().count == bytes.count, "\(name)")
    }
}

@Test func everyTruncationIsATypedError() throws {
    let bytes = fixtureBytes("dbus/managed-objects.bin")
    for length in 0..<bytes.count {
        #expect(throws: DBusError.self) { try DBusMessage.decode(Array(bytes[..<length])) }
    }
    #expect(throws: DBusError.self) { try DBusMessage.decode(bytes + [0]) }
}

@Test func everySingleByteCorruptionIsHandled() throws {
    // No byte flipped anywhere may crash the decoder; most yield an error, some a different valid message.
    let bytes = fixtureBytes("dbus/managed-objects.bin")
    for index in bytes.indices {
        var corrupt = bytes
        corrupt[index] ^= 0xff
        if let message = try? DBusMessage.decode(corrupt) {
            _ = try? ModemManagerObjects.modems(fromBody: message.body)
        }
    }
}

@Test func malformedInputsNameTheirFault() throws {
    var bytes = fixtureBytes("dbus/hello-reply.bin")
    bytes[0] = UInt8(ascii: "x")
    #expect(throws: DBusError.invalidHeader("endianness marker 120")) { try DBusMessage.decode(bytes) }
    bytes = fixtureBytes("dbus/hello-reply.bin")
    bytes[3] = 2
    #expect(throws: DBusError.invalidHeader("protocol version 2")) { try DBusMessage.decode(bytes) }
    // A length field claiming more than the specification allows.
    bytes = fixtureBytes("dbus/hello-reply.bin")
    bytes[4...7] = [0xff, 0xff, 0xff, 0x7f]
    #expect(throws: DBusError.tooLong(offset: 4)) { try DBusMessage.decode(bytes) }
    // A boolean that is 2.
    var encoder = DBusEncoder()
    encoder.encode(.uint32(2))
    var decoder = DBusDecoder(bytes: encoder.bytes, isLittleEndian: true)
    #expect(throws: DBusError.invalidBoolean(offset: 0)) { try decoder.decode(.boolean) }
    // Non-zero padding before a uint32.
    decoder = DBusDecoder(bytes: [1, 7, 0, 0, 1, 0, 0, 0], isLittleEndian: true, offset: 1)
    #expect(throws: DBusError.nonZeroPadding(offset: 1)) { try decoder.decode(.uint32) }
    // A body of the wrong shape for GetManagedObjects.
    #expect(throws: DBusError.self) { try ModemManagerObjects.modems(fromBody: [.string("x")]) }
}

@Test func signatures() throws {
    #expect(
        try DBusType.parse(signature: "a{oa{sa{sv}}}") == [
            .dictionary(
                key: .objectPath, value: .dictionary(key: .string, value: .dictionary(key: .string, value: .variant)))
        ])
    #expect(try DBusType.parse(signature: "a(su)i").map(\.description) == ["a(su)", "i"])
    for bad in ["a", "(", "()", "a{vs}", "a{s}", "a{sss}", "z", String(repeating: "a", count: 33) + "y"] {
        #expect(throws: DBusError.invalidSignature(bad)) { try DBusType.parse(signature: bad) }
    }
}

@Test func bigEndianMessagesDecode() throws {
    // Byte-swap the fixed header of a little-endian message with an empty-ish body: the hello reply.
    var bytes = fixtureBytes("dbus/hello-reply.bin")
    bytes[0] = UInt8(ascii: "B")
    for range in [4..<8, 8..<12, 12..<16] { bytes[range].reverse() }
    // The header fields and body hold 4-byte lengths too; only a full re-encode would swap them all, so expect a
    // clean typed error rather than a crash or a wrong answer.
    #expect(throws: DBusError.self) { try DBusMessage.decode(bytes) }
    var decoder = DBusDecoder(bytes: [0, 0, 0, 5], isLittleEndian: false)
    #expect(try decoder.decode(.uint32) == .uint32(5))
}
