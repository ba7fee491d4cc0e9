// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
    import Glibc
#endif

/// The directory operations state files need (swift-system has none of them), each failure turned into a
/// `StateFileError` naming the path. Interrupted calls are retried.
public enum FileSystem {
    /// Flushes a directory's entries (a rename, a new file, a link) to disk: the one directory sync of the layer.
    public static func syncDirectory(_ path: String) throws(StateFileError) {
        let descriptor = try open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        defer { _ = close(descriptor) }
        guard fsync(descriptor) == 0 else { throw StateFileError(.fsync, path: path, errno: Glibc.errno) }
    }

    /// Renames `source` over `destination`, replacing what is there.
    public static func rename(_ source: String, over destination: String) throws(StateFileError) {
        guard Glibc.rename(source, destination) == 0 else {
            throw StateFileError(.rename, path: source, errno: Glibc.errno)
        }
    }

    /// Gives `path` the new name `destination` without ever replacing an existing file there: a hard link fails
    /// if the name is taken. Where links are impossible (a directory, some file systems) a rename follows a check
    /// that the name is free; only pathmond creates such names, so nothing races the check.
    public static func move(_ path: String, toFreshName destination: String) throws(StateFileError) {
        if link(path, destination) == 0 {
            guard unlink(path) == 0 else { throw StateFileError(.remove, path: path, errno: Glibc.errno) }
            return
        }
        let linkError = Glibc.errno
        // A taken name is reported on the name, so the caller can try the next one.
        if linkError == EEXIST { throw StateFileError(.link, path: destination, errno: EEXIST) }
        guard [EPERM, EXDEV, EMLINK, ENOTSUP].contains(linkError) else {
            throw StateFileError(.link, path: path, errno: linkError)
        }
        guard !exists(destination) else { throw StateFileError(.link, path: destination, errno: EEXIST) }
        try rename(path, over: destination)
    }

    /// Whether anything (a symbolic link included, dangling or not) has this name.
    public static func exists(_ path: String) -> Bool {
        var status = stat()
        return lstat(path, &status) == 0
    }

    /// Removes a file; one already gone is not an error.
    public static func remove(_ path: String) throws(StateFileError) {
        guard unlink(path) == 0 || Glibc.errno == ENOENT else {
            throw StateFileError(.remove, path: path, errno: Glibc.errno)
        }
    }

    /// Creates `path` and any missing parents with `mode`, flushing each new entry into its parent.
    public static func createDirectories(_ path: String, mode: mode_t = 0o755) throws(StateFileError) {
        var status = stat()
        if stat(path, &status) == 0 { return }
        let parent = parentDirectory(of: path)
        if parent != path { try createDirectories(parent, mode: mode) }
        guard mkdir(path, mode) == 0 || Glibc.errno == EEXIST else {
            throw StateFileError(.createDirectory, path: path, errno: Glibc.errno)
        }
        try syncDirectory(parent)
    }

    /// The names in a directory, except "." and ".."; `ENOENT` when it does not exist.
    public static func names(in path: String) throws(StateFileError) -> [String] {
        guard let directory = opendir(path) else {
            throw StateFileError(.listDirectory, path: path, errno: Glibc.errno)
        }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    /// The directory a path names its file in: "." for a bare name, "/" for a file at the root.
    public static func parentDirectory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    /// A path's directory and last component.
    static func split(_ path: String) -> (directory: String, name: String) {
        let name = path.lastIndex(of: "/").map { String(path[path.index(after: $0)...]) } ?? path
        return (parentDirectory(of: path), name)
    }

    /// The current UTC time as 20260102T030405Z, for names that sort by age: damaged state files are set aside
    /// under such names.
    public static func timestamp() -> String {
        var now = time(nil)
        var parts = tm()
        gmtime_r(&now, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(parts.tm_year + 1900)\(two(parts.tm_mon + 1))\(two(parts.tm_mday))T"
            + "\(two(parts.tm_hour))\(two(parts.tm_min))\(two(parts.tm_sec))Z"
    }

    private static func open(_ path: String, _ flags: Int32) throws(StateFileError) -> Int32 {
        while true {
            let descriptor = Glibc.open(path, flags)
            if descriptor >= 0 { return descriptor }
            if Glibc.errno != EINTR { throw StateFileError(.open, path: path, errno: Glibc.errno) }
        }
    }
}
