// SPDX-License-Identifier: Apache-2.0
import PathModel
import Testing

@testable import PathProtocol

// WatchFlow takes addresses as sockets print them (issue 10: scoped and IPv4-mapped addresses were rejected).

@Test(arguments: [
    ("fe80::1%eth0", "fe80::1"), ("fe80::1%3", "fe80::1"), ("::ffff:10.0.0.2", "10.0.0.2"),
    ("::ffff:192.0.2.200", "192.0.2.200"), ("2001:db8::1", "2001:db8::1"), ("10.0.0.2", "10.0.0.2"),
])
func flowAddressesAsSocketsPrintThem(_ text: String, _ expected: String) throws {
    let flow = try wireFlow(local: text, remote: text).flow()
    #expect(flow.localAddress.description == expected)
    #expect(flow.remoteAddress?.description == expected)
}

@Test(arguments: [
    "fe80::1%eth1", "fe80::1%", "10.0.0.2%eth0", "::ffff:10.0.0", "::ffff:10.0.0.256", "1:2:3:4:5:6:7:1.2.3.4",
])
func flowAddressesThatAreNotAddressesAreRefused(_ text: String) {
    #expect(throws: WireFormatError.unknownValue(field: "localAddress", value: text)) {
        try wireFlow(local: text, remote: nil).flow()
    }
}

@Test func embeddedIPv4FormsParse() throws {
    let mapped = try wireFlow(local: "64:ff9b::192.0.2.33", remote: nil).flow()
    #expect(mapped.localAddress.description == "64:ff9b::c000:221")
    #expect(throws: WireFormatError.self) { try wireFlow(local: "::1.2.3.4.5", remote: nil).flow() }
}

/// A flow on eth0 as a client sends it.
private func wireFlow(local: String, remote: String?) throws -> WireFlow {
    let remoteField = remote.map { #","remoteAddress":"\#($0)""# } ?? ""
    let json = #"{"interface":"eth0","localAddress":"\#(local)"\#(remoteField)}"#
    return try VarlinkCodec().decode(WireFlow.self, from: Array(json.utf8))
}
