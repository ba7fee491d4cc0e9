// SPDX-License-Identifier: Apache-2.0
import SystemPackage

#if canImport(Glibc)
    import Glibc
#endif

/// Writes state files so that a crash, a kill or a power cut leaves either the old contents or the new, never a
/// part: the policy, the history, the metrics textfile, the dispatcher's deferrals and the SIM-key secret all go
/// through here. Interrupted calls are retried: a signal must not turn into a lost write.
public enum StateFileWriter {
    /// Replaces the file at `path` whole: the bytes go to a fresh temporary file in the same directory, created
    /// exclusively with `mode` (whatever the umask), which is renamed over `path`, so a reader sees the old file or
    /// the new one (node_exporter's textfile collector and our own loaders rely on it).
    ///
    /// `durable`: the data reaches the disk before the rename, and the rename before this returns, so that appends
    /// made to the new file afterwards are not lost with a directory entry that still names the old one. Without
    /// it (the metrics textfile, rewritten every second and rebuilt at start) nothing is synced.
    public static func replace(
        _ path: String, with bytes: [UInt8], mode: mode_t, durable: Bool, temporaryName: TemporaryName? = nil
    ) throws(StateFileError) {
        let (directory, name) = FileSystem.split(path)
        let naming = temporaryName ?? .hidden(for: name)
        // A fresh name, created exclusively: the directory may be writable by others (node_exporter's), and a
        // predictable name opened with O_TRUNC would let them plant a link there and have pathmond truncate or
        // fill the file it points at. 64 random bits collide only with a name planted on purpose: a few tries.
        var attempt = 0
        while true {
            let temporary = (directory == "/" ? "" : directory) + "/" + naming.make()
            do throws(StateFileError) {
                try createNew(temporary, with: bytes, mode: mode, durable: durable)
            } catch  where error.operation == .create && error.errno == EEXIST && attempt < 8 {
                attempt += 1
                continue
            }
            do throws(StateFileError) {
                try FileSystem.rename(temporary, over: path)
            } catch {
                _ = unlink(temporary)
                throw error
            }
            if durable { try FileSystem.syncDirectory(directory) }
            return
        }
    }

    /// Writes `bytes` to a new file `path` (failing with EEXIST if the name is taken, a symbolic link included),
    /// with `mode` whatever the umask; with `durable`, flushed to disk. A failed write leaves no file behind.
    public static func createNew(_ path: String, with bytes: [UInt8], mode: mode_t, durable: Bool)
        throws(StateFileError)
    {
        let descriptor: FileDescriptor
        do {
            descriptor = try FileDescriptor.open(
                FilePath(path), .writeOnly, options: [.create, .exclusiveCreate, .noFollow, .closeOnExec],
                permissions: FilePermissions(rawValue: mode), retryOnInterrupt: true)
        } catch {
            throw StateFileError(.create, path: path, errno: Self.number(error))
        }
        var isOpen = true
        do throws(StateFileError) {
            // The umask narrowed the mode at creation; the mode must be ours.
            guard fchmod(descriptor.rawValue, mode) == 0 else { throw StateFileError(.write, path: path, errno: errno) }
            do {
                try writeAll(bytes, to: descriptor)
            } catch {
                throw StateFileError(.write, path: path, errno: error.rawValue)
            }
            if durable { try sync(descriptor, path: path) }
            isOpen = false
            // After a successful fsync, close can still report a deferred write error (NFS); it counts.
            do {
                try descriptor.close()
            } catch {
                throw StateFileError(.write, path: path, errno: Self.number(error))
            }
        } catch {
            if isOpen { try? descriptor.close() }
            _ = unlink(path)
            throw error
        }
    }

    /// Adds `bytes` at the end of an existing file in one write with O_APPEND, then fdatasync. A missing file fails
    /// (ENOENT). A failed write is cut back off, so the file keeps ending where it did if it can.
    public static func append(_ bytes: [UInt8], to path: String) throws(StateFileError) {
        // withUnsafeBytes rethrows untyped: the typed error is carried out of it.
        var failure: StateFileError?
        bytes.withUnsafeBytes { bytes in
            do throws(StateFileError) { try append(bytes, to: path) } catch { failure = error }
        }
        if let failure { throw failure }
    }

    /// `append` of bytes where they are (the history's lines, in its writer's buffer: not copied into an array).
    public static func append(_ bytes: UnsafeRawBufferPointer, to path: String) throws(StateFileError) {
        let descriptor: FileDescriptor
        do {
            // Opened by its C string: a FilePath parses the path into components, 2,000 instructions per append
            // (the history's, once a second while the path changes).
            descriptor = try path.withCString {
                try FileDescriptor.open(
                    $0, .writeOnly, options: [.append, .noFollow, .closeOnExec], retryOnInterrupt: true)
            }
        } catch {
            throw StateFileError(.open, path: path, errno: Self.number(error))
        }
        defer { try? descriptor.close() }
        let size: Int64
        do {
            size = try descriptor.stat().size
        } catch {
            throw StateFileError(.inspect, path: path, errno: error.rawValue)
        }
        do {
            try writeAll(bytes, to: descriptor)
        } catch {
            _ = ftruncate(descriptor.rawValue, off_t(size))
            throw StateFileError(.append, path: path, errno: error.rawValue)
        }
        guard fdatasync(descriptor.rawValue) == 0 else { throw StateFileError(.fsync, path: path, errno: errno) }
    }

    /// Writes every byte, going on after a short write or an interrupted call. A write of nothing for a non-empty
    /// buffer is EIO: it would otherwise loop for ever.
    public static func writeAll(_ bytes: [UInt8], to descriptor: FileDescriptor) throws(Errno) {
        var failure: Errno?
        bytes.withUnsafeBytes { bytes in
            do throws(Errno) { try writeAll(bytes, to: descriptor) } catch { failure = error }
        }
        if let failure { throw failure }
    }

    /// `writeAll` of bytes where they are.
    public static func writeAll(_ bytes: UnsafeRawBufferPointer, to descriptor: FileDescriptor) throws(Errno) {
        var written = 0
        while written < bytes.count {
            let count: Int
            do {
                count = try descriptor.write(
                    UnsafeRawBufferPointer(rebasing: bytes[written...]), retryOnInterrupt: true)
            } catch {
                throw (error as? Errno) ?? .ioError
            }
            guard count > 0 else { throw .ioError }
            written += count
        }
    }

    private static func sync(_ descriptor: FileDescriptor, path: String) throws(StateFileError) {
        guard fsync(descriptor.rawValue) == 0 else { throw StateFileError(.fsync, path: path, errno: errno) }
    }

    static func number(_ error: any Error) -> Int32 { ((error as? Errno) ?? .ioError).rawValue }
}

/// How the temporary file of a replacement is named in the target's directory: a prefix, 64 random bits in base 36,
/// a suffix. A store that clears what crashed writes left behind looks for its own prefix.
public struct TemporaryName: Sendable, Hashable {
    public var prefix: String
    public var suffix: String

    public init(prefix: String, suffix: String = "") {
        self.prefix = prefix
        self.suffix = suffix
    }

    /// ".NAME.<random>.tmp": hidden from `ls`, and matched by no glob such as `*.prom` that a reader of the
    /// directory uses.
    public static func hidden(for name: String) -> TemporaryName {
        TemporaryName(prefix: "." + name + ".", suffix: ".tmp")
    }

    func make() -> String { prefix + String(UInt64.random(in: 0...UInt64.max), radix: 36) + suffix }
}
