// SPDX-License-Identifier: Apache-2.0
import Testing

@testable import PathModel

/// Seeded random kernel event sequences. After every batch: the incremental state equals the state rebuilt from
/// its own snapshot and the independent reference kernel; the tracker's interfaces (derived only where the batch
/// touched them) equal the evaluator's from scratch, its path equals the evaluator run from scratch
/// and the reference path; and the tracker reported exactly when the path changed.
@Suite struct OracleTests {
    static let seeds: [UInt64] = [1, 2, 3, 7, 42, 1_234_567, 0xDEAD_BEEF, 20_250_101]
    static let steps = 400

    static let classifiers: [Classifier] = [
        Classifier(),
        Classifier(overrides: [
            InterfaceOverride(pattern: "veth*", kind: .cellular),
            InterfaceOverride(pattern: "wlan0", isExpensive: true),
            InterfaceOverride(pattern: "*-renamed", kind: .wifi, isExpensive: false),
        ]),
    ]

    @Test func theGeneratorIsSplitMix64() {
        // Reference outputs of SplitMix64 for seed 1234567 (Vigna's splitmix64.c).
        var random = SplitMix64(seed: 1_234_567)
        #expect(
            (0..<3).map { _ in random.next() } == [
                6_457_827_717_110_365_317, 3_203_168_211_198_807_973, 9_817_491_932_198_370_423,
            ])
    }

    // This test found two model bugs, both fixed: an IPv6 NLM_F_REPLACE must evict the route in the same slot,
    // and an override pattern such as "*-renamed" must not turn a loopback link ("lo-renamed") into Wi-Fi.
    @Test(arguments: seeds, classifiers.indices)
    func incrementalEqualsFromScratch(_ seed: UInt64, _ classifierIndex: Int) {
        let evaluator = PathEvaluator(classifier: Self.classifiers[classifierIndex])
        var generator = RandomKernel(random: SplitMix64(seed: seed))
        var tracker = PathTracker(evaluator: evaluator)
        var reference = ReferenceKernel()
        var seen = Set<String>()
        for step in 1...Self.steps {
            let batch = (0...generator.random.below(3)).map { _ in generator.event(after: tracker.state) }
            let previous = tracker.path
            let reported = tracker.apply(batch)
            for event in batch { reference.apply(event) }
            let context = "seed \(seed), classifier \(classifierIndex), step \(step), batch \(batch)"
            let state = tracker.state
            let expected = reference.path(classifier: evaluator.classifier)
            guard
                check(KernelState(state.snapshot) == state, "state differs from its own snapshot", context),
                check(Set(state.links.values) == Set(reference.links.values), "links differ from reference", context),
                check(Set(state.addresses) == Set(reference.addresses), "addresses differ from reference", context),
                check(state.routes == Set(reference.routes), "routes differ from reference", context),
                // The routes by interface are an index, which the state's equality leaves out: held to the routes.
                check(Self.indexHoldsTheRoutes(state), "the routes by interface differ from the routes", context),
                check(
                    tracker.interfaces == evaluator.interfaces(in: KernelState(state.snapshot)),
                    "interfaces differ from scratch", context),
                check(
                    tracker.path == evaluator.path(in: KernelState(state.snapshot)), "path differs from scratch",
                    context),
                check(tracker.path == expected, "path \(tracker.path) differs from reference \(expected)", context),
                check(
                    reported == (tracker.path == previous ? nil : tracker.path), "report differs from change", context)
            else { return }
            seen.insert(tracker.path.unsatisfiedReason?.rawValue ?? "satisfied")
        }
        // The sequence must reach every outcome, or the comparisons above proved little.
        #expect(seen.count >= 5, "seed \(seed) reached only \(seen.sorted())")
    }

    /// Whether each interface's routes, as the state indexes them, are exactly the routes out of it, each once.
    static func indexHoldsTheRoutes(_ state: KernelState) -> Bool {
        let indexes = Set(state.routes.map(\.interfaceIndex)).union(state.links.keys).union(-1...40)
        return indexes.allSatisfy { index in
            let indexed = state.routes(through: index)
            return indexed.count == Set(indexed).count
                && Set(indexed) == state.routes.filter { $0.interfaceIndex == index }
        }
    }

    /// Records the first divergence with its context and stops the run, instead of one issue per later step.
    private func check(_ condition: Bool, _ what: String, _ context: String) -> Bool {
        if !condition { Issue.record("\(what): \(context)") }
        return condition
    }
}
