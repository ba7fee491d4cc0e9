// SPDX-License-Identifier: Apache-2.0
import PathModel

extension LeaseFile {
    /// Every `lease { … }` block of an ISC dhclient lease file, in file order (dhclient appends, so the newest is
    /// last). Blocks whose `interface "…";` names another interface are left out; a block without one belongs to
    /// `interface` (the name the file itself is kept under). `lease6` blocks, `default-duid` and statements we do
    /// not know are skipped, and so is a last block cut short by a crash during a write.
    ///
    /// Option 43 appears as `option vendor-encapsulated-options "ANDROID_METERED";` when its bytes are printable
    /// (dhclient quotes them, escaping others as \ooo) and as colon-separated hex (`41:4e:44:…`) otherwise.
    public static func parseDhclient(_ text: String, interface: String?) -> [DHCPLease] {
        var tokens = DhclientTokenizer(Array(text.utf8))
        var leases: [DHCPLease] = []
        while let token = tokens.next() {
            guard token == .word("lease"), tokens.peek() == .open else {
                if token == .open { tokens.skipBlock() }
                continue
            }
            _ = tokens.next()
            guard let statements = tokens.statementsOfBlock() else { break }
            var lease = DHCPLease(writer: .dhclient, interfaceName: interface)
            for statement in statements { apply(statement, to: &lease) }
            if lease.interfaceName == interface || interface == nil { leases.append(lease) }
        }
        return leases
    }

    private static func apply(_ statement: [DhclientToken], to lease: inout DHCPLease) {
        switch (statement.first, statement.count) {
        case (.word("interface"), 2):
            if case .string(let name) = statement[1] { lease.interfaceName = String(decoding: name, as: UTF8.self) }
        case (.word("fixed-address"), 2):
            lease.address = statement[1].word.flatMap(IPv4Text.validated)
        case (.word("expire"), _):
            lease.expiry = expiry(Array(statement.dropFirst()))
        case (.word("option"), 3...):
            let value = Array(statement.dropFirst(2))
            switch statement[1].word {
            case "subnet-mask": lease.netmask = value.first?.word.flatMap(IPv4Text.validated)
            // A list prints comma-separated; the first router is the one in use.
            case "routers":
                lease.router = value.first?.word?.split(separator: ",").first.flatMap(IPv4Text.validated)
            case "vendor-encapsulated-options": lease.vendorSpecific = optionBytes(value)
            // Option 114: ISC's table still calls it by its RFC 3679 name, default-url; a dhclient.conf that
            // declares RFC 8910's name writes captive-portal; one that declares nothing, unknown-114.
            case "default-url", "captive-portal", "unknown-114":
                lease.captivePortal = optionBytes(value).map { String(decoding: $0, as: UTF8.self) }
                    .flatMap { CaptivePortalHint.isValidURI($0) ? $0 : nil }
            default: break
            }
        default: break
        }
    }

    /// The bytes of an option value: quoted text, or one colon-separated hex word.
    static func optionBytes(_ value: [DhclientToken]) -> [UInt8]? {
        guard value.count == 1 else { return nil }
        switch value[0] {
        case .string(let bytes): return bytes
        case .word(let word): return HexText.decodeColonSeparated(word[...])
        default: return nil
        }
    }

    /// `expire 4 2024/01/11 10:27:30` (UTC, the default db-time-format), `expire epoch 1704968850` (the "local"
    /// format), or `expire never` (nil, as is anything unreadable, a year outside 1…9999 among it).
    static func expiry(_ words: [DhclientToken]) -> Int64? {
        if words.count == 2, words[0].word == "epoch" { return words[1].word.flatMap { Int64($0) } }
        guard words.count == 3, let date = words[1].word, let time = words[2].word else { return nil }
        let day = date.split(separator: "/", omittingEmptySubsequences: false).compactMap { Int64($0) }
        let clock = time.split(separator: ":", omittingEmptySubsequences: false).compactMap { Int64($0) }
        // dhclient prints the year of a time_t it computed; no lease runs past year 9999, and a year that large
        // would overflow the seconds below ("expire 4 1000000000000/01/11" once trapped here on every start).
        guard day.count == 3, clock.count == 3, (1...9999).contains(day[0]), (1...12).contains(day[1]),
            (1...31).contains(day[2]), (0...23).contains(clock[0]), (0...59).contains(clock[1]),
            (0...60).contains(clock[2])
        else { return nil }
        return daysSinceEpoch(year: day[0], month: day[1], day: day[2]) * 86_400 + clock[0] * 3600 + clock[1] * 60
            + clock[2]
    }

