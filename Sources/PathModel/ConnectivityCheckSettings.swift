// SPDX-License-Identifier: Apache-2.0
/// pathmond's own connectivity check (`[connectivity]`): an HTTP GET of `uri` out of each usable interface, whose
/// answer says whether the network reaches the internet (the expected answer), holds its users at a captive portal
/// (a redirect or another answer) or reaches nothing (no answer). NetworkManager's and Android's check, for hosts
/// where nothing else checks.
public struct ConnectivityCheckSettings: Sendable, Hashable {
    /// `enabled`; nil (not set): the check runs unless NetworkManager's own does (`runs(besideNetworkManager:)`).
    public var enabled: Bool?
    /// `uri`: what is asked, an http or https URL.
    public var uri: String
    /// `response`: the text the answer's body must start with; empty: the answer must be HTTP 204 (Android's
    /// generate_204), or a 200 with an empty body.
    public var response: String
    /// `interval`: how long an answer stands before the next check.
    public var interval: Duration

    /// What network-manager-config-connectivity-debian configures NetworkManager to ask: Debian's own server, so a
    /// Debian host with pathmond sends what it would send with that package.
    public static let defaultURI = "http://network-test.debian.org/nm"
    public static let defaultResponse = "NetworkManager is online"
    /// NetworkManager's default interval.
    public static let defaultInterval = Duration.seconds(300)
    /// The bounds `interval` may take: a second (tests) to a day.
    public static let intervals = Duration.seconds(1)...Duration.seconds(86_400)
    /// The longest `uri` and `response` taken: a URL a log line can show, and an answer's first line.
    public static let maximumURILength = 2_048
    public static let maximumResponseLength = 1_024

    public init(
        enabled: Bool? = nil, uri: String = defaultURI, response: String = defaultResponse,
        interval: Duration = defaultInterval
    ) {
        self.enabled = enabled
        self.uri = uri
        self.response = response
        self.interval = interval
    }

    /// Whether pathmond checks: as configured, or, when not said, only while NetworkManager's own check is not
    /// running (two checks would ask twice, and NetworkManager's already speaks for its devices).
    public func runs(besideNetworkManager networkManagerChecks: Bool) -> Bool {
        enabled ?? !networkManagerChecks
    }

    /// Whether `uri` can be asked: http or https, then 1 to 2,048 bytes of visible ASCII with a host after the
    /// scheme (a URL a request line, a log line and a terminal carry as it is).
    public static func isValidURI(_ uri: String) -> Bool {
        let lower = uri.lowercased()
        guard let scheme = ["http://", "https://"].first(where: { lower.hasPrefix($0) }) else { return false }
        return uri.utf8.count <= maximumURILength && uri.utf8.count > scheme.utf8.count
            && uri.utf8.allSatisfy { (0x21...0x7e).contains($0) }
    }
}
