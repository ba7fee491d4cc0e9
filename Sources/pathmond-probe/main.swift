// SPDX-License-Identifier: Apache-2.0
import ConnectivityProbe
import Glibc
import PathProtocol

// pathmond-probe: the HTTP requests of the connectivity check and the RFC 8908 check, in a process of its own so
// that pathmond itself never opens an IP socket. Run by systemd per connection (pathmond-probe.socket, Accept=yes: the connection is
// descriptor 3), or, outside systemd (tests, developers), as `pathmond-probe --listen PATH`, serving one
// connection after another on a socket of its own.

let usage = """
    Usage: pathmond-probe            serve the connection systemd passed (descriptor 3, Accept=yes)
           pathmond-probe --listen PATH [--ca-file FILE]
                                     serve connections on the Unix socket PATH, one at a time (no systemd),
                                     verifying certificates with FILE instead of the system's store (tests)

    Answers io.pathmond.Probe.Check: an HTTP GET of a URI out of an interface, judged against the expected answer;
    and io.pathmond.Probe.AskPortalAPI: an RFC 8908 API asked over HTTPS out of an interface, its answer parsed.

    """

/// sd_listen_fds(3)'s rule, without libsystemd: the descriptors are ours when LISTEN_PID names this process.
func passedDescriptors() -> Int32 {
    guard let pid = getenv("LISTEN_PID").map({ String(cString: $0) }), pid_t(pid) == getpid(),
        let count = getenv("LISTEN_FDS").map({ String(cString: $0) }).flatMap({ Int32($0) })
    else { return 0 }
    return count
}

func listen(at path: String, checks: ProbeChecks) -> Never {
    let listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    guard listener >= 0, let address = UnixSocketAddress(path: path) else {
        log("cannot listen at \(path)")
        exit(1)
    }
    unlink(path)
    guard address.withSocketAddress({ bind(listener, $0, $1) }) == 0, Glibc.listen(listener, 16) == 0 else {
        log("cannot listen at \(path): \(String(cString: strerror(errno)))")
        exit(1)
    }
    while true {
        let connection = accept(listener, nil, nil)
        guard connection >= 0 else { continue }
        ProbeConnection(descriptor: connection, checks: checks).serve()
        close(connection)
    }
}

let arguments = Array(CommandLine.arguments.dropFirst())
switch arguments.first {
case "--listen" where arguments.count == 2:
    listen(at: arguments[1], checks: ProbeChecks())
case "--listen" where arguments.count == 4 && arguments[2] == "--ca-file":
    listen(at: arguments[1], checks: ProbeChecks(caFile: arguments[3]))
case "--help", "-h":
    print(usage, terminator: "")
case nil where passedDescriptors() == 1:
    ProbeConnection(descriptor: 3).serve()
    close(3)
default:
    log("expected one connection from systemd (Accept=yes) or --listen PATH")
    print(usage, terminator: "")
    exit(64)
}
