// SPDX-License-Identifier: Apache-2.0
import Testing

@testable import pathmond

/// The daemon's parts put in order from what each needs: what is needed first, stopped in reverse, and each
/// mistake in the declarations (a cycle, a need the daemon lacks, a part asked for without being named, a part
/// listed twice) a typed error before anything is built.
@Suite struct ServiceGraphTests {
    private func names(_ parts: [any DaemonService.Type]) throws -> [String] {
        try ServiceGraph.startOrder(parts).map { "\($0)" }
    }

    @Test func whatIsNeededStartsFirstWhateverTheListedOrder() throws {
        // Top needs Middle and Base; Middle needs Base; Loose needs nothing and keeps its listed place.
        #expect(try names([Top.self, Loose.self, Middle.self, Base.self]) == ["Base", "Middle", "Top", "Loose"])
        #expect(try names([Base.self, Middle.self, Top.self, Loose.self]) == ["Base", "Middle", "Top", "Loose"])
        #expect(try names([Loose.self, Middle.self, Top.self, Base.self]) == ["Loose", "Base", "Middle", "Top"])
    }

    @Test func aCycleIsNamedWithItsPath() {
        #expect(throws: ServiceGraphError.cycle(["CycleA", "CycleB", "CycleC", "CycleA"])) {
            try ServiceGraph.startOrder([Base.self, CycleA.self, CycleB.self, CycleC.self])
        }
        #expect(throws: ServiceGraphError.cycle(["NeedsItself", "NeedsItself"])) {
            try ServiceGraph.startOrder([NeedsItself.self])
        }
        #expect(
            ServiceGraphError.cycle(["CycleA", "CycleB", "CycleA"]).description
                == "the daemon's parts need each other in a cycle: CycleA → CycleB → CycleA")
    }

    @Test func aNeedTheDaemonLacksIsNamed() {
        #expect(throws: ServiceGraphError.missingNeed(part: "Middle", needs: "Base")) {
            try ServiceGraph.startOrder([Top.self, Middle.self])
        }
    }

    @Test func aPartListedTwiceIsRefused() {
        #expect(throws: ServiceGraphError.duplicate("Base")) {
            try ServiceGraph.startOrder([Base.self, Middle.self, Base.self])
        }
    }

    /// A part reaches only what it named: asking for another is an error even when that one is built.
    @Test func aPartGetsWhatItNamedAndNothingElse() throws {
        let log = Log()
        var built = BuiltServices()
        let base = Base(log)
        built.add(base)
        built.add(Loose(log))
        let forMiddle = built.visible(to: Middle.self)
        #expect(try forMiddle.get(Base.self) === base)
        #expect(throws: ServiceGraphError.undeclaredNeed(part: "Middle", asked: "Loose")) {
            try forMiddle.get(Loose.self)
        }
        // Top names Middle, which is not built: the graph never lets this happen, the look-up still says so.
        #expect(throws: ServiceGraphError.missingNeed(part: "Top", needs: "Middle")) {
            try built.visible(to: Top.self).get(Middle.self)
        }
    }

    @Test func startsInOrderAndStopsInReverse() throws {
        let log = Log()
        let services: [any DaemonService] = [Base(log), Middle(log), Top(log)]
        try Daemon.start(services)
        Daemon.stop(services)
        #expect(log.lines == ["start Base", "start Middle", "start Top", "stop Top", "stop Middle", "stop Base"])
    }

    /// A part that cannot start stops the ones started before it, newest first; the later ones never start.
    @Test func aFailedStartStopsWhatStartedBeforeIt() {
        let log = Log()
        let services: [any DaemonService] = [Base(log), Middle(log), Failing(log), Top(log)]
        #expect(throws: FakeError.refused) { try Daemon.start(services) }
        #expect(log.lines == ["start Base", "start Middle", "start Failing", "stop Middle", "stop Base"])
    }

    /// The daemon's own parts: each after what it needs, and the server, which nothing needs, last.
    @Test func theDaemonsPartsAreInOrder() throws {
        let order = try ServiceGraph.startOrder(Daemon.parts).map(ServiceKey.init)
        #expect(order.count == Daemon.parts.count)
        for (index, part) in try ServiceGraph.startOrder(Daemon.parts).enumerated() {
            for need in part.needs {
                let position = try #require(order.firstIndex(of: ServiceKey(need)))
                #expect(position < index, "\(part) starts before \(need), which it needs")
            }
        }
        #expect(order.first == ServiceKey(StateFileService.self) && order.last == ServiceKey(Serving.self))
    }
}

private final class Log {
    var lines: [String] = []
}

private enum FakeError: Error { case refused, notBuilt }

/// A part that records its start and stop; `make` is never called here (the tests build them by hand).
private class Recording {
    let log: Log
    init(_ log: Log) { self.log = log }
    func start() throws { log.lines.append("start \(type(of: self))") }
    func stop() { log.lines.append("stop \(type(of: self))") }
}

private final class Base: Recording, DaemonService {
    static var needs: [any DaemonService.Type] { [] }
    static func make(_ parts: ServiceParts) throws -> Base { throw FakeError.notBuilt }
}

private final class Middle: Recording, DaemonService {
    static var needs: [any DaemonService.Type] { [Base.self] }
    static func make(_ parts: ServiceParts) throws -> Middle { throw FakeError.notBuilt }
}

private final class Top: Recording, DaemonService {
    static var needs: [any DaemonService.Type] { [Middle.self, Base.self] }
    static func make(_ parts: ServiceParts) throws -> Top { throw FakeError.notBuilt }
}

private final class Loose: Recording, DaemonService {
    static var needs: [any DaemonService.Type] { [] }
    static func make(_ parts: ServiceParts) throws -> Loose { throw FakeError.notBuilt }
}

private final class Failing: Recording, DaemonService {
    static var needs: [any DaemonService.Type] { [Middle.self] }
    static func make(_ parts: ServiceParts) throws -> Failing { throw FakeError.notBuilt }
    override func start() throws {
        try super.start()
        throw FakeError.refused
    }
}

private final class CycleA: Recording, DaemonService {
    static var needs: [any DaemonService.Type] { [Base.self, CycleB.self] }
    static func make(_ parts: ServiceParts) throws -> CycleA { throw FakeError.notBuilt }
}

private final class CycleB: Recording, DaemonService {
    static var needs: [any DaemonService.Type] { [CycleC.self] }
    static func make(_ parts: ServiceParts) throws -> CycleB { throw FakeError.notBuilt }
}

private final class CycleC: Recording, DaemonService {
    static var needs: [any DaemonService.Type] { [CycleA.self] }
    static func make(_ parts: ServiceParts) throws -> CycleC { throw FakeError.notBuilt }
}

private final class NeedsItself: Recording, DaemonService {
    static var needs: [any DaemonService.Type] { [NeedsItself.self] }
    static func make(_ parts: ServiceParts) throws -> NeedsItself { throw FakeError.notBuilt }
}
