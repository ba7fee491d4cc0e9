// SPDX-License-Identifier: Apache-2.0
import PathModel

/// Why a portal's API gave no usable answer, as the probe tells pathmond: what kind of failure, and the words for the
/// journal. Every kind may pass later (a portal not up yet, a reset, a bad answer fixed), so pathmond asks again
/// after a backoff.
public struct PortalAPIFailure: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// libcurl's own words: no connection, a name not resolved, a certificate that does not verify, a reset.
        case transfer
        /// The exchange took longer than the probe allows.
        case timedOut
        /// The answer was larger than the probe reads.
        case tooLarge
        /// A redirect, which is never followed.
        case redirect
        /// Another HTTP status than 200.
        case httpStatus
        /// Not RFC 8908's media type.
        case wrongContentType
        /// The body was not an RFC 8908 answer.
        case invalidAnswer
    }

    public var kind: Kind
    public var detail: String

    /// At most 1,024 characters of `detail` are kept: a redirect's target is the portal's to choose, and the reply
    /// must fit the probe's frame.
    public init(_ kind: Kind, _ detail: String) {
        self.kind = kind
        self.detail = String(detail.prefix(1_024))
    }

    public var description: String { detail }

    public static func transfer(_ reason: String) -> Self { Self(.transfer, "no answer: \(reason)") }
    public static func timedOut(_ limit: Duration) -> Self { Self(.timedOut, "no answer within \(limit)") }
    public static func tooLarge(limit: Int) -> Self { Self(.tooLarge, "the answer is larger than \(limit) bytes") }
    public static func redirect(status: Int, location: String?) -> Self {
        Self(.redirect, "a redirect (HTTP \(status) to \(location ?? "nowhere")), not followed")
    }
    public static func httpStatus(_ status: Int) -> Self { Self(.httpStatus, "HTTP status \(status)") }
    public static func wrongContentType(_ type: String?) -> Self {
        Self(.wrongContentType, "content type \(type ?? "missing"), not \(CaptivePortalAPIStatus.mediaType)")
    }
    public static func invalidAnswer(_ error: CaptivePortalAPIError) -> Self {
        Self(.invalidAnswer, "not an RFC 8908 answer: \(error)")
    }
}