    /// Days from 1970-01-01 to a proleptic Gregorian date (Howard Hinnant's days_from_civil).
    static func daysSinceEpoch(year: Int64, month: Int64, day: Int64) -> Int64 {
        let shiftedYear = month <= 2 ? year - 1 : year
        let era = (shiftedYear >= 0 ? shiftedYear : shiftedYear - 399) / 400
        let yearOfEra = shiftedYear - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}

/// A token of dhclient's lease syntax (the same lexer as dhclient.conf).
enum DhclientToken: Equatable {
    case word(String)
    case string([UInt8])
    case open
    case close
    case semicolon

    var word: String? {
        if case .word(let text) = self { return text }
        return nil
    }
}

/// Splits lease text into tokens: "#" comments to the end of the line, quoted strings with dhclient's escapes.
struct DhclientTokenizer {
    private let bytes: [UInt8]
    private var position = 0
    private var lookahead: DhclientToken?

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    mutating func peek() -> DhclientToken? {
        if lookahead == nil { lookahead = scan() }
        return lookahead
    }

    mutating func next() -> DhclientToken? {
        if let token = lookahead {
            lookahead = nil
            return token
        }
        return scan()
    }

    /// The statements of a block whose "{" was just read, up to its "}"; nested blocks are skipped. Nil when the
    /// text ends first: a block cut short is not a lease.
    mutating func statementsOfBlock() -> [[DhclientToken]]? {
        var statements: [[DhclientToken]] = []
        var current: [DhclientToken] = []
        while let token = next() {
            switch token {
            case .close: return statements
            case .semicolon:
                if !current.isEmpty { statements.append(current) }
                current = []
            case .open:
                guard skipBlock() else { return nil }
                current = []
            default: current.append(token)
            }
        }
        return nil
    }

    /// Skips to the "}" matching a "{" just read; false if the text ends first.
    @discardableResult
    mutating func skipBlock() -> Bool {
        var depth = 1
        while let token = next() {
            if token == .open { depth += 1 }
            if token == .close {
                depth -= 1
                if depth == 0 { return true }
            }
        }
        return false
    }

    private mutating func scan() -> DhclientToken? {
        while position < bytes.count {
            let byte = bytes[position]
            switch byte {
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r"):
                position += 1
            case UInt8(ascii: "#"):
                while position < bytes.count && bytes[position] != UInt8(ascii: "\n") { position += 1 }
            case UInt8(ascii: "{"), UInt8(ascii: "}"), UInt8(ascii: ";"):
                position += 1
                return byte == UInt8(ascii: "{") ? .open : byte == UInt8(ascii: "}") ? .close : .semicolon
            case UInt8(ascii: "\""):
                position += 1
                return .string(scanString())
            default:
                let start = position
                while position < bytes.count, !Self.isDelimiter(bytes[position]) { position += 1 }
                return .word(String(decoding: bytes[start..<position], as: UTF8.self))
            }
        }
        return nil
    }

    /// Space, tab, CR, LF, braces, semicolon, quote, "#": what ends a word.
    private static func isDelimiter(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x20, 0x09, 0x0d, 0x0a, 0x7b, 0x7d, 0x3b, 0x22, 0x23: return true
        default: return false
        }
    }

    /// The bytes of a quoted string whose opening quote was just read: \ooo octal, \xHH, \t \r \n \b, and a
    /// backslash before any other character keeps that character.
    private mutating func scanString() -> [UInt8] {
        var result: [UInt8] = []
        while position < bytes.count {
            let byte = bytes[position]
            position += 1
            if byte == UInt8(ascii: "\"") { return result }
            guard byte == UInt8(ascii: "\\"), position < bytes.count else {
                result.append(byte)
                continue
            }
            let escaped = bytes[position]
            position += 1
            switch escaped {
            case UInt8(ascii: "0")...UInt8(ascii: "7"):
                var value = UInt32(escaped - UInt8(ascii: "0"))
                var digits = 1
                while digits < 3, position < bytes.count, (48...55).contains(bytes[position]) {
                    value = value * 8 + UInt32(bytes[position] - 48)
                    position += 1
                    digits += 1
                }
                result.append(UInt8(truncatingIfNeeded: value))
            case UInt8(ascii: "x"):
                var value: UInt8 = 0
                var digits = 0
                while digits < 2, position < bytes.count, let nibble = HexText.nibble(bytes[position]) {
                    value = value << 4 | nibble
                    position += 1
                    digits += 1
                }
                result.append(digits == 0 ? escaped : value)
            case UInt8(ascii: "t"): result.append(9)
            case UInt8(ascii: "n"): result.append(10)
            case UInt8(ascii: "r"): result.append(13)
            case UInt8(ascii: "b"): result.append(8)
            default: result.append(escaped)
            }
        }
        return result
    }
}
