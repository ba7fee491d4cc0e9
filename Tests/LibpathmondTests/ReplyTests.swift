// SPDX-License-Identifier: Apache-2.0
import Foundation
import PathModel
import PathProtocol
import Testing
import libpathmond

#if canImport(Glibc)
    import Glibc
#endif

/// libpathmond reading replies: the bytes the daemon's own encoder writes (VarlinkCodec over PathModel values), read
/// back through the C accessors, and bytes no pathmond would send, each refused with its error code.
@Suite struct ReplyTests {
    static let cellular = PathInterface(index: 7, name: "wwan0", kind: .cellular, isExpensive: true)
    static let wired = PathInterface(index: 2, name: "eth0", kind: .wired, isExpensive: false, isConstrained: true)

    static func reply(_ path: Path, continues: Bool = false) -> [UInt8] {
        VarlinkCodec().encodeReply(Methods.PathReply(path: WirePath(path)), continues: continues)
    }

    static let expensivePath: Path = {
        var path = Path(
            status: .satisfied, availableInterfaces: [cellular, wired], isExpensive: true, isConstrained: false,
            supportsIPv4: true, supportsIPv6: true, supportsDNS: true,
            gateways: [IPAddress("192.0.2.1")!, IPAddress("fe80::1")!], isRoaming: true)  // literals: valid addresses
        path.captivePortal = .captive
        return path
    }()

    func getPath(_ pair: SocketPair) -> (Int32, Snapshot?) {
        var path: OpaquePointer?
        let r = pathmond_get_path(pair.client, nil, &path)
        defer { pathmond_path_unref(path) }
        return (r, path.map(Snapshot.init))
    }

    @Test func aPathTheDaemonEncodesReadsBackThroughEveryAccessor() throws {
        let pair = try SocketPair()
        pair.send(Self.reply(Self.expensivePath))
        let (r, snapshot) = getPath(pair)
        #expect(r == 0)
        let path = try #require(snapshot)
        #expect(path.satisfied && path.reason == nil)
        #expect(path.expensive && !path.constrained && path.roaming && !path.ultraConstrained)
        #expect(path.ipv4 && path.ipv6 && path.dns)
        #expect(path.captivePortal == PATHMOND_CAPTIVE_PORTAL_CAPTIVE.rawValue)
        #expect(path.interfaces == ["wwan0", "eth0"])
        #expect(path.ifindexes == [7, 2])
        #expect(path.types == [PATHMOND_INTERFACE_CELLULAR.rawValue, PATHMOND_INTERFACE_WIRED.rawValue])
        #expect(path.interfaceExpensive == [true, false])
        #expect(path.gateways == ["192.0.2.1", "fe80::1"])
    }

    @Test(arguments: UnsatisfiedReason.allCases)
    func anUnsatisfiedPathSaysWhy(_ reason: UnsatisfiedReason) throws {
        let pair = try SocketPair()
        pair.send(Self.reply(Path(status: .unsatisfied, unsatisfiedReason: reason)))
        let (r, snapshot) = getPath(pair)
        #expect(r == 0)
        #expect(snapshot?.satisfied == false)
        #expect(snapshot?.reason == reason.rawValue)
    }

