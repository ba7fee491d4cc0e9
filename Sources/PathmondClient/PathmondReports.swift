// SPDX-License-Identifier: Apache-2.0
import PathModel
import PathProtocol

// What pathmond reports, in the protocol's own types under the names an app reads: one definition of each shape
// (fields and their documentation), which WireShapeTests holds to docs/io.pathmond.varlink. A copy of each here
// had to follow every field added to the wire, by hand. They encode with the Varlink interface's field names, as
// `pathctl status --json` prints them.

/// One interface as pathmond reports it (`PathmondConnection.interfaces()`).
public typealias InterfaceDetails = WireInterface

/// A network pathmond remembers (the user set something for it) or sees attached now.
public typealias NetworkDetails = WireNetwork

/// pathmond's own condition (`PathmondConnection.status()`).
public typealias DaemonStatus = WireDaemonStatus

extension WireInterface {
    /// One address of an interface.
    public typealias Address = WireAddress
    /// One default route out of an interface.
    public typealias Route = WireRoute

    /// The kind, as the path's interfaces carry it (`.other` for a kind this library does not know).
    public var kind: InterfaceKind { InterfaceKind(rawValue: type) ?? .other }
}
