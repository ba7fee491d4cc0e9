// SPDX-License-Identifier: Apache-2.0
import PathModel

// The raw values a history entry carries, as the JSON string literals the history writer copies: constant bytes,
// not a String made and measured per entry. A test holds each to `"\(rawValue)"` for every case.

extension PathStatus {
    var quotedName: StaticString {
        switch self {
        case .satisfied: "\"satisfied\""
        case .unsatisfied: "\"unsatisfied\""
        }
    }
}

extension UnsatisfiedReason {
    var quotedName: StaticString {
        switch self {
        case .noInterfaces: "\"noInterfaces\""
        case .interfacesDown: "\"interfacesDown\""
        case .noCarrier: "\"noCarrier\""
        case .noAddress: "\"noAddress\""
        case .noDefaultRoute: "\"noDefaultRoute\""
        case .onlyProhibitedInterfaces: "\"onlyProhibitedInterfaces\""
        case .familyUnavailable: "\"familyUnavailable\""
        case .onlyExpensiveInterfaces: "\"onlyExpensiveInterfaces\""
        case .onlyConstrainedInterfaces: "\"onlyConstrainedInterfaces\""
        case .onlyRoamingInterfaces: "\"onlyRoamingInterfaces\""
        }
    }
}

extension PathChangeCause.Kind {
    var quotedName: StaticString {
        switch self {
        case .kernel: "\"kernel\""
        case .resync: "\"resync\""
        case .policy: "\"policy\""
        case .detection: "\"detection\""
        case .resolver: "\"resolver\""
        case .configuration: "\"configuration\""
        case .unspecified: "\"unspecified\""
        }
    }
}

extension PathChangeCause.Detection {
    var quotedName: StaticString {
        switch self {
        case .dhcpMetered: "\"dhcpMetered\""
        case .networkManagerMetered: "\"networkManagerMetered\""
        case .cellular: "\"cellular\""
        case .wifi: "\"wifi\""
        case .identityForgotten: "\"identityForgotten\""
        case .captivePortal: "\"captivePortal\""
        case .linkQuality: "\"linkQuality\""
        case .dataLimit: "\"dataLimit\""
        }
    }
}

extension PathChangeCause.KernelTable {
    var quotedName: StaticString {
        switch self {
        case .link: "\"link\""
        case .address: "\"address\""
        case .route: "\"route\""
        case .rule: "\"rule\""
        case .neighbour: "\"neighbour\""
        }
    }
}
