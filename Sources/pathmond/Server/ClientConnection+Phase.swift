// SPDX-License-Identifier: Apache-2.0
extension ClientConnection {
    /// Where a connection stands, with what each phase holds (sd-varlink's `VarlinkState`): one value, so that a
    /// connection cannot be streaming and awaiting a reply at once, or closed with a stream still subscribed.
    ///
    /// Orthogonal to it, and kept beside it: whether the client takes its replies (`ConnectionOutput`), the calls
    /// waiting their turn (`WaitingCalls`), and the turn's share (`CallShare`).
    enum Phase {
        /// Calls are read and answered in order; those that come while the client leaves its replies unread wait.
        case answering
        /// A call's reply comes from the policy loop (a policy change); the calls after it wait.
        case awaitingReply
        /// A GetHistory reply is written from the shared encoding as the socket takes it; no other call is answered
        /// and nothing else is written meanwhile.
        case writingHistory(HistoryReplyCursor, then: AfterHistoryReply)
        /// WatchPath or WatchFlow: the connection is the subscription's until it closes, and the watch limit
        /// admitted its interest.
        case watching(ChannelSubscription)
        /// GetHistory with "more", once the stored entries are written: new entries stream until it closes.
        case followingHistory(HistoryChannelStream)
        /// A last reply waits for the client to take it; then the connection closes. Nothing more is read or
        /// answered.
        case closing
        /// The descriptor is closed and the connection's places are given back.
        case closed

        /// Whether the connection has begun to end: no call is read or answered any more.
        var isEnding: Bool {
            switch self {
            case .closing, .closed, .writingHistory(_, then: .lastReply): true
            case .answering, .awaitingReply, .writingHistory, .watching, .followingHistory: false
            }
        }

        var isClosed: Bool {
            if case .closed = self { true } else { false }
        }

        /// Whether a call streams on the connection (a GetHistory with "more" does from the moment it comes).
        var isStreaming: Bool {
            switch self {
            case .watching, .followingHistory, .writingHistory(_, then: .follow): true
            case .answering, .awaitingReply, .writingHistory, .closing, .closed: false
            }
        }

        var isWritingHistory: Bool {
            if case .writingHistory = self { true } else { false }
        }

        /// Whether a call may be handled now, once the client takes its replies: not while another call's reply is
        /// outstanding. A streaming connection handles a call by refusing it.
        var handlesCalls: Bool {
            switch self {
            case .answering, .watching, .followingHistory: true
            case .awaitingReply, .writingHistory, .closing, .closed: false
            }
        }

        /// Whether the client's calls are read: not while a GetHistory reply is written (the client reads that
        /// first), nor once the connection ends.
        var readsCalls: Bool {
            switch self {
            case .answering, .awaitingReply, .watching, .followingHistory: true
            case .writingHistory, .closing, .closed: false
            }
        }
    }

    /// What follows a GetHistory reply once it is written whole.
    enum AfterHistoryReply {
        /// The next call is answered.
        case nextCall
        /// The connection streams new entries ("more"); the stream holds them until then.
        case follow(HistoryChannelStream)
        /// A call broke the protocol meanwhile: this error is the connection's last reply, after the history's.
        case lastReply([UInt8])
    }
}
