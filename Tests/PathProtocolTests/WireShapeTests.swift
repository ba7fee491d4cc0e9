// SPDX-License-Identifier: Apache-2.0
import PathProtocol
import Testing

/// Each method's parameters and reply, as the Swift types read them, against docs/io.pathmond.varlink (the served
/// copy, which `InterfaceDefinitionTests` holds equal to the file): the same field names, the same optionality, the
/// same nesting, down to the last field. A field added to one side only, or optional on one side only, fails here
/// instead of in a client written from the definition.
@Suite struct WireShapeTests {
    @Test func everyMethodReadsWhatTheDefinitionDeclares() throws {
        let definitions = [
            VarlinkInterfaces.pathmond: try VarlinkDefinition(VarlinkInterfaces.pathmondDescription),
            VarlinkInterfaces.service: try VarlinkDefinition(VarlinkInterfaces.serviceDescription),
        ]
        var checked = 0
        for rule in Methods.all {
            let method = try #require(rule as? any ShapedMethod, "\(rule.name) is not a VarlinkMethod")
            let definition = try #require(definitions[rule.interface], "no definition of \(rule.interface)")
            let declared = try #require(definition.methods[rule.methodName], "\(rule.name) is not declared")
            let (parameters, reply) = try method.shapes()
            let problems =
                WireShapeComparison(definition).problems(
                    declared: .object(declared.input), read: parameters, at: "\(rule.name) parameters")
                + WireShapeComparison(definition).problems(
                    declared: .object(declared.output), read: reply, at: "\(rule.name) reply")
            #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
            checked += 1
        }
        #expect(checked == Methods.all.count && checked >= 14)
    }

    /// The comparison itself finds what differs: a renamed field, one optional on one side only, a missing one.
    @Test func theComparisonFindsEachKindOfDifference() throws {
        let definition = try VarlinkDefinition(
            """
            interface test.example
            type Inner (name: string, count: ?int)
            method M(inner: Inner, list: []string, maybe: ?bool) -> ()
            """)
        let compare = WireShapeComparison(definition)
        let declared = VarlinkDefinition.FieldType.object(try #require(definition.methods["M"]).input)
        let matching = WireShape.object([
            "inner": .init(
                isOptional: false,
                shape: .object([
                    "name": .init(isOptional: false, shape: .scalar), "count": .init(isOptional: true, shape: .scalar),
                ])),
            "list": .init(isOptional: false, shape: .array(.scalar)),
            "maybe": .init(isOptional: true, shape: .scalar),
        ])
        #expect(compare.problems(declared: declared, read: matching, at: "M").isEmpty)

        guard case .object(var fields) = matching else { return }
        fields["maybe"]?.isOptional = false
        #expect(
            compare.problems(declared: declared, read: .object(fields), at: "M") == [
                "M.maybe: optional in the definition only"
            ])
        fields["maybe"] = nil
        fields["extra"] = .init(isOptional: true, shape: .scalar)
        #expect(
            compare.problems(declared: declared, read: .object(fields), at: "M").sorted() == [
                "M.extra: read, not declared", "M.maybe: declared, not read",
            ])
        fields["extra"] = nil
        fields["maybe"] = .init(isOptional: true, shape: .scalar)
        fields["list"] = .init(isOptional: false, shape: .scalar)
        #expect(
            compare.problems(declared: declared, read: .object(fields), at: "M") == ["M.list: an array, read as scalar"]
        )
    }

    /// The recorder sees what a type's synthesized decoding asks for, optionals and nesting included.
    @Test func theRecorderSeesWhatATypeReads() throws {
        struct Leaf: Decodable {
            var text: String
            var number: UInt32?
        }
        struct Root: Decodable {
            var leaves: [Leaf]
            var flag: Bool?
            var names: [String]
        }
        let leaf = WireShape.object([
            "text": .init(isOptional: false, shape: .scalar), "number": .init(isOptional: true, shape: .scalar),
        ])
        #expect(
            try WireShape.of(Root.self)
                == .object([
                    "leaves": .init(isOptional: false, shape: .array(leaf)),
                    "flag": .init(isOptional: true, shape: .scalar),
                    "names": .init(isOptional: false, shape: .array(.scalar)),
                ]))
    }

    @Test func definitionsAreReadAsWritten() throws {
        let definition = try VarlinkDefinition(
            """
            # A comment (with: parentheses) -> and an arrow.
            interface test.example
            type Kind (a, b)
            type Thing (
              # Inside, too.
              kind: Kind,
              tags: ?[]string,
              table: [string]int,
              inline: (x: float, y: ?object)
            )
            method Get(id: int) -> (thing: Thing, more: ?bool)
            method Empty() -> ()
            error Failed (reason: string)
            """)
        typealias T = VarlinkDefinition.FieldType
        #expect(definition.types["Kind"] == .enumeration(["a", "b"]))
        #expect(
            definition.types["Thing"]
                == .object([
                    .init(name: "kind", type: .named("Kind")),
                    .init(name: "tags", type: .optional(.array(.primitive("string")))),
                    .init(name: "table", type: .map(.primitive("int"))),
                    .init(
                        name: "inline",
                        type: .object([
                            .init(name: "x", type: .primitive("float")),
                            .init(name: "y", type: .optional(.primitive("object"))),
                        ])),
                ]))
        #expect(
            definition.methods["Get"]
                == .init(
                    input: [.init(name: "id", type: .primitive("int"))],
                    output: [
                        .init(name: "thing", type: .named("Thing")),
                        .init(name: "more", type: .optional(.primitive("bool"))),
                    ]))
        #expect(definition.methods["Empty"] == .init(input: [], output: []))
        #expect(definition.errors["Failed"] == [.init(name: "reason", type: .primitive("string"))])
    }

    @Test(arguments: [
        "type (a)", "type Thing (a: )", "method M(a: int) (b: int)", "type Thing (a, b: int)", "nonsense", "type T (a",
    ])
    func malformedDefinitionsAreRefused(text: String) {
        #expect(throws: VarlinkDefinition.SyntaxError.self) { try VarlinkDefinition(text) }
    }
}

