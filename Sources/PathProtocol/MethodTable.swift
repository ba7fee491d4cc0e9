// SPDX-License-Identifier: Apache-2.0
/// The method table: every method pathmond serves, once. The daemon dispatches by it, the client library calls by
/// it, tests hold it against docs/io.pathmond.varlink, and Sources/PathmondGIO/pathmond-protocol.h is generated
/// from it.
extension Methods {
    // org.varlink.service, which every Varlink service implements.

    public static let getInfo = VarlinkMethod<NoParameters, InfoReply>("org.varlink.service.GetInfo")

    public static let getInterfaceDescription = VarlinkMethod<
        InterfaceDescriptionParameters, InterfaceDescriptionReply
    >("org.varlink.service.GetInterfaceDescription", errors: [.invalidParameter, .interfaceNotFound])

    // io.pathmond: the path and flows.

    public static let getPath = VarlinkMethod<PathParameters, PathReply>(
        "io.pathmond.GetPath", errors: [.invalidParameter])

    /// Streams with "more"; the GIO module makes no other call.
    public static let watchPath = VarlinkMethod<PathParameters, PathReply>(
        "io.pathmond.WatchPath", streaming: .optional, errors: [.invalidParameter, .limitReached])

    public static let watchFlow = VarlinkMethod<FlowParameters, FlowReply>(
        "io.pathmond.WatchFlow", streaming: .required, errors: [.invalidParameter, .expectedMore, .limitReached])

    /// The first reply holds as many stored entries as fit in `maximumReplySize` (HistoryReplyCursor).
    public static let getHistory = VarlinkMethod<HistoryParameters, HistoryReply>(
        "io.pathmond.GetHistory", streaming: .optional, errors: [.invalidParameter])

    // io.pathmond: what the daemon sees and its own condition.

    public static let listInterfaces = VarlinkMethod<NoParameters, InterfacesReply>("io.pathmond.ListInterfaces")

    public static let listNetworks = VarlinkMethod<NoParameters, NetworksReply>("io.pathmond.ListNetworks")

    public static let getStatus = VarlinkMethod<NoParameters, StatusReply>("io.pathmond.GetStatus")

    public static let getUsage = VarlinkMethod<NoParameters, UsageReply>("io.pathmond.GetUsage")

    // io.pathmond: policy writes, for root and the admin group.

    /// What a policy change of one network (by interface or key) may be refused with.
    private static let policyChangeErrors: [VarlinkError.Kind] = [
        .invalidParameter, .pathmondPermissionDenied, .noSuchInterface, .networkNotIdentified, .invalidNetworkKey,
        .policyNotSaved,
    ]

    public static let setConstrained = VarlinkMethod<SetConstrainedParameters, NetworkReply>(
        "io.pathmond.SetConstrained", errors: policyChangeErrors)

    public static let setUltraConstrained = VarlinkMethod<SetUltraConstrainedParameters, NetworkReply>(
        "io.pathmond.SetUltraConstrained", errors: policyChangeErrors)

    public static let setExpensive = VarlinkMethod<SetExpensiveParameters, NetworkReply>(
        "io.pathmond.SetExpensive", errors: policyChangeErrors)

    public static let setNetworkName = VarlinkMethod<SetNetworkNameParameters, NetworkReply>(
        "io.pathmond.SetNetworkName", errors: policyChangeErrors)

    public static let setDataLimit = VarlinkMethod<SetDataLimitParameters, NetworkReply>(
        "io.pathmond.SetDataLimit", errors: policyChangeErrors)

    public static let forgetNetwork = VarlinkMethod<ForgetNetworkParameters, NoParameters>(
        "io.pathmond.ForgetNetwork",
        errors: [.invalidParameter, .pathmondPermissionDenied, .invalidNetworkKey, .noSuchNetwork, .policyNotSaved])

    /// Every method served, in the order of the interface descriptions.
    public static let all: [any VarlinkMethodRule] = [
        getInfo, getInterfaceDescription,
        getPath, watchPath, watchFlow, listInterfaces, setConstrained, setExpensive, setUltraConstrained,
        setNetworkName, setDataLimit, listNetworks, forgetNetwork, getStatus, getHistory, getUsage,
    ]

    /// The errors any call may get, whatever its method: a message that cannot be read, a connection over the
    /// limit, an unknown method or interface, "upgrade" (which pathmond offers for no method), and a configuration
    /// file refused at start (every call until it is fixed).
    public static let connectionErrors: [VarlinkError.Kind] = [
        .protocolError, .limitReached, .methodNotFound, .interfaceNotFound, .invalidParameter, .configurationRefused,
    ]

    /// The table entry for a fully qualified method name.
    public static func named(_ name: String) -> (any VarlinkMethodRule)? {
        byName[name]
    }

    private static let byName: [String: any VarlinkMethodRule] = Dictionary(
        uniqueKeysWithValues: all.map { ($0.name, $0) })
}
