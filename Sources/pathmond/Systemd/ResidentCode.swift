#if canImport(Glibc)
    import Glibc
#endif

/// Keeps the daemon's own machine code from inflating its resident set. The kernel maps up to 64 KiB of already
/// cached file pages around each page fault ("fault-around"), so touching a few functions of a 17 MB statically
/// linked binary left about 10 MB of it mapped, most of which the daemon never runs again after start. Marked
/// MADV_RANDOM, the executable's mappings fault in single pages; the pages mapped during start are dropped once
/// (they are clean file pages: the next use reads them back from the page cache, no I/O).
enum ResidentCode {
    /// Applies to the executable file's code mappings. Failing changes nothing but the figure, so it is silent.
    static func trim() {
        guard let maps = fopen("/proc/self/maps", "r") else { return }
        defer { fclose(maps) }
        guard let executable = realpath("/proc/self/exe", nil) else { return }
        defer { free(executable) }
        let executablePath = String(cString: executable)
        var line = [CChar](repeating: 0, count: 4096)
        while fgets(&line, Int32(line.count), maps) != nil {
            let text = String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            guard text.hasSuffix(executablePath + "\n") else { continue }
            let fields = text.split(separator: " ", omittingEmptySubsequences: true)
            // Only code ("r-x"): it is never written, so dropping its pages loses nothing. A read-only data mapping
            // may be RELRO, relocated in place and then made read-only: dropping it would undo the relocations.
            guard fields.count >= 2, fields[1].hasPrefix("r-x") else { continue }
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
