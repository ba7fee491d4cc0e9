// SPDX-License-Identifier: Apache-2.0
/// Re-checks a condition the daemon reaches on its own schedule (an ARP reply, a neighbour notification) until it
/// holds or the deadline passes. For conditions no update announces; paths are awaited through `UpdateLog`.
func eventually(
    timeout: Duration = .seconds(10), _ description: String, _ condition: () throws -> Bool
) async throws {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if (try? condition()) == true { return }
        try await Task.sleep(for: .milliseconds(20))
    }
    throw TimedOut(description: description, updates: [])
}
