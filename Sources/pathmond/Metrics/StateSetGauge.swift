// SPDX-License-Identifier: Apache-2.0
import Prometheus

/// An enum as Prometheus wants it: one series per state, the state's name in a label, 1 for the current state and 0
/// for every other, all of them always present (node_exporter's `node_systemd_unit_state{state="active"}`). A query
/// then selects a state by name (`pathmond_path_status{status="unsatisfied"} == 1`), `sum by (status)` counts hosts
/// per state, and no number stands for a state a reader must look up.
///
/// The label values are the enum's raw values: the spelling pathctl, the journal and Varlink use.
struct StateSetGauge<State: CaseIterable & RawRepresentable & Equatable> where State.RawValue == String {
    private let gauges: [(state: State, gauge: Gauge)]

    /// One gauge per state of `State`, each with `labels` (an interface's, or none) and then `label` = the state.
    init(
        registry: PrometheusCollectorRegistry, descriptor: MetricNameDescriptor, label: String,
        labels: [(String, String)] = []
    ) {
        gauges = State.allCases.map { state in
            (state, registry.makeGauge(descriptor: descriptor, labels: labels + [(label, state.rawValue)]))
        }
    }

    /// 1 for `current`, 0 for the others.
    func set(_ current: State) {
        for (state, gauge) in gauges { gauge.set(Double(state == current ? 1 : 0)) }
    }

    /// Takes every state's series out of the registry (an interface that went away).
    func unregister(from registry: PrometheusCollectorRegistry) {
        for (_, gauge) in gauges { registry.unregisterGauge(gauge) }
    }
}
