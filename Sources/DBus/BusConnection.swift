// SPDX-License-Identifier: Apache-2.0
internal import CSystemd
import Glibc
import SDEvent

/// A client connection to a D-Bus message bus through sd-bus: method calls, and signals delivered to handlers.
///
/// Threading invariant (why this is `@unchecked Sendable`): sd-bus objects are not thread-safe, so every sd-bus call
/// on `bus`, and every mutable property, is used only on `loop`'s thread. The bus is attached to that sd-event loop
/// (sd_bus_attach_event), which processes it whenever its socket is readable or a timeout is due; signals collected
/// while processing are handed to their handlers in a job after it, so a handler may make calls (which sd-bus allows
/// outside processing only). Calls are synchronous, with a timeout.
public final class BusConnection: @unchecked Sendable {
    /// The loop every use of the connection runs on: calls and `addMatch` must be made on its thread.
    public let loop: SDEventLoop
    /// The most a method call waits for its reply.
    public let callTimeout: Duration
    let bus: BusPointer
    private var isAttached = false
    private var matches: [MatchBox] = []
    private var disconnectMatch: MatchBox?
    private var pendingSignals: [(MatchBox, BusSignal)] = []
    private var disconnectHandler: ((BusError) -> Void)?
    private(set) var isDisconnected = false

    /// Connects to the system bus (`DBUS_SYSTEM_BUS_ADDRESS` when set, else /run/dbus/system_bus_socket), or to
    /// the bus at `address` (a D-Bus address such as "unix:path=/tmp/bus"). Fails at once when the socket is
    /// missing or refuses; authentication and Hello finish before the first call returns.
    public init(address: String? = nil, loop: SDEventLoop, callTimeout: Duration = .seconds(2)) throws(BusError) {
        self.loop = loop
        self.callTimeout = callTimeout
        var pointer: OpaquePointer?
        if let address {
            try check(sd_bus_new(&pointer))
            do {
                try check(sd_bus_set_address(pointer, address))
                try check(sd_bus_set_bus_client(pointer, 1))
                try check(sd_bus_start(pointer))
            } catch {
                sd_bus_unref(pointer)
                throw error
            }
        } else {
            try check(sd_bus_open_system(&pointer))
        }
        // sd-bus returned success, so the pointer is set.
        bus = BusPointer(raw: pointer!)
    }

    deinit {
        // Detached and freed on the loop's thread: the loop may be processing the bus right now.
        let bus = self.bus
        let isAttached = self.isAttached
        let matches = UncheckedTransfer((self.matches, disconnectMatch))
        loop.execute {
            if isAttached { _ = sd_bus_detach_event(bus.raw) }
            _ = sd_bus_flush_close_unref(bus.raw)
            withExtendedLifetime(matches) {}
        }
    }

    /// Starts delivering signals on the loop. `onDisconnect` is called once, on the loop, when the bus goes away;
    /// the connection is useless after that (open a new one).
    public func start(onDisconnect: @escaping (BusError) -> Void) throws(BusError) {
        disconnectHandler = onDisconnect
        // sd-bus reports a lost connection as a local signal, on a match like any other.
        let box = MatchBox(handler: { _ in }, connection: self)
        try check(
            sd_bus_match_signal(
                bus.raw, nil, nil, "/org/freedesktop/DBus/Local", "org.freedesktop.DBus.Local", "Disconnected",
                matchCallback, box.pointer))
        disconnectMatch = box
        try check(sd_bus_attach_event(bus.raw, loop.unsafeRawEvent, 0))
        isAttached = true
    }

    /// Calls a method and waits for the reply's body. Never starts the service (NO_AUTO_START): a service that is
    /// not running answers `org.freedesktop.DBus.Error.ServiceUnknown`. Only on the loop's thread, and only where
    /// waiting is allowed (the dispatcher's own process, tests): the daemon's loop uses `callAsync`.
    public func call(
        destination: String, path: String, interface: String, member: String, arguments: [String] = []
    ) throws(BusCallError) -> [BusValue] {
        let reply = try callForReply(
            destination: destination, path: path, interface: interface, member: member,
            arguments: arguments.map(BusArgument.string))
        do {
            return try reply.body()
        } catch {
            throw .bus(error)
        }
    }

    /// Sends a method call and returns at once; `completion` gets the reply's body (or why there is none) on the
    /// loop. Never starts the service. Only on the loop's thread.
    public func callAsync(
        destination: String, path: String, interface: String, member: String, arguments: [String] = [],
        completion: @escaping (Result<[BusValue], BusCallError>) -> Void
    ) throws(BusCallError) {
        try callAsync(
            destination: destination, path: path, interface: interface, member: member,
            arguments: arguments.map(BusArgument.string)
        ) { (result: Result<BusReply, BusCallError>) in
            completion(
                result.flatMap { reply in
                    do throws(BusError) {
                        return .success(try reply.body())
                    } catch {
                        return .failure(.bus(error))
                    }
                })
        }
    }

