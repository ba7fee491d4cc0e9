// SPDX-License-Identifier: Apache-2.0
import JSON
import PathModel

/// The policy file's format, pure: bytes in, policy out, and back. No I/O, so that every damaged shape of file is
/// testable in memory.
///
/// ```json
/// {
///     "version": 1,
///     "networks": [
///         {"key": "wifi:Home%20Net", "constrained": true, "expensive": null},
///         {"key": "wired:de:b0:5b:9a:11:94", "constrained": null, "expensive": null, "name": "Office"}
///     ]
/// }
/// ```
///
/// One network per line, sorted by key, so the file diffs well. Fields this version does not know are ignored,
/// so a later pathmond may add some without changing the version; it changes the version only when an older
/// pathmond would misread the file: `name` came that way (version 1 still; an older pathmond ignores it), and so
/// did `ultraConstrained` (written only when set; an older pathmond has no such interfaces) and `dataLimit`
/// (`{"bytes": 5000000000, "warningPercent": 80, "cycle": "monthly:1"}`, written only when set; an older pathmond
/// ignores the limit and keeps the rest).
public struct PolicyFile {
    /// The format version this code writes, and the newest it reads.
    public static let currentVersion = 1

    /// The policy as file contents, ending with a newline.
    public static func encode(_ policy: Policy) -> [UInt8] {
        let entries = policy.networks.sorted { $0.key < $1.key }.map { key, settings in
            "        {\"key\": \(quote(key.description)), \"constrained\": \(literal(settings.isConstrained)), "
                + "\"expensive\": \(literal(settings.isExpensive))"
                + (settings.name.map { ", \"name\": \(quote($0))" } ?? "")
                + (settings.isUltraConstrained.map { ", \"ultraConstrained\": \($0)" } ?? "")
                + (settings.dataLimit.map { ", \"dataLimit\": \(encodeLimit($0))" } ?? "") + "}"
        }
        let list = entries.isEmpty ? "[]" : "[\n" + entries.joined(separator: ",\n") + "\n    ]"
        return Array("{\n    \"version\": \(currentVersion),\n    \"networks\": \(list)\n}\n".utf8)
    }

    /// Reads a whole, valid file; any damage is an error. A duplicated network is damage too: which of the two
    /// the user meant cannot be known.
    public static func decode(_ bytes: [UInt8]) throws(PolicyFileError) -> Policy {
        let document: JSONValue
        do {
            document = try JSONReader.parse(bytes)
        } catch {
            throw .notJSON(offset: error.offset, reason: error.reason)
        }
        try checkVersion(of: document)
        let entries = try networkList(of: document)
        var policy = Policy()
        var seen: Set<NetworkKey> = []
        for (index, entry) in entries.enumerated() {
            let (key, settings) = try decodeEntry(entry, index: index)
            guard seen.insert(key).inserted else {
                throw .badEntry(index: index, reason: "network \(key) is listed more than once")
            }
            policy[key] = settings
        }
        return policy
    }

    /// Fails unless the document is an object with one version number this code reads.
    static func checkVersion(of document: JSONValue) throws(PolicyFileError) {
        guard case .object = document else {
            throw .notPolicyFile(reason: "the top level is \(document.typeName), not an object")
        }
        let versions = document.members(named: "version")
        guard versions.count == 1, case .number(let text) = versions[0],
            text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }), let version = Int(text)
        else {
            throw .notPolicyFile(reason: "it has no single whole \"version\" number")
        }
        guard version <= currentVersion else { throw .newerVersion(version) }
        guard version >= 1 else { throw .notPolicyFile(reason: "version \(version) was never written by pathmond") }
    }

    /// The entries of the one "networks" array.
    static func networkList(of document: JSONValue) throws(PolicyFileError) -> [JSONValue] {
        let lists = document.members(named: "networks")
        guard lists.count == 1, case .array(let entries) = lists[0] else {
            throw .notPolicyFile(reason: "it has no single \"networks\" array")
        }
        return entries
    }

    /// One entry: a valid key and flags that are booleans or null (absent means null).
    static func decodeEntry(_ entry: JSONValue, index: Int) throws(PolicyFileError) -> (NetworkKey, NetworkPolicy) {
        guard case .object = entry else {
            throw .badEntry(index: index, reason: "it is \(entry.typeName), not an object")
        }
        let keys = entry.members(named: "key")
        guard keys.count == 1, case .string(let text) = keys[0] else {
            throw .badEntry(index: index, reason: "it has no single \"key\" string")
        }
        guard let key = NetworkKey(text) else {
            throw .badEntry(index: index, reason: "\(quote(text)) is not a valid network key")
        }
        let constrained = try flag("constrained", of: entry, index: index, key: key)
        let expensive = try flag("expensive", of: entry, index: index, key: key)
        let name = try self.name(of: entry, index: index, key: key)
        let ultraConstrained = try flag("ultraConstrained", of: entry, index: index, key: key)
        let dataLimit = try self.dataLimit(of: entry, index: index, key: key)
        return (
            key,
            NetworkPolicy(
                isConstrained: constrained, isExpensive: expensive, name: name, isUltraConstrained: ultraConstrained,
                dataLimit: dataLimit)
        )
    }

    /// The optional user-given name: a valid name string, null or absent (files written before names had none).
    private static func name(of entry: JSONValue, index: Int, key: NetworkKey) throws(PolicyFileError) -> String? {
        let values = entry.members(named: "name")
        guard values.count <= 1 else {
            throw .badEntry(index: index, reason: "\"name\" of \(key) is given more than once")
        }
        switch values.first {
        case nil, .null?: return nil
        case .string(let name)? where NetworkPolicy.isValidStoredName(name): return name
        case .string(let name)?: throw .badEntry(index: index, reason: "\(quote(name)) is not a valid network name")
        case let other?: throw .badEntry(index: index, reason: "\"name\" of \(key) is \(other.typeName), not a string")
        }
    }

    private static func flag(
        _ name: String, of entry: JSONValue, index: Int, key: NetworkKey
    ) throws(PolicyFileError) -> Bool? {
        let values = entry.members(named: name)
        switch values.count {
        case 0: return nil
        case 1:
            switch values[0] {
            case .null: return nil
            case .bool(let value): return value
            default: break
            }
            throw .badEntry(
                index: index, reason: "\"\(name)\" of \(key) is \(values[0].typeName), not true, false or null")
        default:
            throw .badEntry(index: index, reason: "\"\(name)\" of \(key) is given more than once")
        }
    }

    private static func literal(_ flag: Bool?) -> String {
        flag.map { $0 ? "true" : "false" } ?? "null"
    }

    /// A JSON string literal: quotes, backslashes and control characters escaped, everything else as UTF-8.
    static func quote(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\u{7f}", "\u{0}"..."\u{1f}":
                let hex = String(scalar.value, radix: 16, uppercase: true)
                result += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }
}
