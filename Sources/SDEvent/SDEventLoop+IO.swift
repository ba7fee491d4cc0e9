// SPDX-License-Identifier: Apache-2.0
internal import CSystemd
import Glibc

/// What a descriptor is watched for, and what epoll said it is: its EPOLL* bits.
public struct SDIOEvents: OptionSet, Sendable {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    public static let readable = SDIOEvents(rawValue: UInt32(EPOLLIN.rawValue))
    public static let writable = SDIOEvents(rawValue: UInt32(EPOLLOUT.rawValue))
    /// Reported whether asked for or not.
    public static let error = SDIOEvents(rawValue: UInt32(EPOLLERR.rawValue))
    public static let hangUp = SDIOEvents(rawValue: UInt32(EPOLLHUP.rawValue))
}

/// How urgent a source is: of the sources ready at once, sd-event runs the most urgent first, and the oldest of
/// equally urgent ones.
public enum SDEventUrgency: Int64, Sendable {
    /// Kernel events, signals, the bus, posted jobs.
    case normal = 0
    /// Served only when nothing normal is ready, in turn with every other source of this urgency: clients' calls,
    /// and long work done a slice per turn (`sliced`).
    case background = 100  // SD_EVENT_PRIORITY_IDLE
}

extension SDEventLoop {
    /// Calls `handler` with what happened whenever `descriptor` is ready for `events` (level-triggered); the
    /// events can be changed later (`setIOEvents`), as a socket's writer wants EPOLLOUT only while output waits.
    /// The descriptor stays the caller's: it must outlive the returned source.
    public func watch(
        _ descriptor: Int32, for events: SDIOEvents, urgency: SDEventUrgency = .normal,
        _ handler: @escaping (SDIOEvents) -> Void
    ) throws(SDEventError) -> SDEventSource {
        let made: SDEventSource
        if urgency == .background {
            // Noted, so that the slices know a background source had its turn (`sliced`).
            made = SDEventSource { [unowned self] events in
                sliceLedger.lastBackgroundTurn = iteration
                handler(SDIOEvents(rawValue: events))
            }
        } else {
            made = SDEventSource { handler(SDIOEvents(rawValue: $0)) }
        }
        var source: OpaquePointer?
        try SDEventError.check(sd_event_add_io(event, &source, descriptor, events.rawValue, ioCallback, made.pointer))
        made.source = source
        if urgency != .normal { _ = sd_event_source_set_priority(source, urgency.rawValue) }
        return made
    }

    /// A source that calls `handler` on a later turn of the loop each time it is armed (`armOnce()`): for long work
    /// done a slice per turn, taking turns with the background sources (clients' calls) that are ready meanwhile.
    /// sd-event runs one source per turn, the most urgent, and of equally urgent ones the oldest; a slice re-armed
    /// in its own turn tied with a descriptor found ready in that turn, and the tie went to the slice every time (a
    /// GetPath waited for all 2,000 look-ups of a flow fan-out, 27 ms). So the loop's slices go just after the
    /// background from the moment a slice ran until a background source has had a turn, and just before it
    /// otherwise: while both wait, a slice and one background source alternate, whichever slices there are (the
    /// look-ups' and the fan-out's), and neither can starve the other. Normal sources (kernel events, posted
    /// jobs) go before both, and do not count as the background's turn: a slice that posted a job left the next
    /// turn to that job's wake-up, and the waiting client lost its turn on every slice. It starts disarmed.
    public func sliced(_ handler: @escaping () -> Void) throws(SDEventError) -> SDEventSource {
        let turn = SliceTurn(loop: self)
        let made = SDEventSource { _ in
            turn.ran()
            handler()
        }
        made.prepare = { _ in turn.beforeTurn() }
        var source: OpaquePointer?
        try SDEventError.check(sd_event_add_defer(event, &source, deferCallback, made.pointer))
        made.source = source
        turn.source = source
        _ = sd_event_source_set_enabled(source, Int32(SD_EVENT_OFF))
        _ = sd_event_source_set_priority(source, SliceTurn.yielding)
        _ = sd_event_source_set_prepare(source, prepareCallback)
        return made
    }

    /// The loop's current turn (sd-event's iteration count): what a source did in this turn is known by it.
    public var iteration: UInt64 {
        var iteration: UInt64 = 0
        _ = sd_event_get_iteration(event, &iteration)
        return iteration
    }
}

/// The turns of the loop in which one of its slices, and one of its background sources, last ran (see `sliced`);
/// touched on the loop's thread only.
final class SliceLedger {
    var lastSliceTurn: UInt64?
    var lastBackgroundTurn: UInt64?

    /// Whether the slices leave the next turn to the background: a slice ran, and no background source since.
    var slicesYield: Bool {
        guard let lastSliceTurn else { return false }
        guard let lastBackgroundTurn else { return true }
        return lastBackgroundTurn < lastSliceTurn
    }
}

/// One slice's urgency, set before each turn from the loop's ledger.
private final class SliceTurn {
    /// Just after the background sources: right after a slice, a waiting client goes first.
    static let yielding = SDEventUrgency.background.rawValue + 1
    /// Just before them: after any other source's turn, the slices' work goes on.
    static let insisting = SDEventUrgency.background.rawValue - 1

    private unowned let loop: SDEventLoop
    /// The slice's source (not retained: the source holds this through its box).
    var source: OpaquePointer?
    private var priority = yielding

    init(loop: SDEventLoop) { self.loop = loop }

    /// Before each turn while the slice is armed.
    func beforeTurn() {
        let wanted = loop.sliceLedger.slicesYield ? Self.yielding : Self.insisting
        guard wanted != priority else { return }
        priority = wanted
        _ = sd_event_source_set_priority(source, wanted)
    }

    /// The slice's own turn, before its work (which may arm it again).
    func ran() {
        loop.sliceLedger.lastSliceTurn = loop.iteration
    }
}

extension SDEventSource {
    /// Changes what an I/O source waits for.
    public func setIOEvents(_ events: SDIOEvents) {
        guard let source else { return }
        _ = sd_event_source_set_io_events(source, events.rawValue)
    }

    /// Runs the source once more on a later turn of the loop (a `sliced` source; a timer, once its time comes).
    public func armOnce() {
        guard let source else { return }
        _ = sd_event_source_set_enabled(source, Int32(SD_EVENT_ONESHOT))
    }
}

private let ioCallback: sd_event_io_handler_t = { _, _, events, userdata in call(userdata, events: events) }
private let deferCallback: sd_event_handler_t = { _, userdata in call(userdata) }
private let prepareCallback: sd_event_handler_t = { source, userdata in
    guard let source, let userdata else { return 0 }
    Unmanaged<SDEventSource>.fromOpaque(userdata).takeUnretainedValue().prepare?(source)
    return 0
}