/// A method-table entry whose Swift types can be recorded.
protocol ShapedMethod {
    func shapes() throws -> (parameters: WireShape, reply: WireShape)
}

extension VarlinkMethod: ShapedMethod {
    func shapes() throws -> (parameters: WireShape, reply: WireShape) {
        (try WireShape.of(Parameters.self), try WireShape.of(Reply.self))
    }
}

/// What differs between a declared type and what a Swift type reads, one line per difference.
struct WireShapeComparison {
    let definition: VarlinkDefinition

    init(_ definition: VarlinkDefinition) { self.definition = definition }

    func problems(declared: VarlinkDefinition.FieldType, read: WireShape, at place: String) -> [String] {
        switch declared {
        case .optional(let inner):
            return problems(declared: inner, read: read, at: place)
        case .named(let name):
            guard let type = definition.types[name] else { return ["\(place): \(name) is not declared"] }
            return problems(declared: type, read: read, at: place)
        case .array(let element):
            guard case .array(let readElement) = read else { return ["\(place): an array, read as \(read)"] }
            return problems(declared: element, read: readElement, at: "\(place)[]")
        case .primitive("object"), .map:
            return []  // Any object: nothing to hold it to.
        case .primitive, .enumeration:
            return read == .scalar ? [] : ["\(place): a scalar, read as \(read)"]
        case .object(let fields):
            let readFields: [String: WireShape.Field]
            switch read {
            case .object(let read): readFields = read
            case .nothing: readFields = [:]  // A type that reads no field: `()` declares none.
            default: return ["\(place): an object, read as \(read)"]
            }
            var found: [String] = []
            for field in fields {
                guard let readField = readFields[field.name] else {
                    found.append("\(place).\(field.name): declared, not read")
                    continue
                }
                let declaredOptional: Bool
                if case .optional = field.type { declaredOptional = true } else { declaredOptional = false }
                if declaredOptional != readField.isOptional {
                    found.append(
                        "\(place).\(field.name): optional in the \(declaredOptional ? "definition" : "code") only")
                }
                found += problems(declared: field.type, read: readField.shape, at: "\(place).\(field.name)")
            }
            for name in readFields.keys where !fields.contains(where: { $0.name == name }) {
                found.append("\(place).\(name): read, not declared")
            }
            return found
        }
    }
}
