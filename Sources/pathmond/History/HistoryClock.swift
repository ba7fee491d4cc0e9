// SPDX-License-Identifier: Apache-2.0
internal import CSystemd

#if canImport(Glibc)
    import Glibc
#endif

/// The times a history entry carries: wall clock (what people read) and CLOCK_MONOTONIC (what intervals are
/// measured with), with the boot they belong to.
struct HistoryClock: Sendable {
    /// The kernel's random boot ID in its UUID form (as /proc/sys/kernel/random/boot_id writes it), read once;
    /// empty if nothing can say.
    let bootID: String

    /// The variable the unit sets from its `%b` specifier. `ProcSubset=pid` hides /proc/sys, where the kernel
    /// publishes the boot ID and where `sd_id128_get_boot()` reads it, so the sandboxed service learns it from
    /// systemd instead.
    static let environmentVariable = "PATHMOND_BOOT_ID"

    init(environment: [String: String]) {
        bootID = Self.kernelBootID() ?? environment[Self.environmentVariable].flatMap(Self.uuidForm) ?? ""
    }

    /// With the process's own environment.
    init() {
        let variable = getenv(Self.environmentVariable).map { String(cString: $0) }
        self.init(environment: variable.map { [Self.environmentVariable: $0] } ?? [:])
    }

    /// What the kernel says, through libsystemd.
    private static func kernelBootID() -> String? {
        var id = sd_id128_t()
        guard sd_id128_get_boot(&id) >= 0 else { return nil }
        return format(id)
    }

    /// A boot ID in either of systemd's spellings (32 hex digits, or the UUID form), as the UUID form.
    static func uuidForm(_ text: String) -> String? {
        var id = sd_id128_t()
        guard sd_id128_from_string(text, &id) >= 0 else { return nil }
        return format(id)
    }

    private static func format(_ id: sd_id128_t) -> String {
        var text = [CChar](repeating: 0, count: Int(SD_ID128_UUID_STRING_MAX))
        return String(cString: sd_id128_to_uuid_string(id, &text))
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
}
