// SPDX-License-Identifier: Apache-2.0
import PathModel

/// io.pathmond.CaptivePortalAPI on the wire: what a portal's API (RFC 8908) answered when pathmond asked it.
public struct WireCaptivePortalAPI: Codable, Sendable, Hashable {
    public var captive: Bool
    public var secondsRemaining: Int?
    public var bytesRemaining: Int?
    public var userPortalURL: String?
    public var venueInfoURL: String?

    public init(_ status: CaptivePortalAPIStatus) {
        captive = status.isCaptive
        secondsRemaining = status.secondsRemaining
        bytesRemaining = status.bytesRemaining
        userPortalURL = status.userPortalURL
        venueInfoURL = status.venueInfoURL
    }

    /// The model value.
    public var status: CaptivePortalAPIStatus {
        CaptivePortalAPIStatus(
            isCaptive: captive, secondsRemaining: secondsRemaining, bytesRemaining: bytesRemaining,
            userPortalURL: userPortalURL, venueInfoURL: venueInfoURL)
    }
}

extension StreamedReplyWriter {
    /// A captive-portal API object, keys in sorted order as VarlinkCodec writes them (byte order).
    static func write(_ api: WireCaptivePortalAPI, to out: inout JSONBytes) {
        out.raw("{")
        if let bytes = api.bytesRemaining {
            out.raw("\"bytesRemaining\":")
            out.integer(bytes)
            out.raw(",")
        }
        out.raw("\"captive\":")
        out.bool(api.captive)
        if let seconds = api.secondsRemaining {
            out.raw(",\"secondsRemaining\":")
            out.integer(seconds)
        }
        if let url = api.userPortalURL {
            out.raw(",\"userPortalURL\":")
            out.quoted(url)
        }
        if let url = api.venueInfoURL {
            out.raw(",\"venueInfoURL\":")
            out.quoted(url)
        }
        out.raw("}")
    }
}