    /// The call on the wire decodes, with the daemon's own decoder, to the requirements the setters gave.
    @Test func theCallCarriesTheRequirements() throws {
        let pair = try SocketPair()
        var requirements: OpaquePointer?
        #expect(pathmond_requirements_new(&requirements) == 0)
        defer { pathmond_requirements_free(requirements) }
        #expect(pathmond_requirements_set_required_interface_type(requirements, 2) == 0)
        #expect(pathmond_requirements_prohibit_interface_type(requirements, PATHMOND_INTERFACE_CELLULAR) == 0)
        #expect(pathmond_requirements_prohibit_interface_type(requirements, PATHMOND_INTERFACE_OTHER) == 0)
        #expect(pathmond_requirements_set_required_interface(requirements, "wl\"an\u{1}0") == 0)
        #expect(pathmond_requirements_set_prohibit_expensive(requirements, 1) == 0)
        #expect(pathmond_requirements_set_prohibit_constrained(requirements, 1) == 0)
        #expect(pathmond_requirements_set_family(requirements, PATHMOND_FAMILY_IPV6) == 0)
        #expect(pathmond_requirements_set_allow_ultra_constrained(requirements, 1) == 0)
        #expect(pathmond_requirements_set_prohibit_roaming(requirements, 1) == 0)
        #expect(pathmond_requirements_set_system_routing(requirements, 1) == 0)
        pair.send(Self.reply(Path(status: .unsatisfied)))
        var path: OpaquePointer?
        #expect(pathmond_get_path(pair.client, requirements, &path) == 0)
        pathmond_path_unref(path)

        let call = try VarlinkCodec().decode(
            VarlinkCallWithParameters<Methods.PathParameters>.self, from: pair.receiveCall())
        #expect(call.method == "io.pathmond.GetPath")
        let wire = try #require(call.parameters?.requirements)
        #expect(wire.requiredInterfaceType == "wifi")
        #expect(wire.prohibitedInterfaceTypes == ["other", "cellular"])
        #expect(wire.requiredInterface == "wl\"an\u{1}0")
        #expect(wire.prohibitExpensive == true && wire.prohibitConstrained == true && wire.prohibitRoaming == true)
        #expect(wire.family == "ipv6" && wire.allowUltraConstrained == true && wire.systemRouting == true)
        let parameters = try wire.parameters()
        #expect(
            parameters.requiredInterfaceKind == .wifi && parameters.prohibitedInterfaceKinds == [.cellular, .other])
    }

    @Test func badArgumentsAreRefused() throws {
        var requirements: OpaquePointer?
        #expect(pathmond_requirements_new(&requirements) == 0)
        defer { pathmond_requirements_free(requirements) }
        #expect(pathmond_requirements_set_required_interface_type(requirements, 99) == -EINVAL)
        #expect(pathmond_requirements_set_family(requirements, pathmond_family(5)) == -EINVAL)
        #expect(pathmond_requirements_set_required_interface(requirements, "\u{FF}") == 0)
        let invalid: [CChar] = [CChar(bitPattern: 0xFF), 0]
        #expect(pathmond_requirements_set_required_interface(requirements, invalid) == -EINVAL)
        #expect(pathmond_get_path(nil, nil, nil) == -EINVAL)
        #expect(pathmond_client_process(nil) == -EINVAL)
        #expect(pathmond_connect_to("", nil) == -EINVAL)
        #expect(pathmond_connect_to(String(repeating: "x", count: 200), nil) == -EINVAL)
        var client: OpaquePointer?
        #expect(pathmond_connect_to("/nonexistent/pathmond", &client) == -ENOENT)
        #expect(client == nil)
        #expect(pathmond_path_check(nil, 0) == -EINVAL)
    }

    /// Replies no pathmond sends: each one fails the call with a code, and finishes the client.
    static let malformed: [(String, [UInt8])] = [
        ("empty", [0]),
        ("garbage", Array("this is not json at all \u{FF}".utf8) + [0xFF, 0xFE, 0]),
        ("not an object", Array("[1, 2, 3]\0".utf8)),
        ("a number", Array("42\0".utf8)),
        ("null", Array("null\0".utf8)),
        ("trailing text", Array(#"{"parameters":{"path":{"status":"satisfied"}}} x"#.utf8) + [0]),
        ("trailing comma", Array(#"{"parameters":{"path":{"status":"satisfied",}}}"#.utf8) + [0]),
        ("wrong types", Array(#"{"parameters":{"path":{"status":1,"isExpensive":"yes"}}}"#.utf8) + [0]),
        ("unknown status", Array(#"{"parameters":{"path":{"status":"maybe"}}}"#.utf8) + [0]),
        ("no path", Array(#"{"parameters":{}}"#.utf8) + [0]),
        ("path not an object", Array(#"{"parameters":{"path":[true]}}"#.utf8) + [0]),
        (
            "interface without name",
            Array(#"{"parameters":{"path":{"status":"satisfied","availableInterfaces":[{}]}}}"#.utf8) + [0]
        ),
        (
            "interfaces not an array",
            Array(#"{"parameters":{"path":{"status":"satisfied","availableInterfaces":{}}}}"#.utf8) + [0]
        ),
        (
            "index not whole",
            Array(
                #"{"parameters":{"path":{"status":"satisfied","availableInterfaces":[{"name":"a","index":1.5}]}}}"#.utf8
            ) + [0]
        ),
        ("gateway not a string", Array(#"{"parameters":{"path":{"status":"satisfied","gateways":[1]}}}"#.utf8) + [0]),
        ("error not a string", Array(#"{"error":{"name":5}}"#.utf8) + [0]),
        (
            "continues on a one-shot call",
            Array(#"{"parameters":{"path":{"status":"satisfied"}},"continues":true}"#.utf8) + [0]
        ),
        (
            "member twice",
            Array(#"{"parameters":{"path":{"status":"satisfied","isExpensive":true,"isExpensive":false}}}"#.utf8) + [0]
        ),
        (
            "path twice",
            Array(#"{"parameters":{"path":{"status":"satisfied"},"path":{"status":"unsatisfied"}}}"#.utf8) + [0]
        ),
        ("deep", Array(repeating: UInt8(ascii: "["), count: 60_000) + [0]),
        (
            "denser than any reply",
            Array(#"{"parameters":{"path":{"status":"satisfied","x":["#.utf8)
                + Array(repeating: Array("0,".utf8), count: 1000).joined() + Array("0]}}}".utf8) + [0]
        ),
        (
            "invalid UTF-8 in a string",
            Array(#"{"parameters":{"path":{"status":"satisfied","unsatisfiedReason":""#.utf8) + [0xC0, 0x80]
                + Array(#""}}}"#.utf8) + [0]
        ),
        ("escaped NUL", Array(#"{"parameters":{"path":{"status":"satisfied","gateways":["a\u0000b"]}}}"#.utf8) + [0]),
        ("lone surrogate", Array(#"{"parameters":{"path":{"status":"satisfied","gateways":["\udc00"]}}}"#.utf8) + [0]),
        ("two replies", Self.reply(Path(status: .satisfied)) + Self.reply(Path(status: .satisfied))),
    ]

    @Test(arguments: malformed.map(\.0))
    func aMalformedReplyIsRefused(_ name: String) throws {
        let bytes = try #require(Self.malformed.first { $0.0 == name }?.1)
        let pair = try SocketPair()
        pair.send(bytes)
        let (r, snapshot) = getPath(pair)
        #expect(r == -EBADMSG, "\(name): \(r)")
        #expect(snapshot == nil)
        // Finished: the next call gets the same error without waiting.
        #expect(getPath(pair).0 == -EBADMSG)
    }

    @Test func aVarlinkErrorIsNamed() throws {
        let pair = try SocketPair()
        pair.send(#"{"error":"io.pathmond.LimitReached","parameters":{"reason":"connections"}}"# + "\0")
        #expect(getPath(pair).0 == -EREMOTEIO)
        #expect(pathmond_client_get_error_name(pair.client).map { String(cString: $0) } == "io.pathmond.LimitReached")
    }

    @Test func escapesAndUnicodeAreDecoded() throws {
        let pair = try SocketPair()
        pair.send(
            #"{"parameters":{"path":{"status":"unsatisfied","unsatisfiedReason":"a\"\\\/\b\f\n\r\t\u00e9\ud83d\ude00é","newerField":[{"x":null},1e5,-0.5,true]}}}"#
                + "\0")
        let (r, snapshot) = getPath(pair)
        #expect(r == 0)
        #expect(snapshot?.reason == "a\"\\/\u{8}\u{C}\n\r\té😀é")
    }

    @Test func aServerThatGoesAwayEndsTheCall() throws {
        let pair = try SocketPair()
        pair.closeServer()
        #expect(getPath(pair).0 == -ECONNRESET)
    }

    @Test func aServerThatSaysNothingTimesOut() throws {
        let pair = try SocketPair()
        #expect(pathmond_client_set_timeout(pair.client, 50_000) == 0)
        #expect(getPath(pair).0 == -ETIMEDOUT)
    }

    /// Over the method table's limit (16 MiB), whole or not: the connection ends before the buffer grows further.
    @Test func aReplyOverTheLimitIsRefused() throws {
        let pair = try SocketPair()
        let server = pair.server
        let writer = Thread {
            let chunk = [UInt8](repeating: UInt8(ascii: " "), count: 1 << 20)
            _ = Glibc.send(server, "{", 1, Int32(MSG_NOSIGNAL))
            for _ in 0..<20 {
                guard chunk.withUnsafeBytes({ Glibc.send(server, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }) > 0
                else { return }
            }
        }
        writer.start()
        #expect(getPath(pair).0 == -EMSGSIZE)
        pair.closeServer()
    }

    @Test func checkMapsThePathAsPathctlDoes() throws {
        func check(_ path: Path, _ conditions: UInt32) throws -> Int32 {
            let pair = try SocketPair()
            pair.send(Self.reply(path))
            return pathmond_check(pair.client, nil, conditions)
        }
        let unmetered = PATHMOND_CHECK_UNMETERED, notConstrained = PATHMOND_CHECK_NOT_CONSTRAINED
        #expect(try check(Path(status: .unsatisfied), 0) == PATHMOND_CHECK_UNSATISFIED)
        #expect(try check(Path(status: .satisfied, isExpensive: true), 0) == PATHMOND_CHECK_OK)
        #expect(try check(Path(status: .satisfied, isExpensive: true), unmetered) == PATHMOND_CHECK_EXPENSIVE)
        #expect(try check(Path(status: .satisfied, isExpensive: true), notConstrained) == PATHMOND_CHECK_OK)
        #expect(try check(Path(status: .satisfied, isConstrained: true), unmetered) == PATHMOND_CHECK_CONSTRAINED)
        #expect(try check(Path(status: .satisfied, isConstrained: true), notConstrained) == PATHMOND_CHECK_CONSTRAINED)
        var captive = Path(status: .satisfied)
        captive.captivePortal = .captive
        #expect(try check(captive, unmetered) == PATHMOND_CHECK_CAPTIVE_PORTAL)
        #expect(try check(captive, notConstrained) == PATHMOND_CHECK_OK)
        #expect(try check(captive, 0x80) == -EINVAL)
    }

    /// As pathctl: a gate sees satellite links unless asked otherwise.
    @Test func checkWithoutRequirementsAsksAsPathctlDoes() throws {
        let pair = try SocketPair()
        pair.send(Self.reply(Path(status: .satisfied)))
        #expect(pathmond_check(pair.client, nil, PATHMOND_CHECK_UNMETERED) == PATHMOND_CHECK_OK)
        let call = try VarlinkCodec().decode(
            VarlinkCallWithParameters<Methods.PathParameters>.self, from: pair.receiveCall())
        #expect(call.parameters?.requirements?.allowUltraConstrained == true)
    }
}
