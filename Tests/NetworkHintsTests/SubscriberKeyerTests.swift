// SPDX-License-Identifier: Apache-2.0
import Dispatch
import Glibc
import Testing

@testable import NetworkHints

private let keyer = SubscriberKeyer(secret: Array(0..<32))
private let iccid = "89014103211118510720"
private let imsi = "310150123456789"

@Test func simKeysAreStableKeyedAndOpaque() throws {
    let key = try #require(keyer.key(forSIM: iccid, imsi: imsi))
    #expect(key.hasPrefix("sim-"))
    #expect(key.count == 4 + 32)
    #expect(key == keyer.key(forSIM: iccid, imsi: nil))
    #expect(!key.contains(iccid) && !key.contains(imsi) && !key.contains("8901"))
    #expect(SubscriberKeyer(secret: Array(1...32)).key(forSIM: iccid, imsi: imsi) != key)
    #expect(keyer.key(forSIM: "89014103211118510721", imsi: imsi) != key)
}

@Test func iccidIsNormalised() {
    let key = keyer.key(forSIM: iccid, imsi: nil)
    #expect(keyer.key(forSIM: " 89014103211118510720F ", imsi: nil) == key)
    #expect(keyer.key(forSIM: "8901410321111851072f", imsi: nil) != nil)
    #expect(keyer.key(forSIM: "", imsi: nil) == nil)
    #expect(keyer.key(forSIM: "not-an-iccid", imsi: nil) == nil)
}

@Test func imsiIsTheFallbackInItsOwnDomain() throws {
    let byIMSI = try #require(keyer.key(forSIM: nil, imsi: imsi))
    #expect(byIMSI.hasPrefix("sim-"))
    #expect(byIMSI != keyer.key(forSIM: imsi, imsi: nil))
    #expect(keyer.key(forSIM: nil, imsi: "12345") == nil)
    #expect(keyer.key(forSIM: nil, imsi: nil) == nil)
}

@Test func hardwareKeysAndSubscriberFallback() {
    let hardware = keyer.key(forHardware: "imei:356938035643809")
    #expect(hardware.hasPrefix("hw-") && hardware.count == 3 + 32 && !hardware.contains("356938"))
    #expect(keyer.key(for: CellularSubscriber(hardwareIdentity: "imei:356938035643809")) == hardware)
    #expect(
        keyer.key(for: CellularSubscriber(iccid: iccid, hardwareIdentity: "x")) == keyer.key(forSIM: iccid, imsi: nil))
    #expect(keyer.key(for: CellularSubscriber()) == nil)
}

@Test func subscriberDescriptionNeverShowsIdentifiers() {
    let text = "\(CellularSubscriber(iccid: iccid, imsi: imsi, hardwareIdentity: "imei:356938035643809"))"
    #expect(text == "CellularSubscriber(iccid, imsi, hardware)")
}

@Test func secretIsCreatedOnceWithModeSixHundred() throws {
    let directory = makeTemporaryDirectory()
    defer { removeTree(directory) }
    let first = try SubscriberKeyer.loadOrCreateSecret(stateDirectory: directory)
    #expect(first.count == 32)
    #expect(try SubscriberKeyer.loadOrCreateSecret(stateDirectory: directory) == first)
    var status = stat()
    #expect(stat(directory + "/subscriber-secret", &status) == 0)
    #expect(status.st_mode & 0o777 == 0o600)
    #expect(HintFiles.list(directory) == ["subscriber-secret"])
}

@Test func malformedOrUnwritableSecretIsATypedError() throws {
    let directory = makeTemporaryDirectory()
    defer { removeTree(directory) }
    let path = directory + "/subscriber-secret"
    let descriptor = open(path, O_WRONLY | O_CREAT, 0o600)
    _ = write(descriptor, "short", 5)
    close(descriptor)
    #expect(throws: SubscriberSecretError.malformed(path: path, byteCount: 5)) {
        try SubscriberKeyer.loadOrCreateSecret(stateDirectory: directory)
    }
    #expect(
        throws: SubscriberSecretError.unwritable(path: "/nonexistent/subscriber-secret.tmp-\(getpid())", errno: ENOENT)
    ) {
        try SubscriberKeyer.loadOrCreateSecret(stateDirectory: "/nonexistent")
    }
}

/// A FIFO planted under the secret's name is refused at once: opened blocking, it hung the main loop for ever.
/// (Should the open block, a writer arriving two seconds later releases it, and the test fails instead of hanging.)
@Test func secretThatIsAFIFOIsRefusedWithoutBlocking() throws {
    let directory = makeTemporaryDirectory()
    defer { removeTree(directory) }
    let path = directory + "/subscriber-secret"
    #expect(mkfifo(path, 0o600) == 0)
    DispatchQueue.global().asyncAfter(deadline: .now() + 2) {
        let writer = open(path, O_WRONLY | O_NONBLOCK)
        if writer >= 0 { close(writer) }
    }
    #expect(throws: SubscriberSecretError.notRegularFile(path: path)) {
        try SubscriberKeyer.loadOrCreateSecret(stateDirectory: directory)
    }
}
