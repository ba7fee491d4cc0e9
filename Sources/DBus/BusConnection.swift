internal import CSystemd
import Dispatch
import Glibc

/// A client connection to a D-Bus message bus through sd-bus: method calls, and signals delivered to handlers.
///
/// Threading invariant (why this is `@unchecked Sendable`): sd-bus objects are not thread-safe, so every sd-bus call
/// on `bus`, and every mutable property, is used only on `queue`, a serial queue. A Dispatch read source on the bus
/// socket wakes that queue; `pump()` then runs `sd_bus_process` until it has nothing left, and hands the signals it
/// collected to their handlers after it returns, so a handler may make calls (which sd-bus allows outside
/// processing only). Calls are synchronous on `queue` with a timeout; after each one the queue is pumped again,
/// since sd-bus may have read signals off the socket while waiting for the reply.
public final class BusConnection: @unchecked Sendable {
    /// The queue every use of the connection runs on: calls and `addMatch` must be made on it.
    public let queue: DispatchQueue
    /// The most a method call waits for its reply.
    public let callTimeout: Duration
    private let bus: BusPointer
    private var source: (any DispatchSourceRead)?
    private var matches: [MatchBox] = []
    private var pendingSignals: [(MatchBox, BusSignal)] = []
    private var disconnectHandler: ((BusError) -> Void)?
    private var isDisconnected = false

    /// Connects to the system bus (`DBUS_SYSTEM_BUS_ADDRESS` when set, else /run/dbus/system_bus_socket), or to
    /// the bus at `address` (a D-Bus address such as "unix:path=/tmp/bus"). Fails at once when the socket is
    /// missing or refuses; authentication and Hello finish before the first call returns.
    public init(address: String? = nil, queue: DispatchQueue, callTimeout: Duration = .seconds(2)) throws(BusError) {
        self.queue = queue
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
        // The cancel handler frees the bus, so that its socket is closed only after Dispatch stopped watching it.
        if let source {
            source.cancel()
        } else {
            sd_bus_flush_close_unref(bus.raw)
        }
    }

    /// Starts delivering signals on `queue`. `onDisconnect` is called once, on `queue`, when the bus goes away;
    /// the connection is useless after that (open a new one).
    public func start(onDisconnect: @escaping (BusError) -> Void) throws(BusError) {
        dispatchPrecondition(condition: .onQueue(queue))
        disconnectHandler = onDisconnect
        let descriptor = try check(sd_bus_get_fd(bus.raw))
        let source = DispatchSource.makeReadSource(fileDescriptor: descriptor, queue: queue)
        let bus = self.bus
        source.setEventHandler { [weak self] in self?.pump() }
        // No callback can run after this: only `pump()` dispatches them, and it needs the connection alive.
        source.setCancelHandler { _ = sd_bus_flush_close_unref(bus.raw) }
        self.source = source
        source.resume()
        queue.async { [weak self] in self?.pump() }
    }

    /// Calls a method and returns the reply's body. Never starts the service (NO_AUTO_START): a service that is
    /// not running answers `org.freedesktop.DBus.Error.ServiceUnknown`. Only on `queue`.
    public func call(
        destination: String, path: String, interface: String, member: String, arguments: [String] = []
    ) throws(BusCallError) -> [BusValue] {
        dispatchPrecondition(condition: .onQueue(queue))
        guard !isDisconnected else { throw .bus(.notConnected) }
        defer { queue.async { [weak self] in self?.pump() } }
        var message: OpaquePointer?
        do {
            try check(sd_bus_message_new_method_call(bus.raw, &message, destination, path, interface, member))
        } catch {
            throw .bus(error)
        }
        defer { sd_bus_message_unref(message) }
        sd_bus_message_set_auto_start(message, 0)
        for argument in arguments {
            let appended = argument.withCString { sd_bus_message_append_basic(message, CChar(UInt8(ascii: "s")), $0) }
            if appended < 0 { throw .bus(BusError(returned: appended)) }
        }
        var error = sd_bus_error(name: nil, message: nil, _need_free: 0)
        defer { sd_bus_error_free(&error) }
        var reply: OpaquePointer?
        let result = sd_bus_call(bus.raw, message, Self.microseconds(callTimeout), &error, &reply)
        defer { sd_bus_message_unref(reply) }
        guard result >= 0, let reply else {
            let failure = BusError(returned: result)
            // sd-bus names local failures too (a timeout becomes ...Error.Timeout): only a live connection and a
            // non-transport errno mean the peer itself answered with an error.
            if let name = error.name, !failure.isDisconnect, failure != .timedOut {
                throw .errorReply(name: String(cString: name), message: error.message.map { String(cString: $0) } ?? "")
            }
            throw .bus(failure)
        }
        do {
            return try BusMessageReader.body(of: reply)
        } catch {
            throw .bus(error)
        }
    }

