// SPDX-License-Identifier: Apache-2.0
import PathProtocol
import Testing

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The method table against the published interface descriptions (docs/io.pathmond.varlink, and the
/// org.varlink.service one the daemon serves): the same methods, the same use of "more", errors the interfaces
/// declare, and every declared error used.
@Suite struct MethodTableTests {
    /// What a minimal reading of a Varlink interface description finds: its name, and each method's and error's
    /// name with the comment block just above it.
    struct Description {
        var interface = ""
        var methods: [String: String] = [:]
        var errors: Set<String> = []

        /// Reads the declarations: `interface NAME`, `method NAME(` and `error NAME` at the start of a line (a
        /// declaration may go on over several lines; only its first is read). A comment block is the run of `#`
        /// lines right above a declaration.
        init(_ text: String) throws {
            var comment: [String] = []
            for rawLine in text.split(separator: "\n", omittingEmptySubsequences: false) {
                let line = rawLine.drop { $0 == " " }
                if line.hasPrefix("#") {
                    comment.append(String(line.dropFirst()))
                    continue
                }
                defer { comment = [] }
                let words = line.split(separator: " ", maxSplits: 1).map(String.init)
                guard words.count == 2 else { continue }
                let name = String(words[1].prefix { $0.isLetter || $0.isNumber || $0 == "." || $0 == "_" })
                switch words[0] {
                case "interface": interface = name
                case "method":
                    #expect(methods[name] == nil, "method \(name) declared twice")
                    #expect(words[1].dropFirst(name.count).hasPrefix("("), "method \(name) without parameters")
                    methods[name] = comment.joined(separator: "\n")
                case "error": errors.insert(name)
                default: continue
                }
            }
            #expect(!interface.isEmpty, "no interface declaration")
        }
    }

    static func documented() throws -> [Description] {
        let root = URL(filePath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let text = try String(
            decoding: Data(contentsOf: root.appending(path: "docs/io.pathmond.varlink")), as: UTF8.self)
        return [try Description(text), try Description(VarlinkInterfaces.serviceDescription)]
    }

    @Test func theParserReadsDeclarations() throws {
        let description = try Description(
            """
            interface com.example.test
            # Streams; call with "more".
            method Watch(a: ?int) -> (b: string)
            method Multi(
              a: int
            ) -> ()
            error Broken (reason: string)
            """)
        #expect(description.interface == "com.example.test")
        #expect(description.methods == ["Watch": #" Streams; call with "more"."#, "Multi": ""])
        #expect(description.errors == ["Broken"])
    }

    @Test func everyDocumentedMethodIsInTheTableAndNoOther() throws {
        let documented = try Self.documented().flatMap { description in
            description.methods.keys.map { "\(description.interface).\($0)" }
        }
        #expect(documented.count == Set(documented).count)
        #expect(Set(documented) == Set(Methods.all.map(\.name)))
        #expect(Methods.all.count == Set(Methods.all.map(\.name)).count, "a method twice in the table")
        for method in Methods.all {
            #expect(Methods.named(method.name)?.name == method.name)
        }
        #expect(Methods.named("io.pathmond.Teleport") == nil)
    }

    /// Varlink's IDL has no syntax for "more"; pathmond's descriptions say it in the method's comment: a method
    /// that streams mentions "more", one that requires it says `call with "more"` and does not say what happens
    /// `Without "more"`, and a method whose comment never mentions "more" answers once.
    @Test func moreIsUsedAsTheCommentsSay() throws {
        for description in try Self.documented() {
            for (name, comment) in description.methods {
                let fullName = "\(description.interface).\(name)"
                guard let method = Methods.named(fullName) else { continue }
                let mentionsMore = comment.contains("\"more\"")
                let requiresMore = comment.contains("call with \"more\"") && !comment.contains("Without \"more\"")
                #expect(mentionsMore == (method.streaming != .never), "\(fullName): \(method.streaming)")
                #expect(requiresMore == (method.streaming == .required), "\(fullName): \(method.streaming)")
            }
        }
    }

    /// Varlink lets a client call any method "oneway", and the IDL cannot forbid it: neither may the table.
    @Test func everyMethodAcceptsOneway() {
        for method in Methods.all {
            #expect(method.acceptsOneway, "\(method.name)")
        }
    }

    @Test func everyErrorIsDeclaredByItsInterfaceAndEveryDeclaredErrorIsUsed() throws {
        let declared = Set(
            try Self.documented().flatMap { description in
                description.errors.map { "\(description.interface).\($0)" }
            })
        var used = Set(Methods.connectionErrors.map(\.rawValue))
        for method in Methods.all {
            #expect(Set(method.errors).count == method.errors.count, "\(method.name) lists an error twice")
            used.formUnion(method.errors.map(\.rawValue))
        }
        #expect(used.subtracting(declared).isEmpty, "not declared: \(used.subtracting(declared).sorted())")
        let pathmondDeclared = declared.filter { $0.hasPrefix(VarlinkInterfaces.pathmond + ".") }
        #expect(pathmondDeclared.subtracting(used).isEmpty, "never used: \(pathmondDeclared.subtracting(used))")
        // Every io.pathmond error this library knows is one a method or a connection may get (org.varlink.service's
        // PermissionDenied is known for reading other servers' replies; pathmond sends its own).
        let known = Set(VarlinkError.Kind.allCases.map(\.rawValue).filter { $0.hasPrefix(VarlinkInterfaces.pathmond) })
        #expect(known.subtracting(used).isEmpty, "never used: \(known.subtracting(used))")
    }

    /// GetHistory's first reply is cut to fit; every reply fits what the client library reads.
    @Test func limitsAreWithinWhatTheCodecReads() {
        for method in Methods.all {
            #expect(method.maximumCallSize <= VarlinkCodec.maximumMessageSize, "\(method.name)")
            #expect(method.maximumReplySize <= VarlinkCodec.maximumReplySize, "\(method.name)")
            #expect(method.maximumCallSize > 0 && method.maximumReplySize > 0, "\(method.name)")
        }
    }
}
