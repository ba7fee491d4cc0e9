// SPDX-License-Identifier: Apache-2.0
// The line-by-line parser behind `Configuration.parse`. Written by hand because the model imports nothing.

/// Parser state: the section being read and what has been collected so far.
struct ConfigurationParser {
    /// The section the following `key = value` lines belong to.
    private enum Section {
        /// Before the first header: assignments here are errors.
        case none
        /// An `[interface PATTERN]` section being filled in.
        case interface(OpenInterfaceSection)
        /// `[policy]`: who may change policy.
        case policy(keyLines: [String: Int])
        /// `[history]` or `[metrics]`: one value each (`ConfigurationParser+Observability.swift`).
        case history(keyLines: [String: Int])
        case metrics(keyLines: [String: Int])
        /// `[discretionary]`: the system policy's settle and grace times.
        case discretionary(keyLines: [String: Int])
        /// `[networkmanager]`: whether pathmond writes its verdicts through to NetworkManager.
        case networkManager(keyLines: [String: Int])
        /// `[captive-portal]`: whether pathmond asks a portal's API (RFC 8908).
        case captivePortal(keyLines: [String: Int])
        /// `[connectivity]`: pathmond's own connectivity check.
        case connectivity(keyLines: [String: Int])
        /// `[usage]`: how often usage is read (`ConfigurationParser+Observability.swift`).
        case usage(keyLines: [String: Int])
        /// A section this version does not know: its lines are checked for syntax, then skipped.
        case unknown
    }

    /// An `[interface PATTERN]` section whose keys are still being read.
    private struct OpenInterfaceSection {
        var override: InterfaceOverride
        var headerLine: Int
        /// Where each known key was set, to report duplicates.
        var keyLines: [String: Int] = [:]

        /// Applies one `key = value` line of this section.
        mutating func set(
            key: String, value: String, line: Int, warnings: inout [ConfigurationWarning]
        ) throws(ConfigurationError) {
            guard ["type", "expensive", "network", "ultra-constrained", "roaming-expensive"].contains(key) else {
                warnings.append(.unknownKey(line: line, section: "interface \(override.pattern)", key: key))
                return
            }
            try ConfigurationParser.requireNewAndPresent(key, value, line: line, in: keyLines)
            let word = value.lowercased()
            if key == "network" {
                guard let network = NetworkKey(value) else { throw .invalidNetworkKey(line: line, value: value) }
                override.network = network
            } else if key == "type" {
                guard word != InterfaceKind.loopback.rawValue else { throw .loopbackNotAllowed(line: line) }
                guard let kind = InterfaceKind(rawValue: word) else {
                    throw .invalidInterfaceType(line: line, value: value)
                }
                override.kind = kind
            } else {
                let flag: Bool
                switch word {
                case "true", "yes", "1": flag = true
                case "false", "no", "0": flag = false
                default: throw .invalidBoolean(line: line, key: key, value: value)
                }
                switch key {
                case "expensive": override.isExpensive = flag
                case "ultra-constrained": override.isUltraConstrained = flag
                default: override.roamingIsExpensive = flag
                }
            }
            keyLines[key] = line
        }
    }

    private var section = Section.none
    /// Where each section that may appear once began, to refuse a second one.
    private var singleSectionLines: [Substring: Int] = [:]
    private var overrides: [InterfaceOverride] = []
    private var warnings: [ConfigurationWarning] = []

    /// Notes something skipped (for the sections in other files).
    mutating func warn(_ warning: ConfigurationWarning) { warnings.append(warning) }
    private var adminGroup: String?
    var historyEntries: Int?
    var usageInterval: Duration?
    var metricsTextfile: String?
    var discretionarySettle: Duration?
    var discretionaryGrace: Duration?
    var networkManagerWriteMetered = true
    var captivePortalCheckAPI = false
    var connectivity = ConnectivityCheckSettings()

