// SPDX-License-Identifier: Apache-2.0
/// The daemon's configuration file, parsed from its text (the daemon reads the file; the model does no I/O).
///
/// The format is INI, as systemd and NetworkManager files are written:
///
/// ```ini
/// # A comment starts with "#" or ";" at the start of a line or after whitespace.
/// [interface wwan-stick*]      # an interface name or a glob pattern: *, ?, [abc], [a-z], [!a]
/// type = cellular              # wired | wifi | cellular | other
/// expensive = true             # true | false | yes | no | 1 | 0 (any letter case)
/// network = wifi:HomeNet       # the network it is on, for devices whose identity cannot be read (and tests)
/// ultra-constrained = true     # a satellite terminal: hidden from clients that did not opt in (a boolean)
/// roaming-expensive = false    # roaming costs nothing more (the default: roaming is expensive)
///
/// [policy]
/// admin-group = pathmond       # members of this group may change policy (root always may)
///
/// [history]
/// entries = 1000               # path changes kept (1 to 100000)
///
/// [metrics]
/// textfile = /var/lib/prometheus/node-exporter/pathmond.prom   # an absolute path ending in .prom
///
/// [discretionary]
/// settle = 3s                  # how long the path must be cheap (online) before the system policy says so
/// grace = 30s                  # how long it must be expensive (offline) before the system policy says so
///
/// [networkmanager]
/// write-metered = true         # make NetworkManager's active connection say metered where pathmond finds the
///                              # path expensive or constrained (in memory only; on by default: where programs
///                              # read metered now, unattended-upgrades 2.13, snapd, Qt)
///
/// [captive-portal]
/// check-api = false            # ask the portal API the network announced (RFC 8908, HTTPS only; off by default)
/// ```
///
/// - Each `[interface PATTERN]` section becomes one ``InterfaceOverride``, in file order. Sections whose patterns
///   overlap are all kept: for each field, the first matching section that sets it wins (``Classifier``).
/// - `type = loopback` is refused: loopback is told from the kernel's flags and is never part of a path.
/// - Unknown sections and unknown keys are skipped with a ``ConfigurationWarning``, so that a file written for a
///   newer daemon still loads on an older one.
/// - Malformed lines, bad values, a missing pattern and a key set twice in one section fail with a
///   ``ConfigurationError`` that names the line.
///
/// `docs/configuration.md` documents the same format for administrators.
public struct Configuration: Sendable, Hashable {
    /// The `[interface ...]` sections, in the order the file lists them.
    public var overrides: [InterfaceOverride]
    /// What the parser skipped: unknown sections and keys, sections that set nothing.
    public var warnings: [ConfigurationWarning]
    /// The group whose members may change policy besides root (`[policy] admin-group`).
    public var adminGroup: String?
    /// How many path changes the history keeps (`[history] entries`); nil: ``PathHistory/defaultCapacity``.
    public var historyEntries: Int?
    /// Where to write Prometheus metrics for node_exporter's textfile collector (`[metrics] textfile`); nil: none.
    public var metricsTextfile: String?
    /// `[discretionary] settle`; nil: ``SystemPolicyGate/Timing/standard``'s.
    public var discretionarySettle: Duration?
    /// `[discretionary] grace`; nil: ``SystemPolicyGate/Timing/standard``'s.
    public var discretionaryGrace: Duration?
    /// `[networkmanager] write-metered`: pathmond's verdicts written through to NetworkManager's Metered; on unless
    /// the file turns it off (it does nothing where NetworkManager does not run).
    public var networkManagerWriteMetered: Bool
    /// `[captive-portal] check-api`: pathmond asks the captive-portal API a network announces (RFC 8908).
    public var captivePortalCheckAPI = false
    /// `[connectivity]`: pathmond's own connectivity check (an HTTP request per interface).
    public var connectivity = ConnectivityCheckSettings()
    /// `[usage] interval`: how often identified networks' interfaces are read; nil: the daemon's default (60 s).
    public var usageInterval: Duration?

    /// A configuration with the given overrides; the default is the built-in behaviour.
    public init(
        overrides: [InterfaceOverride] = [], warnings: [ConfigurationWarning] = [], adminGroup: String? = nil,
        historyEntries: Int? = nil, metricsTextfile: String? = nil, discretionarySettle: Duration? = nil,
        discretionaryGrace: Duration? = nil, networkManagerWriteMetered: Bool = true
    ) {
        self.overrides = overrides
        self.warnings = warnings
        self.adminGroup = adminGroup
        self.historyEntries = historyEntries
        self.metricsTextfile = metricsTextfile
        self.discretionarySettle = discretionarySettle
        self.discretionaryGrace = discretionaryGrace
        self.networkManagerWriteMetered = networkManagerWriteMetered
    }

    /// The system policy's settle and grace times (`[discretionary]`), the defaults where unset.
    public var systemPolicyTiming: SystemPolicyGate.Timing {
        SystemPolicyGate.Timing(
            settle: discretionarySettle ?? SystemPolicyGate.Timing.standard.settle,
            grace: discretionaryGrace ?? SystemPolicyGate.Timing.standard.grace)
    }

    /// The classifier these overrides describe.
    public var classifier: Classifier {
        Classifier(overrides: overrides)
    }

    /// Parses the text of a configuration file.
    ///
    /// - Throws: ``ConfigurationError`` for the first line that cannot be understood.
    public static func parse(_ text: String) throws(ConfigurationError) -> Configuration {
        var parser = ConfigurationParser()
        // Lines end at "\n" alone, as editors and `sed -n Np` count them: vertical tab, form feed, a lone CR,
        // NEL and U+2028 are characters within a line, so an error's line number is the one an editor shows.
        // (A CRLF file's CR is trailing whitespace, trimmed with the rest.)
        for (offset, line) in text.utf8.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
            .enumerated()
        {
            try parser.consume(Substring(line), number: offset + 1)
        }
        return parser.finish()
    }
}
