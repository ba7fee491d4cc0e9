#if canImport(Glibc)
    import Glibc
#endif

/// The times a history entry carries: wall clock (what people read) and CLOCK_MONOTONIC (what intervals are
/// measured with), with the boot they belong to.
struct HistoryClock: Sendable {
    /// The kernel's random boot ID, read once; empty if /proc cannot say.
    let bootID: String

    init(bootIDPath: String = "/proc/sys/kernel/random/boot_id") {
        bootID = Self.readLine(bootIDPath) ?? ""
    }

    /// Both clocks now, in microseconds.
    func now() -> (wall: Int64, monotonic: UInt64) {
        var wall = timespec()
        var monotonic = timespec()
        clock_gettime(CLOCK_REALTIME, &wall)
        clock_gettime(CLOCK_MONOTONIC, &monotonic)
        return (
            Int64(wall.tv_sec) * 1_000_000 + Int64(wall.tv_nsec) / 1000,
            UInt64(monotonic.tv_sec) * 1_000_000 + UInt64(monotonic.tv_nsec) / 1000
        )
    }

    /// The first line of a small /proc file.
    private static func readLine(_ path: String) -> String? {
        guard let file = fopen(path, "re") else { return nil }
        defer { fclose(file) }
        var buffer = [CChar](repeating: 0, count: 64)
        guard fgets(&buffer, Int32(buffer.count), file) != nil else { return nil }
        let line = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return line.hasSuffix("\n") ? String(line.dropLast()) : line
    }
}
