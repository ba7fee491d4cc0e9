// SPDX-License-Identifier: Apache-2.0
/// Turns a SIM's identifiers (or a modem's hardware identity) into the subscriber string of
/// `NetworkIdentity.cellular(subscriber:)`: a keyed hash, so that the policy file, logs and `pathctl` recognise
/// the SIM again without ever holding its ICCID or IMSI.
///
/// The key is a per-machine secret (see `loadOrCreateSecret(stateDirectory:)`): a plain hash of an ICCID could be
/// reversed by trying the few billion ICCIDs of an issuer; an HMAC under a secret that never leaves the machine
/// cannot.
public struct SubscriberKeyer: Sendable {
    /// How many hex digits of the HMAC a key keeps: 128 bits, far beyond any collision among one user's SIMs.
    static let digestHexCount = 32

    private let secret: [UInt8]

    /// A keyer under `secret` (32 random bytes in the daemon; anything in tests).
    public init(secret: [UInt8]) {
        self.secret = secret
    }

    /// "sim-" and 32 hex digits; nil when neither identifier is usable. The ICCID names the card itself and is
    /// preferred; the IMSI (the subscription on it) is the fallback, hashed in its own domain so that the two can
    /// never collide.
    public func key(forSIM iccid: String?, imsi: String?) -> String? {
        if let iccid = iccid.flatMap(Self.normalizedICCID) {
            return "sim-" + digest("iccid:" + iccid)
        }
        if let imsi = imsi.flatMap(Self.normalizedIMSI) {
            return "sim-" + digest("imsi:" + imsi)
        }
        return nil
    }

    /// "hw-" and 32 hex digits for a modem's stable hardware identity (an IMEI, a USB serial): used when the SIM
    /// cannot be read, so the key follows the modem rather than the card.
    public func key(forHardware identity: String) -> String {
        "hw-" + digest("hw:" + identity)
    }

    /// The key for what an identity source reported: the SIM when it is readable, else the hardware.
    public func key(for subscriber: CellularSubscriber) -> String? {
        if let key = key(forSIM: subscriber.iccid, imsi: subscriber.imsi) { return key }
        return subscriber.hardwareIdentity.map { key(forHardware: $0) }
    }

    private func digest(_ text: String) -> String {
        String(SHA256.hmac(key: secret, message: Array(text.utf8)).hexString.prefix(Self.digestHexCount))
    }

    /// Digits as ModemManager reports them: upper-case, without the "F" filler some SIMs pad an odd length with,
    /// so that one card keys the same whichever modem or firmware reads it.
    static func normalizedICCID(_ text: String) -> String? {
        var value = text.filter { !$0.isWhitespace }.uppercased()
        while value.hasSuffix("F") { value.removeLast() }
        guard !value.isEmpty, value.allSatisfy({ $0.isASCII && $0.isHexDigit }) else { return nil }
        return value
    }

    /// An IMSI is 6 to 15 decimal digits (ITU-T E.212); anything else is not one.
    static func normalizedIMSI(_ text: String) -> String? {
        let value = text.filter { !$0.isWhitespace }
        guard (6...15).contains(value.count), value.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        return value
    }
}
