// SPDX-License-Identifier: Apache-2.0
import Logging
import PathModel
import StateFiles

#if canImport(Glibc)
    import Glibc
#endif

/// Reads the configuration file: the one named with --config, else /etc/pathmond.conf if it exists, else the
/// built-in rules. Used at start and on every reload, so both read the same file the same way.
package struct ConfigurationLoader: Sendable {
    /// The file named on the command line, if any: then it must exist.
    package let explicitPath: String?
    package init(explicitPath: String?) {
        self.explicitPath = explicitPath
    }

    package static let defaultPath = "/etc/pathmond.conf"
    /// Far more than any real configuration; the bound keeps a mistaken path from exhausting memory.
    package static let maximumSize = 1 << 20

    /// The file that would be read now, if any.
    package var path: String? {
        explicitPath ?? (access(Self.defaultPath, F_OK) == 0 ? Self.defaultPath : nil)
    }

    /// The configuration and its warnings (each prefixed with the file's path), or a sentence saying why the file
    /// cannot be used.
    package func load() throws(ConfigurationLoadError) -> (Configuration, [String]) {
        guard let path else { return (Configuration(), []) }
        let text: String
        do {
            // Not blocking on a FIFO, not reading /dev/zero for ever: a regular file of at most 1 MiB.
            text = String(
                decoding: try StateFileReader.read(path, limit: Self.maximumSize, followingSymbolicLinks: true),
                as: UTF8.self)
        } catch {
            throw ConfigurationLoadError(message: "cannot read the configuration file \(path): \(error)", file: path)
        }
        do {
            let configuration = try Configuration.parse(text)
            return (configuration, configuration.warnings.map { "\(path): \($0)" })
        } catch {
            // FILE:LINE: message, as compilers write it: editors and `journalctl -p err` readers jump to the line.
            throw ConfigurationLoadError(
                message: "\(path):\(error.line): \(error.message)", file: path, line: error.line)
        }
    }
}

/// Why the configuration cannot be used, in a sentence.
package struct ConfigurationLoadError: Error, CustomStringConvertible {
    package let message: String
    /// The file refused, and the line at fault if one is.
    package var file: String? = nil
    package var line: Int? = nil
    package var description: String { message }

    /// The journal record of the refusal: CONFIG_FILE= and CONFIG_LINE=, as systemd names them.
    package var journalMetadata: Logger.Metadata {
        JournalRecord.configurationRefused.metadata([
            .configFile: file, .configLine: line.map { "\($0)" },
            .cause: PathChangeCause.Kind.configuration.rawValue,
        ])
    }
}
