// SPDX-License-Identifier: Apache-2.0
import FuzzSupport
import PathModel
import PathProtocol
import Testing
import libpathmond

#if canImport(Glibc)
    import Glibc
#endif

/// Mutated replies through a real socket into pathmond_get_path: every one is a path or a clean refusal (never a
/// crash, a hang or another code), and what is accepted reads back through every accessor.
@Test func mutatedRepliesAreReadOrRefused() throws {
    var wide = Path(
        status: .satisfied,
        availableInterfaces: [
            PathInterface(index: 3, name: "wlan0", kind: .wifi, isExpensive: false, isConstrained: true),
            PathInterface(index: 9, name: "wwan0", kind: .cellular, isExpensive: true, isRoaming: true),
        ],
        isExpensive: true, isConstrained: true, supportsIPv4: true, supportsIPv6: true, supportsDNS: true,
        gateways: [IPAddress("192.0.2.1")!, IPAddress("2001:db8::1")!])  // valid literals
    wide.captivePortal = .open
    let seeds = [
        ReplyTests.reply(wide), ReplyTests.reply(Path(status: .unsatisfied, unsatisfiedReason: .noCarrier)),
        Array(#"{"error":"io.pathmond.LimitReached","parameters":{"reason":"connections"}}"#.utf8),
    ].map { $0.last == 0 ? Array($0.dropLast()) : $0 }
    let words = [
        "{", "}", "[", "]", ",", ":", "\"", "null", "true", "false", "-0", "1e999", "\\u0000", "\\ud800", "\\udc00",
        "\\u00e9", "\"continues\":true", "\"parameters\":", "\"path\":", "\"status\":", "\"satisfied\"",
        "\"availableInterfaces\":", "\"index\":", "2147483648", "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[",
    ]
    let mutator = Mutator(seeds: seeds, dictionary: words.map { Array($0.utf8) }, seed: 0x11B9_A7B0)
    var codes: [Int32: Int] = [:]
    let report = Fuzz.run("libpathmond-reply", count: 20_000, mutator: mutator) { input in
        guard let pair = try? SocketPair() else { return false }
        pathmond_client_set_timeout(pair.client, 1_000_000)
        pair.send(input + [0])
        var path: OpaquePointer?
        let r = pathmond_get_path(pair.client, nil, &path)
        codes[r, default: 0] += 1
        guard r == 0, let path else { return false }
        _ = Snapshot(path)
        pathmond_path_unref(path)
        return true
    }
    #expect(Set(codes.keys).isSubset(of: [0, -EBADMSG, -EREMOTEIO]), "\(codes)")
    #expect(report.accepted > 500 && report.accepted < report.count, "\(codes)")
    #expect(report.peakMemoryGrowthKiB < Fuzz.memoryBoundKiB)
}
