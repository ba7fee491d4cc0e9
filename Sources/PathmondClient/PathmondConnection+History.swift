// SPDX-License-Identifier: Apache-2.0
import PathModel
import PathProtocol

extension PathmondConnection {
    /// io.pathmond.GetHistory: the stored path changes a query selects, oldest first.
    public func history(_ query: PathHistoryQuery = PathHistoryQuery()) throws(PathmondClientError)
        -> [WireHistoryEntry]
    {
        try historyReply(query).entries
    }

    /// io.pathmond.GetHistory's whole reply: the entries, and whether older ones it selects were left out (a history
    /// too large for one message holds the newest that fit).
    public func historyReply(_ query: PathHistoryQuery = PathHistoryQuery()) throws(PathmondClientError)
        -> Methods.HistoryReply
    {
        try call(Methods.getHistory, Self.parameters(query))
    }

    /// io.pathmond.GetHistory with "more": calls `handler` with the stored entries, then with each new one as it
    /// is recorded, until the handler returns false or the connection ends (which throws `.disconnected`).
    public func followHistory(
        _ query: PathHistoryQuery = PathHistoryQuery(), _ handler: ([WireHistoryEntry]) -> Bool
    ) throws(PathmondClientError) {
        try stream(Methods.getHistory, Self.parameters(query)) { reply in
            handler(reply.entries)
        }
    }

    private static func parameters(_ query: PathHistoryQuery) -> Methods.HistoryParameters {
        Methods.HistoryParameters(since: query.sinceWallMicroseconds, interface: query.interface, limit: query.limit)
    }
}