    /// Reads one line (`number` is 1-based).
    mutating func consume(_ rawLine: Substring, number: Int) throws(ConfigurationError) {
        // Editors on some systems start UTF-8 files with a byte order mark; it is not part of the text.
        let line = number == 1 && rawLine.first == "\u{FEFF}" ? rawLine.dropFirst() : rawLine
        let content = Self.removingComment(line).trimmingWhitespace()
        if content.isEmpty { return }
        if content.first == "[" {
            try beginSection(content, line: number)
        } else {
            try assign(content, line: number)
        }
    }

    /// The configuration once every line has been read.
    mutating func finish() -> Configuration {
        closeSection()
        var configuration = Configuration(
            overrides: overrides, warnings: warnings, adminGroup: adminGroup, historyEntries: historyEntries,
            metricsTextfile: metricsTextfile, discretionarySettle: discretionarySettle,
            discretionaryGrace: discretionaryGrace, networkManagerWriteMetered: networkManagerWriteMetered)
        configuration.captivePortalCheckAPI = captivePortalCheckAPI
        configuration.connectivity = connectivity
        configuration.usageInterval = usageInterval
        return configuration
    }

    private mutating func beginSection(_ content: Substring, line: Int) throws(ConfigurationError) {
        // The last "]" closes the header, so patterns may hold bracket classes: [interface eth[01]].
        guard content.count >= 2, content.last == "]" else {
            throw .malformedSectionHeader(line: line, text: String(content))
        }
        let words = content.dropFirst().dropLast().split(whereSeparator: \.isWhitespace)
        guard let name = words.first else { throw .malformedSectionHeader(line: line, text: String(content)) }
        closeSection()
        if [
            "policy", "history", "metrics", "discretionary", "networkmanager", "captive-portal", "connectivity",
            "usage",
        ].contains(name) && words.count == 1 {
            if let firstLine = singleSectionLines[name] {
                throw .duplicateSection(line: line, name: String(name), firstLine: firstLine)
            }
            singleSectionLines[name] = line
        }
        if name == "policy" && words.count == 1 {
            section = .policy(keyLines: [:])
            return
        }
        if (name == "history" || name == "metrics") && words.count == 1 {
            section = name == "history" ? .history(keyLines: [:]) : .metrics(keyLines: [:])
            return
        }
        if name == "discretionary" && words.count == 1 {
            section = .discretionary(keyLines: [:])
            return
        }
        if name == "networkmanager" && words.count == 1 {
            section = .networkManager(keyLines: [:])
            return
        }
        if name == "captive-portal" && words.count == 1 {
            section = .captivePortal(keyLines: [:])
            return
        }
        if name == "connectivity" && words.count == 1 {
            section = .connectivity(keyLines: [:])
            return
        }
        if name == "usage" && words.count == 1 {
            section = .usage(keyLines: [:])
            return
        }
        guard name == "interface" else {
            warnings.append(.unknownSection(line: line, name: words.joined(separator: " ")))
            section = .unknown
            return
        }
        guard words.count >= 2 else { throw .missingPattern(line: line) }
        guard words.count == 2 else { throw .extraPattern(line: line, pattern: String(words[2])) }
        if let problem = Glob.problem(in: String(words[1])) {
            throw .invalidPattern(line: line, pattern: String(words[1]), reason: problem)
        }
        section = .interface(
            OpenInterfaceSection(override: InterfaceOverride(pattern: String(words[1])), headerLine: line))
    }