    /// Adds a match rule (D-Bus Specification, "Match Rules") and calls `handler` on the loop for every signal it
    /// matches. Returns without waiting for the bus: the AddMatch goes out before any call made after this, and the
    /// bus handles a connection's messages in order, so the rule is in place by the time a later call is answered.
    /// A bus that refuses the rule closes the connection (sd-bus's doing, without an install callback), which
    /// `onDisconnect` reports. Only on the loop's thread.
    public func addMatch(_ rule: String, handler: @escaping (BusSignal) -> Void) throws(BusError) {
        guard !isDisconnected else { throw .notConnected }
        let box = MatchBox(handler: handler, connection: self)
        // A floating slot (nil): the match lives as long as the bus, and the box (kept in `matches`) with it.
        try check(sd_bus_add_match_async(bus.raw, nil, rule, matchCallback, nil, box.pointer))
        matches.append(box)
    }

    /// Hands the signals collected during processing to their handlers, in order.
    private func deliverPendingSignals() {
        while !pendingSignals.isEmpty && !isDisconnected {
            let signals = pendingSignals
            pendingSignals = []
            for (box, signal) in signals { box.handler(signal) }
        }
    }

    private func disconnect(_ error: BusError) {
        guard !isDisconnected else { return }
        isDisconnected = true
        pendingSignals = []
        if isAttached {
            _ = sd_bus_detach_event(bus.raw)
            isAttached = false
        }
        let handler = disconnectHandler
        disconnectHandler = nil
        handler?(error)
    }

    /// Called by sd-bus during `sd_bus_process`: the signal is copied out and delivered after processing.
    fileprivate func collect(_ message: OpaquePointer, for box: MatchBox) {
        if box === disconnectMatch {
            // Not a signal to deliver: the connection is gone, and sd-bus must not be processed further now.
            loop.execute { [weak self] in self?.disconnect(.notConnected) }
            return
        }
        guard let body = try? BusMessageReader.body(of: message) else { return }  // malformed: ignored
        func text(_ pointer: UnsafePointer<CChar>?) -> String { pointer.map { String(cString: $0) } ?? "" }
        let signal = BusSignal(
            sender: text(sd_bus_message_get_sender(message)), path: text(sd_bus_message_get_path(message)),
            interface: text(sd_bus_message_get_interface(message)), member: text(sd_bus_message_get_member(message)),
            destination: sd_bus_message_get_destination(message).map { String(cString: $0) }, body: body)
        pendingSignals.append((box, signal))
        if pendingSignals.count == 1 {
            let connection = UncheckedTransfer(self)
            loop.execute { connection.value.deliverPendingSignals() }
        }
    }

    static func microseconds(_ duration: Duration) -> UInt64 {
        let (seconds, attoseconds) = duration.components
        return UInt64(max(0, seconds)) * 1_000_000 + UInt64(max(0, attoseconds) / 1_000_000_000_000)
    }
}

/// A signal a match rule let through. Not proof of who sent it: dbus-daemon hands a signal addressed to this
/// connection (a destination) to it whatever its match rules say, and sd-bus compares a rule's sender='well.known'
/// with nothing (dbus-daemon's messages name only the unique sender), so any peer allowed to send signals gets
/// through any rule that names a service by its well-known name. The bus daemon does stamp `sender` itself:
/// checking it against the service's current owner is what makes a signal trustworthy.
public struct BusSignal: Sendable, Hashable {
    /// The sender's unique name (":1.42"), or "org.freedesktop.DBus" for the bus daemon's own signals. Set by the
    /// bus daemon, never by the sender.
    public var sender: String
    public var path: String
    public var interface: String
    public var member: String
    /// The connection the signal was addressed to (a unicast); nil for a broadcast, as services announce changes.
    public var destination: String?
    public var body: [BusValue]

    public init(
        sender: String, path: String, interface: String, member: String, destination: String? = nil,
        body: [BusValue]
    ) {
        self.sender = sender
        self.path = path
        self.interface = interface
        self.member = member
        self.destination = destination
        self.body = body
    }
}

/// The sd_bus pointer. @unchecked Sendable: used only on the connection's loop thread, and freed there once, by the
/// job deinit queues.
struct BusPointer: @unchecked Sendable {
    let raw: OpaquePointer
}

/// What sd-bus holds as a match's userdata.
private final class MatchBox {
    let handler: (BusSignal) -> Void
    /// Weak: the bus (and with it this box) is freed on the loop after the connection is gone.
    weak var connection: BusConnection?

    init(handler: @escaping (BusSignal) -> Void, connection: BusConnection) {
        self.handler = handler
        self.connection = connection
    }

    var pointer: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }
}

/// sd-bus's callback for every match: a plain C function, so it finds its box through userdata.
private let matchCallback: sd_bus_message_handler_t = { message, userdata, _ in
    guard let message, let userdata else { return 0 }
    let box = Unmanaged<MatchBox>.fromOpaque(userdata).takeUnretainedValue()
    box.connection?.collect(message, for: box)
    return 0
}
