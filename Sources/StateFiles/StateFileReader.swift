// SPDX-License-Identifier: Apache-2.0
import SystemPackage

/// Reads a state file the daemon trusts with its policy, refusing anything that is not plainly a regular file of
/// reasonable size: opened without following a symbolic link (one to another root-only file would serve that
/// file's contents to every user), without blocking (a FIFO would hang the daemon before it serves), and read no
/// further than the bound (a link to /dev/zero, or a huge file, would take all memory). The configuration file is read
/// the same way, except that it may be a symbolic link (administrators link configuration files; only root writes
/// /etc).
public enum StateFileReader {
    /// Why the file at a path was not read; `ENOENT` means there is none.
    public enum Refusal: Error, Sendable, Hashable, CustomStringConvertible {
        /// A system call failed with this errno.
        case system(Errno)
        /// A symbolic link, whatever it points at.
        case symbolicLink
        /// Not a regular file: a FIFO, a directory, a device, a socket. Names the kind.
        case notRegularFile(String)
        /// Larger than the bound: the size fstat gave (or the bound, when the file grew while being read).
        case tooLarge(size: Int64, limit: Int)

        public var description: String {
            switch self {
            case .system(let errno): return errno.description
            case .symbolicLink: return "a symbolic link"
            case .notRegularFile(let kind): return "\(kind), not a regular file"
            case .tooLarge(let size, let limit): return "\(size) bytes, more than the \(limit) allowed"
            }
        }
    }

    /// The whole file at `path`, at most `limit` bytes.
    public static func read(_ path: String, limit: Int, followingSymbolicLinks: Bool = false) throws(Refusal) -> [UInt8]
    {
        let descriptor: FileDescriptor
        let options: FileDescriptor.OpenOptions =
            followingSymbolicLinks ? [.nonBlocking, .closeOnExec] : [.noFollow, .nonBlocking, .closeOnExec]
        do {
            descriptor = try FileDescriptor.open(FilePath(path), .readOnly, options: options, retryOnInterrupt: true)
        } catch {
            let number = (error as? Errno) ?? .ioError
            // O_NOFOLLOW fails a final symbolic link with ELOOP; say what it was rather than the errno's words.
            if number == .tooManySymbolicLinkLevels { throw .symbolicLink }
            throw .system(number)
        }
        defer { try? descriptor.close() }
        let status: Stat
        do {
            status = try descriptor.stat()
        } catch {
            throw .system(error)
        }
        guard status.type == .regular else { throw .notRegularFile(Self.name(of: status.type)) }
        guard status.size <= Int64(limit) else { throw .tooLarge(size: status.size, limit: limit) }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(Int(status.size))
        var chunk = [UInt8](repeating: 0, count: 16_384)
        while true {
            let count: Int
            do {
                count = try chunk.withUnsafeMutableBytes { try descriptor.read(into: $0, retryOnInterrupt: true) }
            } catch {
                throw .system((error as? Errno) ?? .ioError)
            }
            if count == 0 { return bytes }
            // The file may grow after fstat: the bound holds for what is read, not only for what was announced.
            guard bytes.count + count <= limit else { throw .tooLarge(size: Int64(bytes.count + count), limit: limit) }
            bytes += chunk[..<count]
        }
    }

    /// The kind of a file that is not a regular one, in words.
    static func name(of type: FileType) -> String {
        switch type {
        case .directory: return "a directory"
        case .fifo: return "a FIFO"
        case .characterSpecial: return "a character device"
        case .blockSpecial: return "a block device"
        case .socket: return "a socket"
        case .symbolicLink: return "a symbolic link"
        default: return "not a regular file"
        }
    }
}
