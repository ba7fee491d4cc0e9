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
        let box = SDEventSource.Box { handler(SDIOEvents(rawValue: $0)) }
        var source: OpaquePointer?
        try SDEventError.check(sd_event_add_io(event, &source, descriptor, events.rawValue, ioCallback, box.pointer))
        if urgency != .normal { _ = sd_event_source_set_priority(source, urgency.rawValue) }
        return SDEventSource(source!, box: box)
    }

    /// A source that calls `handler` on a later turn of the loop each time it is armed (`armOnce()`), once no other
    /// source is ready: for long work done a slice per turn, so that descriptors that become ready meanwhile are
    /// served between the slices. sd-event runs the oldest of equally urgent sources first, and a slice re-armed
    /// by the one before it would always be older than a descriptor found ready since; so this one is in the
    /// background, taking turns with the other background sources. It starts disarmed.
    public func sliced(_ handler: @escaping () -> Void) throws(SDEventError) -> SDEventSource {
        let box = SDEventSource.Box { _ in handler() }
        var source: OpaquePointer?
        try SDEventError.check(sd_event_add_defer(event, &source, deferCallback, box.pointer))
        _ = sd_event_source_set_enabled(source, Int32(SD_EVENT_OFF))
        _ = sd_event_source_set_priority(source, SDEventUrgency.background.rawValue)
        return SDEventSource(source!, box: box)
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
