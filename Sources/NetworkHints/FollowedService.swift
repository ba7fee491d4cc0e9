// SPDX-License-Identifier: Apache-2.0
import DBus

/// One service on the bus, followed as GDBusProxy follows a name: its owner's unique name comes from the bus
/// (GetNameOwner, then the bus's own NameOwnerChanged), only broadcasts that owner sent reach the watcher, and calls go
/// to that owner, so what is read and what is heard come from one process.
///
/// Why a signal needs checking at all: on Debian's system bus any user may send any signal. dbus-daemon delivers a
/// signal addressed to a connection (a unicast) whatever that connection's match rules say, and a broadcast to every
/// rule that matches it; sd-bus lets a signal from any unique name through a rule whose sender is a well-known name
/// (it cannot resolve the name itself). Only the sender field, which the bus daemon writes, tells who spoke.
///
/// What is refused, each logged at most once a minute (`LogThrottle`) through `report`:
/// - any signal with a destination: services announce changes to everyone, and a unicast is how a local user reaches
///   a daemon whose match rules would never let the same broadcast in;
/// - a NameOwnerChanged not sent by the bus daemon ("org.freedesktop.DBus"), the one sender nobody else can be;
/// - any other signal not sent by the name's current owner, including every one while the name has no owner (or
///   before GetNameOwner has answered).
///
/// Method replies need no check here: sd-bus pairs a reply with its call by serial, and the system bus's policy
/// (`send_requested_reply="true"` in system.conf) lets through only the reply of the connection that was called.
///
/// Not Sendable: made, used and dropped on its connection's loop thread, by the watcher that follows the service.
final class FollowedService {
    /// The well-known name ("org.freedesktop.NetworkManager").
    let name: String
    let connection: BusConnection
    /// The unique name (":1.42") of the name's current owner, as the bus daemon says; nil while nobody owns it.
    private(set) var owner: String?
    private var refusals = LogThrottle()
    private let report: (String) -> Void

    static let busName = "org.freedesktop.DBus"
    static let busPath = "/org/freedesktop/DBus"

    /// `report` receives the (throttled) lines about refused signals, for the log at warning.
    init(name: String, connection: BusConnection, report: @escaping (String) -> Void) {
        self.name = name
        self.connection = connection
        self.report = report
    }

    /// Follows the bus's NameOwnerChanged for the name: `changed` runs after `owner` has moved (the service started,
    /// stopped or was replaced), so the watcher reads its state again from the new owner or forgets it.
    func followOwner(_ changed: @escaping () -> Void) throws(BusError) {
        try connection.addMatch(BusMatchRules.nameOwnerChanged(name)) { [weak self] signal in
            guard let self, admits(signal, from: Self.busName) else { return }
            guard let newOwner = Self.newOwner(in: signal, of: name) else {
                report("ignoring a NameOwnerChanged for \(name) of another shape than (sss)")
                return
            }
            guard newOwner != owner else { return }  // already read from it (GetNameOwner answered after the change)
            owner = newOwner
            changed()
        }
    }

    /// Adds a match rule whose signals reach `handler` only when the name's current owner broadcast them.
    func addMatch(_ rule: String, handler: @escaping (BusSignal) -> Void) throws(BusError) {
        try connection.addMatch(rule) { [weak self] signal in
            guard let self, admits(signal, from: owner) else { return }
            handler(signal)
        }
    }

    /// Asks the bus who owns the name now, without waiting; `resolved` runs on the loop once the answer moved
    /// `owner` (to the owner, or to nil when the name has none), so the watcher reads its state from it. Called after
    /// the match rules were sent: the bus handles a connection's messages in order, so a change falls either before
    /// the answer (and is in it) or after (and its NameOwnerChanged follows); a NameOwnerChanged that came first
    /// already moved `owner`, and an answer naming the same owner changes nothing.
    func resolveOwner(_ resolved: @escaping () -> Void) throws(BusError) {
        do throws(BusCallError) {
            try connection.callAsync(
                destination: Self.busName, path: Self.busPath, interface: Self.busName, member: "GetNameOwner",
                arguments: [name]
            ) { [weak self] result in
                guard let self else { return }
                switch result {
                case .success(let body):
                    guard body.count == 1, case .string(let unique) = body[0], unique.hasPrefix(":") else {
                        report("the bus answered who owns \(name) with something else; waiting for it to change")
                        return
                    }
                    guard unique != owner else { return }
                    owner = unique
                case .failure(let error) where error.isServiceAbsent:  // NameHasNoOwner: not running
                    guard owner != nil else { return resolved() }
                    return
                case .failure(let error):
                    report("cannot ask the bus who owns \(name) (\(error)); waiting for it to start")
                    return
                }
                resolved()
            }
        } catch {
            switch error {
            case .bus(let failure): throw failure
            case .errorReply: throw .badMessage
            }
        }
    }

