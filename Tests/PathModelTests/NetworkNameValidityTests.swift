// SPDX-License-Identifier: Apache-2.0
import PathModel
import Testing

@Suite struct NetworkNameValidityTests {
    @Test(arguments: [
        "Office", "Café", "東京オフィス", "📶 Home", "a", String(repeating: "x", count: 64), "❤️ Home", "x y",
        "👨\u{200D}👩\u{200D}👧 Home",
    ])
    func ordinaryNamesAreValid(name: String) {
        #expect(NetworkPolicy.isValidName(name))
    }

    @Test(arguments: [
        "", " ", "   ", String(repeating: "x", count: 65), "Off\u{1B}[2Jice", "Office\u{7}", "Office\u{85}",
        "Office\u{7F}", "Office\n", "Office\u{200B}", "Office\u{200C}", "Office\u{200D}", "\u{202E}eciffO",
        "Office\u{2066}", "Office\u{2069}", "\u{FEFF}Office", "Off\u{AD}ice", "Office\u{2028}", "Office\u{2029}",
        "Office\u{2060}", "Office\u{61C}", "Off\u{200D}ice", "📶\u{200D}", "Office\u{200E}", "Office\u{3164}",
        "Office\u{FE0F}", "Office\u{E0001}",
    ])
    func hiddenCharactersAreRefused(name: String) {
        #expect(!NetworkPolicy.isValidName(name), "\(name.unicodeScalars.map(\.value))")
    }

    @Test func everyScalarBelowU0100IsClassifiedAsExpected() {
        for value in UInt32(0)..<0x100 {
            let scalar = Unicode.Scalar(value)!
            let expected = value < 0x20 || (0x7f..<0xa0).contains(value) || value == 0xad
            #expect(HiddenText.isHidden(scalar, after: nil) == expected, "U+\(String(value, radix: 16))")
        }
    }
}

@Suite struct NetworkPolicyDescriptionTests {
    @Test(arguments: [
        (NetworkPolicy(), "constrained: not set, expensive: detection, name: none"),
        (NetworkPolicy(isConstrained: true), "constrained: yes, expensive: detection, name: none"),
        (
            NetworkPolicy(isConstrained: false, isExpensive: true, name: "Office"),
            "constrained: no, expensive: yes, name: \"Office\""
        ),
        (NetworkPolicy(isExpensive: false), "constrained: not set, expensive: no, name: none"),
    ])
    func aLogLineNamesEachSettingWithoutSwiftsOptional(policy: NetworkPolicy, text: String) {
        #expect("\(policy)" == text)
        #expect(!"\(policy)".contains("Optional"))
    }

    @Test func anSSIDWithHiddenCharactersIsShownEscaped() {
        let ssid = Array("Home\u{202E}lasrever".utf8)
        #expect(NetworkIdentity.wifi(ssid: ssid).displayName == "Wi-Fi \"Home%E2%80%AElasrever\"")
        #expect(NetworkIdentity.wifi(ssid: Array("Home\u{200B}".utf8)).displayName == "Wi-Fi \"Home%E2%80%8B\"")
        #expect(NetworkIdentity.wifi(ssid: Array("Home\u{85}".utf8)).displayName == "Wi-Fi \"Home%C2%85\"")
        #expect(NetworkIdentity.wifi(ssid: Array("東京".utf8)).displayName == "Wi-Fi \"東京\"")
    }
}
