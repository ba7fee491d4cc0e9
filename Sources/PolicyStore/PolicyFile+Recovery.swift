// SPDX-License-Identifier: Apache-2.0
import JSON
import PathModel

extension PolicyFile {
    /// Reads what can be trusted from a damaged file: every whole, valid network entry, and a sentence for each
    /// thing that could not be read. Never fails; an undamaged file gives the same policy as `decode` and no
    /// problems.
    ///
    /// A file cut short keeps the entries written before the cut. A file of a newer version gives nothing: its
    /// entries may mean something this version cannot know.
    public static func decodeRecovering(_ bytes: [UInt8]) -> (policy: Policy, problems: [String]) {
        var problems: [String] = []
        let document: JSONValue
        do {
            document = try JSONReader.parse(bytes)
        } catch {
            problems.append(PolicyFileError.notJSON(offset: error.offset, reason: error.reason).description)
            document = .object(salvageMembers(bytes))
        }
        do {
            try checkVersion(of: document)
        } catch .newerVersion(let version) {
            problems.append(PolicyFileError.newerVersion(version).description + "; nothing was read from it")
            return (Policy(), problems)
        } catch {
            // The version is the only header: entries are still worth reading as this version's.
            problems.append(error.description + "; its entries were read as version \(currentVersion)")
        }
        let entries: [JSONValue]
        do {
            entries = try networkList(of: document)
        } catch {
            // A damaged file may still hold several lists; the first is as good a guess as any.
            problems.append(error.description)
            entries =
                document.members(named: "networks").lazy.compactMap { value -> [JSONValue]? in
                    if case .array(let list) = value { return list }
                    return nil
                }.first ?? []
        }
        var policy = Policy()
        var seen: Set<NetworkKey> = []
        for (index, entry) in entries.enumerated() {
            do {
                let (key, settings) = try decodeEntry(entry, index: index)
                guard seen.insert(key).inserted else {
                    problems.append(
                        PolicyFileError.badEntry(index: index, reason: "network \(key) is listed again").description
                            + "; the first entry was kept")
                    continue
                }
                policy[key] = settings
            } catch {
                problems.append(error.description + "; it was skipped")
            }
        }
        return (policy, problems)
    }

    /// The top-level members of a document that stops being JSON somewhere: every member that was whole, and of
    /// "networks" every element that was whole before the damage.
    static func salvageMembers(_ bytes: [UInt8]) -> [(String, JSONValue)] {
        var reader = JSONReader(bytes)
        // An entry that repeats a field is damage of that entry alone: decodeEntry skips it, and the rest is read.
        reader.keepsRepeatedMembers = true
        var members: [(String, JSONValue)] = []
        do {
            try reader.expect(UInt8(ascii: "{"), "\"{\"")
            if reader.consume(UInt8(ascii: "}")) { return members }
            repeat {
                guard reader.peek() == UInt8(ascii: "\"") else { return members }
                let name = try reader.parseString()
                try reader.expect(UInt8(ascii: ":"), "\":\"")
                if name == "networks" && reader.peek() == UInt8(ascii: "[") {
                    var elements: [JSONValue] = []
                    // Runs on the way out of a damaged list too: that is the point.
                    defer { members.append((name, .array(elements))) }
                    try reader.expect(UInt8(ascii: "["), "\"[\"")
                    if !reader.consume(UInt8(ascii: "]")) {
                        repeat {
                            elements.append(try reader.parseValue())
                        } while reader.consume(UInt8(ascii: ","))
                        try reader.expect(UInt8(ascii: "]"), "\",\" or \"]\"")
                    }
                } else {
                    members.append((name, try reader.parseValue()))
                }
            } while reader.consume(UInt8(ascii: ","))
        } catch {
            // The damage: everything whole before it is already in `members`.
        }
        return members
    }
}
