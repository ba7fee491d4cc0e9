import ServiceLifecycle

/// RUNTIME HOOK (to be replaced by an sd-event timer): calls `StateWriters.flush` once a second, sooner when a
/// write is owed, and once more on stop. The writers are synchronous; only this loop knows about time.
struct StateWriterService: Service {
    let writers: StateWriters

    func run() async {
        let clock = ContinuousClock()
        // Cancelled (another service failed) as well as shut down: a sleep cut short by cancellation returns at
        // once, and looping on would spin.
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            let now = clock.now
            let next = min(writers.flush(now: now) ?? now + .seconds(1), now + .seconds(1))
            try? await cancelWhenGracefulShutdown { try await Task.sleep(until: next, clock: clock) }
        }
        // The last write is owed whatever the once-a-second limit says: an instant past it lifts the limit.
        writers.flush(now: clock.now + .seconds(2))
    }
}
