// SPDX-License-Identifier: Apache-2.0
import PathProtocol
import Testing

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The C clients (the GIO module, libpathmond) cannot read the Swift wire types, so they spell the keys they read
/// and write, and the enum values they compare, as string literals. Every such literal must be a field name, or an
/// enum value, that docs/io.pathmond.varlink declares (or one of Varlink's own message keys): a key renamed in the
/// definition, or misspelled in C, would otherwise read as "absent" and pass every test that sends the right key.
@Suite struct CParserKeysTests {
    static let root = URL(filePath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// Varlink's own message keys (the call and reply envelope), which no interface declares.
    static let envelope: Set<String> = ["method", "parameters", "more", "oneway", "upgrade", "continues", "error"]

    /// The literal keys passed to the C readers' and writers' key functions, and the literals compared with
    /// strcmp/g_strcmp0 or listed in a `[X] = "name"` table (enum values).
    static func literals(in source: String) -> (keys: Set<String>, values: Set<String>) {
        let literal = #""([A-Za-z][A-Za-z0-9]*)""#
        let keyCall = try! Regex(
            #"(?:json_object_get_member|json_object_has_member|boolean_member|object_member|json_member[a-z_]*|"#
                + #"strings_from_json|captive_portal_from_json|key|flag)\s*\([^";)]*"# + literal)
        let comparison = try! Regex(#"(?:g_strcmp0|strcmp)\s*\([^";)]*"# + literal)
        let table = try! Regex(#"\]\s*=\s*"# + literal)
        func captured(_ regex: Regex<AnyRegexOutput>) -> Set<String> {
            Set(source.matches(of: regex).compactMap { $0.output[1].substring.map(String.init) })
        }
        return (captured(keyCall), captured(comparison).union(captured(table)))
    }

    /// Every field name and every enum value the definitions declare, nested ones included.
    static func declared(_ definitions: [VarlinkDefinition]) -> (fields: Set<String>, values: Set<String>) {
        var fields = Set<String>()
        var values = Set<String>()
        func visit(_ type: VarlinkDefinition.FieldType) {
            switch type {
            case .optional(let inner), .array(let inner), .map(let inner): visit(inner)
            case .enumeration(let cases): values.formUnion(cases)
            case .object(let members): visit(members)
            case .primitive, .named: break
            }
        }
        func visit(_ members: [VarlinkDefinition.Field]) {
            for member in members {
                fields.insert(member.name)
                visit(member.type)
            }
        }
        for definition in definitions {
            definition.types.values.forEach(visit)
            for method in definition.methods.values {
                visit(method.input)
                visit(method.output)
            }
            definition.errors.values.forEach(visit)
        }
        return (fields, values)
    }

    @Test(arguments: ["Sources/PathmondGIO", "Sources/libpathmond"])
    func everyLiteralTheCCodeReadsIsDeclared(folder: String) throws {
        let (fields, values) = Self.declared([
            try VarlinkDefinition(VarlinkInterfaces.pathmondDescription),
            try VarlinkDefinition(VarlinkInterfaces.serviceDescription),
        ])
        let directory = Self.root.appending(path: folder)
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".c") }
        var keys = Set<String>()
        var compared = Set<String>()
        for file in files {
            let source = try String(decoding: Data(contentsOf: directory.appending(path: file)), as: UTF8.self)
            let found = Self.literals(in: source)
            keys.formUnion(found.keys)
            compared.formUnion(found.values)
        }
        // The C code reads at least the path's status and cost: an extraction that found nothing checked nothing.
        #expect(keys.isSuperset(of: ["status", "isExpensive", "isConstrained"]))
        #expect(keys.subtracting(fields).subtracting(Self.envelope).sorted() == [], "keys the definition lacks")
        #expect(compared.subtracting(values).sorted() == [], "values the definition lacks")
    }

    /// The extraction finds keys and values however the call is laid out, so a misspelling is caught.
    @Test func literalsAreFoundWhereverTheCallPutsThem() {
        let found = Self.literals(
            in: """
                JsonNode *portal = json_object_get_member (path, "captivePortl");
                if ((r = json_member_bool(document,
                                          object, "supportsIPv4", 0, &ipv4)) < 0)
                state->captive = g_strcmp0 (portal_state, "captve") == 0;
                [PATHMOND_INTERFACE_WIRED] = "wird",
                g_debug ("not a key: %s", "prose");
                """)
        #expect(found.keys == ["captivePortl", "supportsIPv4"])
        #expect(found.values == ["captve", "wird"])
    }
}