    /// Adds a match rule (D-Bus Specification, "Match Rules") and calls `handler` on `queue` for every signal it
    /// matches, from the next `pump()` on. The rule is installed on the bus before this returns. Only on `queue`.
    public func addMatch(_ rule: String, handler: @escaping (BusSignal) -> Void) throws(BusError) {
        dispatchPrecondition(condition: .onQueue(queue))
        guard !isDisconnected else { throw .notConnected }
        let box = MatchBox(handler: handler, connection: self)
        // A floating slot (nil): the match lives as long as the bus, and the box (kept in `matches`) with it.
        try check(sd_bus_add_match(bus.raw, nil, rule, matchCallback, Unmanaged.passUnretained(box).toOpaque()))
        matches.append(box)
    }

    /// Processes everything sd-bus has read or can read now, then delivers the signals collected.
    private func pump() {
        guard !isDisconnected else { return }
        while true {
            while true {
                let processed = sd_bus_process(bus.raw, nil)
                if processed < 0 {
                    disconnect(BusError(returned: processed))
                    return
                }
                if processed == 0 { break }
            }
            // A write that did not fit the socket buffer at once waits in sd-bus; rare on a local socket.
            if sd_bus_get_events(bus.raw) & Int32(POLLOUT) != 0 { sd_bus_flush(bus.raw) }
            guard !pendingSignals.isEmpty else { return }
            let signals = pendingSignals
            pendingSignals = []
            for (box, signal) in signals { box.handler(signal) }
            guard !isDisconnected else { return }
        }
    }

    private func disconnect(_ error: BusError) {
        isDisconnected = true
        pendingSignals = []
        source?.cancel()
        let handler = disconnectHandler
        disconnectHandler = nil
        handler?(error)
    }

    /// Called by sd-bus during `sd_bus_process`: the signal is copied out and delivered after processing.
    fileprivate func collect(_ message: OpaquePointer, for box: MatchBox) {
        guard let body = try? BusMessageReader.body(of: message) else { return }  // malformed: ignored
        func text(_ pointer: UnsafePointer<CChar>?) -> String { pointer.map { String(cString: $0) } ?? "" }
        let signal = BusSignal(
            sender: text(sd_bus_message_get_sender(message)), path: text(sd_bus_message_get_path(message)),
            interface: text(sd_bus_message_get_interface(message)), member: text(sd_bus_message_get_member(message)),
            body: body)
        pendingSignals.append((box, signal))
    }

    static func microseconds(_ duration: Duration) -> UInt64 {
        let (seconds, attoseconds) = duration.components
        return UInt64(max(0, seconds)) * 1_000_000 + UInt64(max(0, attoseconds) / 1_000_000_000_000)
    }
}

/// A signal a match rule let through.
public struct BusSignal: Sendable, Hashable {
    /// The sender's unique name (":1.42").
    public var sender: String
    public var path: String
    public var interface: String
    public var member: String
    public var body: [BusValue]
}

/// The sd_bus pointer, handed to the source's cancel handler. @unchecked Sendable: used only on the connection's
/// queue, and freed there once, by that handler or by deinit.
private struct BusPointer: @unchecked Sendable {
    let raw: OpaquePointer
}

/// What sd-bus holds as a match's userdata.
private final class MatchBox {
    let handler: (BusSignal) -> Void
    unowned let connection: BusConnection

    init(handler: @escaping (BusSignal) -> Void, connection: BusConnection) {
        self.handler = handler
        self.connection = connection
    }
}

/// sd-bus's callback for every match: a plain C function, so it finds its box through userdata.
private let matchCallback: sd_bus_message_handler_t = { message, userdata, _ in
    guard let message, let userdata else { return 0 }
    let box = Unmanaged<MatchBox>.fromOpaque(userdata).takeUnretainedValue()
    box.connection.collect(message, for: box)
    return 0
}
