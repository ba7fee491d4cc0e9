// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
    import Glibc
#endif

/// The few POSIX calls the store makes, each failure turned into a `PolicyStoreError` naming the path. Interrupted
/// calls are retried: a signal must not turn into a lost write.
public enum FileSystem {
    /// Writes `bytes` to a new file `path` (it must not exist), mode 0644 whatever the umask, and flushes it to disk.
    static func writeNewFile(_ path: String, _ bytes: [UInt8]) throws(PolicyStoreError) {
        let fd = try open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode: 0o644)
        var closed = false
        defer { if !closed { _ = close(fd) } }
        guard fchmod(fd, 0o644) == 0 else { throw .system(.write, path: path, errno: Glibc.errno) }
        var written = 0
        while written < bytes.count {
            let count = bytes[written...].withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            if count < 0 {
                if Glibc.errno == EINTR { continue }
                throw .system(.write, path: path, errno: Glibc.errno)
            }
            written += count
        }
        guard fsync(fd) == 0 else { throw .system(.fsync, path: path, errno: Glibc.errno) }
        closed = true
        // After a successful fsync, close can still report a deferred write error (NFS); it counts.
        guard close(fd) == 0 else { throw .system(.write, path: path, errno: Glibc.errno) }
    }

    /// Flushes a directory's entries (a rename, a new file) to disk.
    static func syncDirectory(_ path: String) throws(PolicyStoreError) {
        let fd = try open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        defer { _ = close(fd) }
        guard fsync(fd) == 0 else { throw .system(.fsync, path: path, errno: Glibc.errno) }
    }

    static func rename(_ source: String, over destination: String) throws(PolicyStoreError) {
        guard Glibc.rename(source, destination) == 0 else { throw .system(.rename, path: source, errno: Glibc.errno) }
    }

    /// Gives `path` the new name `destination` without ever replacing an existing file there: a hard link fails
    /// if the name is taken. Where links are impossible (a directory, some file systems) a rename follows a check
    /// that the name is free; only pathmond creates such names, so nothing races the check.
    static func move(_ path: String, toFreshName destination: String) throws(PolicyStoreError) {
        if link(path, destination) == 0 {
            guard unlink(path) == 0 else { throw .system(.remove, path: path, errno: Glibc.errno) }
            return
        }
        let linkError = Glibc.errno
        // A taken name is reported on the name, so the caller can try the next one.
        if linkError == EEXIST { throw .system(.link, path: destination, errno: EEXIST) }
        guard [EPERM, EXDEV, EMLINK, ENOTSUP].contains(linkError) else {
            throw .system(.link, path: path, errno: linkError)
        }
        guard !exists(destination) else { throw .system(.link, path: destination, errno: EEXIST) }
        try rename(path, over: destination)
    }

    static func exists(_ path: String) -> Bool {
        var status = stat()
        return lstat(path, &status) == 0
    }

    static func remove(_ path: String) throws(PolicyStoreError) {
        guard unlink(path) == 0 || Glibc.errno == ENOENT else { throw .system(.remove, path: path, errno: Glibc.errno) }
    }

    /// Creates `path` and any missing parents (0755), flushing each new entry into its parent.
    static func createDirectories(_ path: String) throws(PolicyStoreError) {
        var status = stat()
        if stat(path, &status) == 0 { return }
        let parent = parentDirectory(of: path)
        if parent != path { try createDirectories(parent) }
        guard mkdir(path, 0o755) == 0 || Glibc.errno == EEXIST else {
            throw .system(.createDirectory, path: path, errno: Glibc.errno)
        }
        try syncDirectory(parent)
    }

    /// The names in a directory, except "." and ".."; `ENOENT` when it does not exist.
    static func names(in path: String) throws(PolicyStoreError) -> [String] {
        guard let directory = opendir(path) else { throw .system(.listDirectory, path: path, errno: Glibc.errno) }
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

    static func parentDirectory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    /// The current UTC time as 20260102T030405Z, for names that sort by age: the policy file and the daemon's
    /// history file are set aside under such names when they cannot be read.
    public static func timestamp() -> String {
        var now = time(nil)
        var parts = tm()
        gmtime_r(&now, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(parts.tm_year + 1900)\(two(parts.tm_mon + 1))\(two(parts.tm_mday))T"
            + "\(two(parts.tm_hour))\(two(parts.tm_min))\(two(parts.tm_sec))Z"
    }

    private static func open(_ path: String, _ flags: Int32, mode: mode_t = 0) throws(PolicyStoreError) -> Int32 {
        while true {
            let fd = Glibc.open(path, flags, mode)
            if fd >= 0 { return fd }
            if Glibc.errno != EINTR { throw .system(.open, path: path, errno: Glibc.errno) }
        }
    }
}
