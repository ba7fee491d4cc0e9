// SPDX-License-Identifier: Apache-2.0
import PathModel

extension ClientConnection {
    /// Starts a GetHistory reply: the stored entries are written from the encoding every caller shares, a turn's
    /// share at a time as the socket takes them (`HistoryReplyCursor`). With "more", entries recorded meanwhile
    /// wait in the stream, which starts once the stored ones are all written.
    func startHistoryReply(_ query: PathHistoryQuery, follows: Bool) {
        guard case .answering = phase else { preconditionFailure("a history reply while the connection is \(phase)") }
        let stream = follows ? HistoryChannelStream(query: query, output: self, loop: shared.loop) : nil
        let encoded = shared.router.hub.history.encoded(follower: stream)
        let cursor = HistoryReplyCursor(history: encoded, query: query, continues: follows)
        phase = .writingHistory(cursor, then: stream.map(AfterHistoryReply.follow) ?? .nextCall)
        continueHistoryReply()
    }

    /// Writes the next part of a GetHistory reply, once older replies are out; when it is all written, the call
    /// is done: the next waiting call is answered, the history stream starts, or the last reply ends the
    /// connection.
    func continueHistoryReply() {
        guard case .writingHistory(let cursor, let after) = phase, output.isEmpty else { return }
        switch cursor.write(to: descriptor) {
        case .failed:
            close()
        case .blocked, .yielded:
            updateWatchedEvents()
        case .finished:
            switch after {
            case .nextCall:
                phase = .answering
                answerWaiting()
            case .follow(let stream):
                phase = .followingHistory(stream)
                stream.release()
                guard !phase.isClosed else { return }
                // Calls that came after the streaming one are refused: the connection is the stream's.
                if !waiting.isEmpty {
                    waiting.removeAll()
                    return refuseCallDuringStream()
                }
                updateWatchedEvents()
            case .lastReply(let bytes):
                phase = .closing
                closeOnceTaken(bytes)
            }
        }
    }
}
