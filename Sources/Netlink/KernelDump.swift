// SPDX-License-Identifier: Apache-2.0
internal import CNetlink
import PathModel

/// Reads links, addresses, nexthop objects, default routes and neighbours with five dump requests on a request socket.
enum KernelDump {
    /// How many times an interrupted dump (NLM_F_DUMP_INTR) is repeated before giving up for now.
    static let maximumAttempts = 10

    /// What a successful dump read.
    struct Outcome {
        var snapshot: KernelSnapshot
        /// At least one attempt was interrupted by concurrent changes and repeated.
        var wasInterrupted: Bool
    }

    /// Dumps until one attempt is consistent, at most `maximumAttempts` times.
    static func read(from socket: NetlinkSocket, calls: NetlinkCalls) -> Result<Outcome, NetlinkError> {
        var wasInterrupted = false
        for _ in 0..<maximumAttempts {
            switch readOnce(from: socket, calls: calls) {
            case .success(let snapshot):
                return .success(Outcome(snapshot: snapshot, wasInterrupted: wasInterrupted))
            case .failure(.dumpInterrupted):
                // libnl reads an interrupted dump to its end before reporting it: the socket is ready again.
                wasInterrupted = true
            case .failure(let error):
                return .failure(error)
            }
        }
        return .failure(.dumpInterrupted)
    }

    /// One attempt. Every dump is read to its end even if an earlier one was interrupted, so the socket is left
    /// clean; a single interruption spoils the whole attempt, since the dumps must describe one moment.
    private static func readOnce(from socket: NetlinkSocket, calls: NetlinkCalls) -> Result<
        KernelSnapshot, NetlinkError
    > {
        var snapshot = KernelSnapshot()
        var interrupted = false
        for type in [RTM_GETLINK, RTM_GETADDR, RTM_GETNEXTHOP, RTM_GETROUTE, RTM_GETNEIGH] {
            _ = socket.sink.take()
            let result = calls.dump(socket, Int32(type))
            if result == -NLE_DUMP_INTR {
                interrupted = true
            } else if result == -NLE_OPNOTSUPP && type == RTM_GETNEXTHOP {
                // A kernel without nexthop objects (before 5.3) has none to dump.
                _ = socket.sink.take()
                continue
            } else if result < 0 {
                _ = socket.sink.take()
                return .failure(NetlinkError(code: result))
            }
            for event in socket.sink.take() {
                switch event {
                case .linkChanged(let link): snapshot.links.append(link)
                case .addressAdded(let address): snapshot.addresses.append(address)
                case .routeAdded(let route, _): snapshot.routes.append(route)
                case .nexthopChanged(let nexthop): snapshot.nexthops.append(nexthop)
                case .neighbourChanged(let neighbour):
                    // Only gateways' entries are kept (routes are dumped before neighbours): a LAN of 100,000
                    // neighbours costs a pass over the dump, not a copy of it.
                    if snapshot.routes.contains(where: {
                        $0.interfaceIndex == neighbour.interfaceIndex && $0.gateway == neighbour.address
                    })
                        || snapshot.nexthops.contains(where: {
                            $0.interfaceIndex == neighbour.interfaceIndex && $0.gateway == neighbour.address
                        })
                    {
                        snapshot.neighbours.append(neighbour)
                    }
                default: break  // a dump only holds RTM_NEW* messages
                }
            }
        }
        return interrupted ? .failure(.dumpInterrupted) : .success(snapshot)
    }
}
