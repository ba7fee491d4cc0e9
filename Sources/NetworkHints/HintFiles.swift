// SPDX-License-Identifier: Apache-2.0
import Glibc

/// The few file-system calls the hints need, each answering nil or empty on any failure: lease files and sysfs
/// entries come and go under our feet, and a hint that cannot be read is simply not a hint.
enum HintFiles {
    /// The contents of a regular file of at most `maximumSize` bytes; nil if missing, unreadable or larger (a
    /// lease file that big is not one we understand, and reading it whole would be a cost for nothing).
    static func read(_ path: String, maximumSize: Int = 1 << 20) -> [UInt8]? {
        path.withCString { read(path: $0, maximumSize: maximumSize) }
    }

    /// The same for a path already spelled as a C string.
    static func read(path: UnsafePointer<CChar>, maximumSize: Int = 1 << 20) -> [UInt8]? {
        let descriptor = openRegularFile(path)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        // No larger than the file may be: a 64-byte sysfs attribute (read on every carrier change) zeroed and
        // walked a 16 KiB array each time, 44,000 instructions per link flip.
        return withUnsafeTemporaryAllocation(byteCount: min(16 * 1024, maximumSize + 1), alignment: 1) { buffer in
            var contents: [UInt8] = []
            while true {
                guard let count = readSome(descriptor, into: buffer) else { return nil }
                if count == 0 { return contents }
                contents.append(contentsOf: UnsafeRawBufferPointer(rebasing: buffer[..<count]))
                if contents.count > maximumSize { return nil }
            }
        }
    }

    /// A small file read into `buffer`, where the caller holds it: its bytes, at most one fewer than the buffer
    /// holds; nil if missing, unreadable, not a regular file or larger. A sysfs attribute read on every carrier
    /// flip: an array made for each of its two files, and freed, was a tenth of the flip's hints (issue 41).
    static func read(path: UnsafePointer<CChar>, into buffer: UnsafeMutableRawBufferPointer) -> UnsafeRawBufferPointer?
    {
        let descriptor = openRegularFile(path)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var filled = 0
        while filled < buffer.count {
            guard let count = readSome(descriptor, into: UnsafeMutableRawBufferPointer(rebasing: buffer[filled...]))
            else { return nil }
            if count == 0 { return UnsafeRawBufferPointer(rebasing: buffer[..<filled]) }
            filled += count
        }
        // Filled to the last byte: the file may hold more than the caller takes.
        return nil
    }

    /// A descriptor of the regular file at `path`, or -1. Only regular files: a FIFO or device planted in a lease
    /// directory must not block or flood us.
    private static func openRegularFile(_ path: UnsafePointer<CChar>) -> Int32 {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard descriptor >= 0 else { return -1 }
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG else {
            close(descriptor)
            return -1
        }
        return descriptor
    }

    /// One read(2) into `buffer`, again if a signal interrupted it: the count read, nil on an error.
    private static func readSome(_ descriptor: Int32, into buffer: UnsafeMutableRawBufferPointer) -> Int? {
        while true {
            let count = Glibc.read(descriptor, buffer.baseAddress, buffer.count)
            if count >= 0 { return count }
            if errno != EINTR { return nil }
        }
    }

    /// A text file, decoded as UTF-8 with invalid bytes replaced.
    static func readText(_ path: String, maximumSize: Int = 1 << 20) -> String? {
        read(path, maximumSize: maximumSize).map { String(decoding: $0, as: UTF8.self) }
    }

    /// The names in a directory, without "." and ".."; empty if it is missing or unreadable.
    static func list(_ directory: String) -> [String] {
        guard let stream = opendir(directory) else { return [] }
        defer { closedir(stream) }
        var names: [String] = []
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names.sorted()
    }

    /// The canonical path of `path` with every symbolic link resolved; nil if some component is missing.
    static func canonicalPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// The current wall-clock time in seconds since the epoch, which dhclient's expiry dates are written in.
    static func now() -> Int64 {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return Int64(time.tv_sec)
    }
}
