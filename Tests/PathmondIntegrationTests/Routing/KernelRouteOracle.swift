// SPDX-License-Identifier: Apache-2.0
import Foundation
import PathModel
import PathMonitor

/// What the kernel says about traffic to the internet, asked the way a user would (`ip route get`), and what
/// pathmond says, for comparing the two.
struct KernelRouteOracle {
    let namespace: NetworkNamespace
    let socketPath: String

    /// The internet's probes as documented (docs/routing.md), written out rather than read from pathmond's own
    /// table: read from it, the oracle agreed with a first IPv6 probe a byte short (issue 40).
    static func destinations(_ family: AddressFamily) -> [String] {
        family == .ipv4
            ? ["1.1.1.1", "9.9.9.9", "149.112.112.112", "208.67.222.222"]
            : ["2606:4700:4700::1111", "2001:4860:4860::8888", "2620:fe::fe", "2a00:1450:4001::1"]
    }

    /// The interface the kernel's next packet to the internet leaves by, if that interface can carry it: for each
    /// probe, `ip route get` names it and it is up and running (operstate up or unknown) with a global,
    /// non-tentative address of the family (pathmond's documented readiness); nil when the kernel has no route, a
    /// blocking one, or one out of an interface that cannot carry the packet. The outcome most probes give, a tie
    /// going to the earliest probe's (docs/routing.md).
    func kernelInterface(_ family: AddressFamily) throws -> String? {
        var outcomes: [(device: String?, votes: Int)] = []
        var carries: [String: Bool] = [:]
        for destination in Self.destinations(family) {
            var device = try routeDevice(family, destination)
            // A source-specific IPv6 default routes only a packet with its source: connect() picks one first.
            if device == nil && family == .ipv6 {
                for source in try usableSources(.ipv6) where device == nil {
                    device = try routeDevice(family, destination, from: source)
                }
            }
            let outcome = try device.flatMap { device in
                try carries[device] ?? canCarry(device, family: family) ? device : nil
            }
            if let device { carries[device] = outcome != nil }
            if let position = outcomes.firstIndex(where: { $0.device == outcome }) {
                outcomes[position].votes += 1
            } else {
                outcomes.append((outcome, 1))
            }
        }
        return outcomes.max { $0.votes < $1.votes }?.device ?? nil
    }

    /// The global addresses of the family that the kernel may pick as a source (past DAD, or optimistic), in
    /// pathmond's order.
    func usableSources(_ family: AddressFamily) throws -> [String] {
        let result = try runCommand(["ip", "-n", namespace.name, "-j", "address", "show", "scope", "global"])
        let links = try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [[String: Any]] ?? []
        let name = family == .ipv4 ? "inet" : "inet6"
        var sources: [IPAddress] = []
        for link in links {
            for address in link["addr_info"] as? [[String: Any]] ?? [] {
                guard address["family"] as? String == name, address["dadfailed"] == nil else { continue }
                guard address["tentative"] == nil || address["optimistic"] != nil else { continue }
                if let local = address["local"] as? String, let ip = IPAddress(local) { sources.append(ip) }
            }
        }
        return sources.sorted().map { "\($0)" }
    }

    /// The device `ip route get DESTINATION uid 0 [from SOURCE]` names (root's routing, as pathmond's system path
    /// is), nil when the kernel routes the packet nowhere.
    func routeDevice(_ family: AddressFamily, _ destination: String, from source: String? = nil) throws -> String? {
        let flag = family == .ipv4 ? "-4" : "-6"
        let answer = try runCommand(
            ["ip", "-n", namespace.name, flag, "route", "get", destination, "uid", "0"]
                + (source.map { ["from", $0] } ?? []),
            check: false)
        guard answer.status == 0 else { return nil }
        let words = answer.output.split(whereSeparator: \.isWhitespace).map(String.init)
        guard let position = words.firstIndex(of: "dev"), position + 1 < words.count else { return nil }
        return words[position + 1]
    }

    /// pathmond's first interface for the family (GetPath with the family required), nil when unsatisfied.
    func pathmondInterface(_ family: AddressFamily) throws -> String? {
        let connection = try PathmondConnection(socketPath: socketPath)
        defer { connection.close() }
        let path = try connection.path(parameters: PathParameters(family: family == .ipv4 ? .ipv4 : .ipv6))
        return path.status == .satisfied ? path.availableInterfaces.first?.name : nil
    }

    /// Up and running (operstate up or unknown) with a global address of the family past DAD, or optimistic (the
    /// kernel uses it during DAD): one `ip -j`.
    private func canCarry(_ device: String, family: AddressFamily) throws -> Bool {
        let result = try runCommand(["ip", "-n", namespace.name, "-j", "address", "show", "dev", device], check: false)
        guard result.status == 0,
            let links = try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [[String: Any]],
            let link = links.first
        else { return false }
        let flags = link["flags"] as? [String] ?? []
        let state = link["operstate"] as? String ?? ""
        guard flags.contains("UP") && (state == "UP" || state == "UNKNOWN") else { return false }
        let addresses = link["addr_info"] as? [[String: Any]] ?? []
        return addresses.contains { address in
            address["family"] as? String == (family == .ipv4 ? "inet" : "inet6")
                && address["scope"] as? String == "global"
                && (address["tentative"] == nil || address["optimistic"] != nil)
                && address["dadfailed"] == nil
        }
    }

    /// Waits until pathmond agrees with the kernel for both families, or the deadline passes: the kernel's
    /// interfaces when they agree, else the last disagreement.
    func agreement(within timeout: Duration = .seconds(5)) async throws -> Result<
        [AddressFamily: String], Disagreement
    > {
        let deadline = ContinuousClock.now + timeout
        var last = Disagreement(description: "")
        repeat {
            var agreed: [AddressFamily: String] = [:]
            for family in AddressFamily.allCases {
                let kernel = try kernelInterface(family)
                let pathmond = try pathmondInterface(family)
                guard kernel == pathmond else {
                    last.description =
                        "\(family): kernel \(kernel ?? "unroutable"), pathmond \(pathmond ?? "unsatisfied")"
                    break
                }
                agreed[family] = kernel
            }
            if last.description.isEmpty { return .success(agreed) }
            if ContinuousClock.now >= deadline { break }
            last.description = ""
            try await Task.sleep(for: .milliseconds(20))
        } while true
        return .failure(last)
    }
}

struct Disagreement: Error {
    var description: String
}
