// SPDX-License-Identifier: Apache-2.0
/// What a captive portal's API (RFC 8908) answered: whether the network holds its user, and for how much longer the
/// session it granted lasts. Read from the API's JSON by NetworkHints (`parse(_:)`), which fetches it.
public struct CaptivePortalAPIStatus: Sendable, Hashable {
    /// RFC 8908's `captive`: true while the user must still visit the portal.
    public var isCaptive: Bool
    /// `seconds-remaining`: how long the session lasts, as of the answer (nil: the API did not say).
    public var secondsRemaining: Int?
    /// `bytes-remaining`: how much traffic the session still allows (nil: the API did not say).
    public var bytesRemaining: Int?
    /// `user-portal-url`: the page where the user signs in; kept only when it is an https URI (RFC 8908 section 5).
    public var userPortalURL: String?
    /// `venue-info-url`: a page about the venue; kept only when it is a plausible URI.
    public var venueInfoURL: String?

    public init(
        isCaptive: Bool, secondsRemaining: Int? = nil, bytesRemaining: Int? = nil, userPortalURL: String? = nil,
        venueInfoURL: String? = nil
    ) {
        self.isCaptive = isCaptive
        self.secondsRemaining = secondsRemaining
        self.bytesRemaining = bytesRemaining
        self.userPortalURL = userPortalURL
        self.venueInfoURL = venueInfoURL
    }

    /// RFC 8908's media type for the API's answers.
    public static let mediaType = "application/captive+json"
}
