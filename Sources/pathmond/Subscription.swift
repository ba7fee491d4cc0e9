// SPDX-License-Identifier: Apache-2.0
import PathModel

/// What a subscriber watches: the path for some parameters (WatchPath), or one flow (WatchFlow).
enum Interest: Sendable, Hashable {
    case path(PathParameters)
    case flow(Flow)

    /// Whose routing the value follows (nil: the system's).
    var routingUser: UInt32? {
        switch self {
        case .path(let parameters): parameters.routingUser
        case .flow(let flow): flow.parameters.routingUser
        }
    }
}

/// The value a subscriber is sent, compared to decide whether anything changed for it.
enum Published: Sendable, Hashable {
    case path(Path)
    case flow(FlowStatus)
}

/// Something that receives every change of what it watches: a Varlink connection streaming WatchPath or
/// WatchFlow.
protocol Subscriber: AnyObject, Sendable {
    /// What it watches; fixed for its lifetime.
    var interest: Interest { get }
    /// Called outside the hub's lock, from the thread that made the change.
    func deliver(_ update: Update)
}

/// A change ready to send: the value, its encoded streaming reply, and a generation that only grows, so a
/// subscriber can drop an update older than one it already sent. A class: one change reaches a thousand
/// subscribers through the fan-out's queue, and passing a reference costs one retain where the value's fields
/// cost several.
final class Update: Sendable {
    let generation: UInt64
    let value: Published
    /// Made once per change and shared by every subscriber's write.
    let streamedReply: [UInt8]

    init(generation: UInt64, value: Published, streamedReply: [UInt8]) {
        self.generation = generation
        self.value = value
        self.streamedReply = streamedReply
    }
}