    private mutating func assign(_ content: Substring, line: Int) throws(ConfigurationError) {
        guard let equals = content.firstIndex(of: "=") else {
            throw .malformedLine(line: line, text: String(content))
        }
        let key = content[..<equals].trimmingWhitespace()
        let value = content[content.index(after: equals)...].trimmingWhitespace()
        guard !key.isEmpty, key.allSatisfy(Self.isKeyCharacter) else {
            throw .malformedLine(line: line, text: String(content))
        }
        switch section {
        case .none:
            throw .keyOutsideSection(line: line, key: String(key))
        case .unknown:
            return
        case .policy(var keyLines):
            try setPolicy(key: String(key), value: String(value), line: line, keyLines: &keyLines)
            section = .policy(keyLines: keyLines)
        case .history(var keyLines):
            try setHistory(key: String(key), value: String(value), line: line, keyLines: &keyLines)
            section = .history(keyLines: keyLines)
        case .metrics(var keyLines):
            try setMetrics(key: String(key), value: String(value), line: line, keyLines: &keyLines)
            section = .metrics(keyLines: keyLines)
        case .discretionary(var keyLines):
            try setDiscretionary(key: String(key), value: String(value), line: line, keyLines: &keyLines)
            section = .discretionary(keyLines: keyLines)
        case .networkManager(var keyLines):
            try setNetworkManager(key: String(key), value: String(value), line: line, keyLines: &keyLines)
            section = .networkManager(keyLines: keyLines)
        case .captivePortal(var keyLines):
            try setCaptivePortal(key: String(key), value: String(value), line: line, keyLines: &keyLines)
            section = .captivePortal(keyLines: keyLines)
        case .connectivity(var keyLines):
            try setConnectivity(key: String(key), value: String(value), line: line, keyLines: &keyLines)
            section = .connectivity(keyLines: keyLines)
        case .usage(var keyLines):
            try setUsage(key: String(key), value: String(value), line: line, keyLines: &keyLines)
            section = .usage(keyLines: keyLines)
        case .interface(var open):
            try open.set(key: String(key), value: String(value), line: line, warnings: &warnings)
            section = .interface(open)
        }
    }

    /// Applies one `key = value` line of `[policy]`.
    private mutating func setPolicy(
        key: String, value: String, line: Int, keyLines: inout [String: Int]
    ) throws(ConfigurationError) {
        guard key == "admin-group" else {
            warnings.append(.unknownKey(line: line, section: "policy", key: key))
            return
        }
        try ConfigurationParser.requireNewAndPresent(key, value, line: line, in: keyLines)
        // POSIX portable user and group names: letters, digits, ".", "_", "-", not starting with "-".
        guard value.first != "-",
            value.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "._-".contains($0)) })
        else { throw .invalidGroupName(line: line, value: value) }
        adminGroup = value
        keyLines[key] = line
    }

    /// Files the section being read, if any. A section that set nothing is dropped with a warning.
    private mutating func closeSection() {
        if case .interface(let open) = section {
            if open.keyLines.isEmpty {
                warnings.append(.emptySection(line: open.headerLine, pattern: open.override.pattern))
            } else {
                overrides.append(open.override)
            }
        }
        section = .none
    }

    /// Key names are ASCII words with dashes or underscores, as in systemd and NetworkManager files.
    private static func isKeyCharacter(_ character: Character) -> Bool {
        character.isASCII && (character.isLetter || character.isNumber || character == "-" || character == "_")
    }

    /// The line up to a "#" or ";" that starts it or follows whitespace. Only there, because interface names
    /// may contain either character.
    private static func removingComment(_ line: Substring) -> Substring {
        var previous: Character? = nil
        for index in line.indices {
            let character = line[index]
            if (character == "#" || character == ";") && (previous?.isWhitespace ?? true) {
                return line[..<index]
            }
            previous = character
        }
        return line
    }
}

extension Substring {
    /// The text without leading and trailing whitespace (Foundation's trimming, which the model cannot import).
    fileprivate func trimmingWhitespace() -> Substring {
        guard let first = firstIndex(where: { !$0.isWhitespace }), let last = lastIndex(where: { !$0.isWhitespace })
        else { return self[endIndex...] }
        return self[first...last]
    }
}

extension ConfigurationParser {
    /// The checks every `key = value` line of a section starts with, whatever the section: a key the section set
    /// already, and a key without a value.
    static func requireNewAndPresent(
        _ key: String, _ value: String, line: Int, in keyLines: [String: Int]
    ) throws(ConfigurationError) {
        if let firstLine = keyLines[key] { throw .duplicateKey(line: line, key: key, firstLine: firstLine) }
        guard !value.isEmpty else { throw .missingValue(line: line, key: key) }
    }
}
