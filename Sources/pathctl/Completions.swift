// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import PathMonitor

#if canImport(Glibc)
    import Glibc
#endif

/// What the shell completes for arguments that name things on this machine: interface names from sysfs, network
/// keys from pathmond. swift-argument-parser's generated scripts call pathctl back for these as the user presses Tab.
enum Completions {
    /// Interface names, for verbs that take an interface.
    static let interface = CompletionKind.custom { _, _, prefix in
        interfaceNames().filter { $0.hasPrefix(prefix) }
    }

    /// Network keys as `pathctl networks` lists them, for verbs that take a key.
    static let networkKey = CompletionKind.custom { words, _, prefix in
        networkKeys(socket: socket(in: words)).filter { $0.hasPrefix(prefix) }
    }

    /// A network key or an interface (`pathctl name TARGET`).
    static let networkKeyOrInterface = CompletionKind.custom { words, _, prefix in
        (interfaceNames() + networkKeys(socket: socket(in: words))).filter { $0.hasPrefix(prefix) }
    }

    /// The names in `directory` (sysfs lists every interface of this network namespace there), sorted.
    static func interfaceNames(directory: String = "/sys/class/net") -> [String] {
        guard let stream = opendir(directory) else { return [] }
        defer { closedir(stream) }
        var names: [String] = []
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { bytes in
                String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names.sorted()
    }

    /// The keys pathmond knows; none when it cannot be reached (completion must never fail loudly).
    static func networkKeys(socket: String) -> [String] {
        guard let connection = try? PathmondConnection(socketPath: socket) else { return [] }
        defer { connection.close() }
        return ((try? connection.networks()) ?? []).map(\.key).sorted()
    }

    /// The socket the command line being completed names (`--socket PATH` or `--socket=PATH`), else the one pathctl
    /// would use.
    static func socket(in words: [String]) -> String {
        for (index, word) in words.enumerated() {
            if word.hasPrefix("--socket=") { return String(word.dropFirst("--socket=".count)) }
            if word == "--socket", index + 1 < words.count { return words[index + 1] }
        }
        return ConnectionOptions.environmentSocket ?? PathmondConnection.defaultSocketPath
    }
}
