// SPDX-License-Identifier: Apache-2.0
/// Whether a network holds its users behind a captive portal (a hotel's or a train's sign-in page), as Android's
/// CAPTIVE_PORTAL and GLib's G_NETWORK_CONNECTIVITY_PORTAL say it.
public enum CaptivePortal: String, Sendable, HashedByCase, CaseIterable {
    /// Nothing said either way; or the network announced a portal API (RFC 8910) but nothing checked it yet.
    case unknown
    /// Traffic is held at a portal until the user accepts it (NetworkManager's connectivity check found one).
    case captive
    /// No portal stands in the way: NetworkManager's connectivity check passed, or the network said so (RFC 8910's
    /// `urn:ietf:params:capport:unrestricted`).
    case open
    /// Connected, but pathmond's own connectivity check (`[connectivity]`) got no answer out of this interface: the
    /// network reaches no further than its neighbours (GLib's G_NETWORK_CONNECTIVITY_LIMITED). Says nothing about
    /// cost: only `captive` holds the system policy back.
    case limited
}

/// What the sources say about one interface's captive portal, before the evaluator combines it.
public struct CaptivePortalHint: Sendable, Hashable {
    /// The state a source established (NetworkManager's per-device connectivity); unknown when none did.
    public var state: CaptivePortal
    /// The portal's API URI as the network announced it (RFC 8910: DHCPv4 option 114, DHCPv6 option 103, the
    /// router advertisement's option 37), as the DHCP client recorded it.
    public var uri: String?
    /// What the portal's API (RFC 8908) answered at `uri`, when pathmond was configured to ask and it answered.
    public var api: CaptivePortalAPIStatus?
    /// What pathmond's own connectivity check (`[connectivity]`) found out of this interface; unknown when it did
    /// not check (off, NetworkManager's check runs, no answer yet).
    public var checked: CaptivePortal

    public init(
        state: CaptivePortal = .unknown, uri: String? = nil, api: CaptivePortalAPIStatus? = nil,
        checked: CaptivePortal = .unknown
    ) {
        self.state = state
        self.uri = uri
        self.api = api
        self.checked = checked
    }

    /// RFC 8910 section 2: the value a network sends to say it has no captive portal.
    public static let unrestricted = "urn:ietf:params:capport:unrestricted"

    /// The longest URI kept: RFC 8910 values fit a DHCPv4 option (255 bytes); a longer one is not from a network.
    public static let maximumURILength = 255

    /// Whether `uri` can be a portal API URI worth showing: 1 to 255 bytes of visible ASCII (RFC 3986 URIs are
    /// ASCII), so a log line or terminal shows it as it is.
    public static func isValidURI(_ uri: String) -> Bool {
        (1...maximumURILength).contains(uri.utf8.count) && uri.utf8.allSatisfy { (0x21...0x7e).contains($0) }
    }

    /// The state and URI an interface shows: the unrestricted URN means open (and is no URI); an announced URI
    /// alone leaves the state unknown, since a portal already accepted still announces its API (RFC 8908's check,
    /// or NetworkManager's, tells). Who speaks, first to last: NetworkManager's check, the network's own words (the
    /// URN, the API's answer), pathmond's own check.
    public var resolved: (state: CaptivePortal, uri: String?) {
        guard let uri, Self.isValidURI(uri) else { return (state == .unknown ? checked : state, nil) }
        if uri == Self.unrestricted {
            // No portal, the network says; whether it reaches the internet is the check's to say.
            guard state == .unknown else { return (state, nil) }
            return (checked == .limited ? .limited : .open, nil)
        }
        // NetworkManager's check tried the internet itself; the API's answer only stands in where it did not.
        if state == .unknown, let api { return (api.isCaptive ? .captive : .open, uri) }
        return (state == .unknown ? checked : state, uri)
    }

    /// The API's answer, shown only beside the URI it came from (never for the unrestricted URN or a bad URI).
    public var resolvedAPI: CaptivePortalAPIStatus? {
        guard let uri, Self.isValidURI(uri), uri != Self.unrestricted else { return nil }
        return api
    }
}
