// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
    import Glibc
#endif

/// Keeps machine code from inflating the daemon's resident set. The kernel maps up to 64 KiB of already cached file
/// pages around each page fault ("fault-around"), so touching a few functions of a 17 MB statically linked binary
/// (and of libc, libstdc++, libsystemd, libnl) left megabytes of code mapped that the daemon never runs again after
/// start. Marked MADV_RANDOM, the code mappings read no pages ahead, and the pages mapped so far are dropped (they
/// are clean file pages: the next use maps them back from the page cache, no I/O). Called once the daemon serves,
/// and once more after the state writer's first write.
enum ResidentCode {
    /// Applies to every code mapping of a file. Failing changes nothing but the figure, so it is silent.
    static func trim() {
        guard let maps = fopen("/proc/self/maps", "r") else { return }
        defer { fclose(maps) }
        var line = [CChar](repeating: 0, count: 4096)
        while fgets(&line, Int32(line.count), maps) != nil {
            let text = String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            let fields = text.split(separator: " ", omittingEmptySubsequences: true)
            // Only code ("r-x") of a file (a path in the sixth field; not the vDSO or anonymous memory): it is never
            // written, so dropping its pages loses nothing. A read-only data mapping may be RELRO, relocated in
            // place and then made read-only: dropping it would undo the relocations.
            guard fields.count >= 6, fields[1].hasPrefix("r-x"), fields[5].hasPrefix("/") else { continue }
            let range = fields[0].split(separator: "-")
            guard range.count == 2, let start = UInt(range[0], radix: 16), let end = UInt(range[1], radix: 16),
                let address = UnsafeMutableRawPointer(bitPattern: start)
            else { continue }
            let length = Int(end - start)
            _ = madvise(address, length, MADV_RANDOM)
            _ = madvise(address, length, MADV_DONTNEED)
        }
    }
}
