// SPDX-License-Identifier: Apache-2.0
/// Something the parser skipped without failing. Unknown names are warnings rather than errors so that a file
/// written for a newer daemon (one that knows `[policy]`, say) still loads on an older one.
public enum ConfigurationWarning: Sendable, Hashable, CustomStringConvertible {
    /// A section this version does not know; its keys are skipped with it.
    case unknownSection(line: Int, name: String)
    /// A key this version does not know, in a section it does know.
    case unknownKey(line: Int, section: String, key: String)
    /// An `[interface ...]` section that sets no field, so it changes nothing.
    case emptySection(line: Int, pattern: String)

    /// The 1-based line number the warning is about.
    public var line: Int {
        switch self {
        case .unknownSection(let line, _), .unknownKey(let line, _, _), .emptySection(let line, _):
            return line
        }
    }

    /// "line N: what was skipped".
    public var description: String {
        switch self {
        case .unknownSection(let line, let name):
            return "line \(line): unknown section [\(name)] ignored"
        case .unknownKey(let line, let section, let key):
            return "line \(line): unknown key \"\(key)\" in [\(section)] ignored"
        case .emptySection(let line, let pattern):
            return "line \(line): [interface \(pattern)] sets nothing"
        }
    }
}
