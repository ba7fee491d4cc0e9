// SPDX-License-Identifier: Apache-2.0
import Logging
import PathModel
import PathProtocol
import PolicyStore
import SDEvent
import Testing

@testable import pathmond

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The daemon's dispatch by the method table, on the real router, hub and policy controller (no socket): every
/// method of the table is served, a call is held to its entry's rules, and the errors a method gives are the
/// ones its entry lists.
@Suite(.serialized) struct CallRouterTests {
    final class Fixture {
        let directory: URL
        let router: CallRouter

        init() throws {
            directory = FileManager.default.temporaryDirectory.appending(path: "pathmond-router-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let logger = Logger(label: "test")
            let hub = PathHub(evaluator: PathEvaluator(), logger: logger)
            let store = PolicyStore(stateDirectory: directory.path)
            let policy = PolicyController(
                hub: hub, store: store, authorizer: Authorizer(adminGroup: nil), policyFile: store.path,
                loadProblem: nil, loop: try SDEventLoop(), hubLoop: try SDEventLoop(), logger: logger)
            router = CallRouter(hub: hub, policy: policy, version: "test")
        }

        deinit { try? FileManager.default.removeItem(at: directory) }

        func handle(_ call: String) -> CallOutcome {
            router.handle(Array(call.utf8), from: PeerCredentials(processID: 1, userID: 0, groupID: 0))
        }
    }

    /// The error a reply carries, if it is one.
    static func errorName(_ outcome: CallOutcome) -> String? {
        guard case .reply(let bytes) = outcome, bytes.last == 0 else { return nil }
        return try? VarlinkCodec().decode(VarlinkReplyHeader.self, from: Array(bytes.dropLast())).error
    }

    static func call(_ method: String, _ parameters: String? = nil, more: Bool = false) -> String {
        var call = #"{"method":"\#(method)""#
        if let parameters { call += #","parameters":\#(parameters)"# }
        if more { call += #","more":true"# }
        return call + "}"
    }

    @Test func everyMethodOfTheTableIsServed() throws {
        let fixture = try Fixture()
        for method in Methods.all {
            let error = Self.errorName(fixture.handle(Self.call(method.name, "{}", more: true)))
            #expect(error != VarlinkError.Kind.methodNotFound.rawValue, "\(method.name)")
            #expect(error != VarlinkError.Kind.interfaceNotFound.rawValue, "\(method.name)")
        }
        #expect(
            Self.errorName(fixture.handle(Self.call("io.pathmond.Teleport"))) == "org.varlink.service.MethodNotFound")
        #expect(
            Self.errorName(fixture.handle(Self.call("com.example.Nope"))) == "org.varlink.service.InterfaceNotFound")
    }

    /// Calls that are wrong in every way a table entry can tell: each error must be one its entry (or any
    /// connection) may get.
    @Test func errorsAreTheOnesTheEntryLists() throws {
        let fixture = try Fixture()
        let badParameters = [
            nil, "{}", "5", "[]", #"{"requirements":{"family":"ipv7"}}"#, #"{"requirements":5}"#,
            #"{"flow":{"interface":"eth0","localAddress":"nope"}}"#, #"{"flow":5}"#, #"{"interface":5}"#,
            #"{"interface":"com.example.Nope"}"#, #"{"since":"yesterday"}"#, #"{"key":5}"#,
            #"{"interface":"eth0","key":"wifi:x","constrained":true}"#, #"{"constrained":"yes"}"#,
            #"{"name":"\u0007"}"#,
        ]
        var seen: Set<String> = []
        for method in Methods.all {
            let allowed = Set((method.errors + Methods.connectionErrors).map(\.rawValue))
            for parameters in badParameters {
                for more in [false, true] {
                    let outcome = fixture.handle(Self.call(method.name, parameters, more: more))
                    guard let error = Self.errorName(outcome) else { continue }
                    seen.insert(error)
                    #expect(allowed.contains(error), "\(method.name) \(parameters ?? "-"): \(error)")
                }
            }
        }
        // The calls above do reach the errors that matter.
        #expect(seen.isSuperset(of: ["org.varlink.service.InvalidParameter", "org.varlink.service.ExpectedMore"]))
    }

    @Test func moreOnewayAndUpgradeFollowTheTable() throws {
        let fixture = try Fixture()
        let flow = #"{"flow":{"interface":"eth0","localAddress":"192.0.2.10"}}"#
        #expect(
            Self.errorName(fixture.handle(Self.call("io.pathmond.WatchFlow", flow)))
                == "org.varlink.service.ExpectedMore")
        guard case .startWatching(.flow) = fixture.handle(Self.call("io.pathmond.WatchFlow", flow, more: true)) else {
            Issue.record("WatchFlow with more does not stream")
            return
        }
        guard case .startWatching(.path) = fixture.handle(Self.call("io.pathmond.WatchPath", "{}", more: true)) else {
            Issue.record("WatchPath with more does not stream")
            return
        }
        // Without "more", WatchPath answers once, as GetPath; GetPath answers once even with it.
        #expect(Self.errorName(fixture.handle(Self.call("io.pathmond.WatchPath"))) == nil)
        guard case .reply = fixture.handle(Self.call("io.pathmond.GetPath", more: true)) else {
            Issue.record("GetPath with more does not answer once")
            return
        }
        guard case .noReply = fixture.handle(#"{"method":"io.pathmond.GetPath","oneway":true}"#) else {
            Issue.record("a oneway GetPath is answered")
            return
        }
        let upgrade = fixture.handle(#"{"method":"io.pathmond.GetStatus","upgrade":true}"#)
        #expect(Self.errorName(upgrade) == "org.varlink.service.InvalidParameter")
    }
}