    /// Calls a method of the owner, by its unique name, without waiting: `completion` gets the reply on the loop.
    /// By the unique name, a replacement between two calls fails the second (ServiceUnknown) rather than mixing two
    /// processes' answers, and its NameOwnerChanged brings a fresh read. No owner: fails at once, as the bus would.
    func call(
        path: String, interface: String, member: String, arguments: [String] = [],
        completion: @escaping (Result<[BusValue], BusCallError>) -> Void
    ) {
        guard let owner else {
            return completion(
                .failure(
                    .errorReply(name: "org.freedesktop.DBus.Error.NameHasNoOwner", message: "\(name) has no owner")))
        }
        do throws(BusCallError) {
            try connection.callAsync(
                destination: owner, path: path, interface: interface, member: member, arguments: arguments,
                completion: completion)
        } catch {
            completion(.failure(error))
        }
    }

    /// Reads all the properties of one interface of an object of the owner (Properties.GetAll), without waiting.
    func getAll(
        path: String, interface: String, completion: @escaping (Result<[BusValue], BusCallError>) -> Void
    ) {
        call(
            path: path, interface: "org.freedesktop.DBus.Properties", member: "GetAll", arguments: [interface],
            completion: completion)
    }

    /// Whether `signal` is a broadcast by `sender`; a refusal is reported (throttled). The line names the member,
    /// path and bus names only, never the body (a SIM's identifiers), and the D-Bus specification restricts those to
    /// [A-Za-z0-9_/.:-], so a forger cannot put a line break or a control character in the log.
    private func admits(_ signal: BusSignal, from sender: String?) -> Bool {
        guard let refusal = Self.refusal(of: signal, expectedSender: sender) else { return true }
        // Formatted only when written: a flood costs a comparison per signal, not a string.
        let line = refusals.line(
            "ignoring \(signal.member) on \(signal.path) from \(signal.sender): \(refusal.text(service: name))")
        if let line { report(line) }
        return false
    }

    /// Why a signal is not taken as the announcement it claims to be.
    enum Refusal: Hashable {
        /// Addressed to one connection: services announce to everyone.
        case unicast(destination: String)
        /// Nobody owns the name (or GetNameOwner has not answered yet).
        case noOwner
        /// Sent by someone else than the owner (or, for NameOwnerChanged, than the bus daemon).
        case notFrom(expectedSender: String)

        func text(service: String) -> String {
            switch self {
            case .unicast(let destination): "sent to \(destination) alone, where \(service) announces to everyone"
            case .noOwner: "\(service) has no owner on the bus"
            case .notFrom(FollowedService.busName): "not sent by the bus (\(FollowedService.busName))"
            case .notFrom(let owner): "not sent by the owner of \(service) (\(owner))"
            }
        }
    }

    /// Why `signal` cannot be an announcement by `expectedSender` (the name's owner, or the bus daemon; nil: nobody
    /// owns the name); nil when it can.
    static func refusal(of signal: BusSignal, expectedSender: String?) -> Refusal? {
        if let destination = signal.destination { return .unicast(destination: destination) }
        guard let expectedSender else { return .noOwner }
        return signal.sender == expectedSender ? nil : .notFrom(expectedSender: expectedSender)
    }

    /// The new owner a NameOwnerChanged of `service` (body `sss`: name, old owner, new owner) names: a unique name,
    /// or "" when nobody owns it any more; nil for another body.
    static func newOwner(in signal: BusSignal, of service: String) -> String?? {
        guard signal.path == busPath, signal.body.count == 3, case .string(let name) = signal.body[0],
            name == service, case .string(let owner) = signal.body[2], owner.isEmpty || owner.hasPrefix(":")
        else { return nil }
        return .some(owner.isEmpty ? nil : owner)
    }
}
