// SPDX-License-Identifier: Apache-2.0
import PathModel
import PathMonitor

/// The connection that carries the traffic, and what pathmond last said about it.
struct FlowState {
    /// Tells this connection's events from those of connections already left behind.
    let generation: Int
    let watched: WatchedConnection
    /// nil until pathmond has said, and again while it cannot be reached.
    var status: FlowStatus?

    var connection: TCPConnection { watched.connection }
}

/// Everything the client reacts to once connected, handled one at a time, in order, by one loop: the state needs
/// no lock, and no event can interleave with another half-way through.
enum Event: Sendable {
    /// Time to send the next line.
    case tick
    /// Something pathmond said about the connection of `generation`.
    case flow(FlowMonitor.Update, generation: Int)
    /// A connection over `interface` was made, or could not be.
    case dialed(Result<WatchedConnection, ClientError>, interface: String)
}

/// Holds the connection, sends a line on it every `interval`, and moves to a better path when pathmond offers one,
/// as Network.framework's guidance has it: keep using the old connection, open a new one over the better path,
/// switch once the new one is ready, and only then close the old one.
struct Migrator {
    let dialer: Dialer
    let interval: Duration

    /// Runs until the task is cancelled (returns nil) or the connection breaks (returns why).
    func run(from first: WatchedConnection) async -> ClientError? {
        let (events, sink) = AsyncStream.makeStream(of: Event.self)
        var current = FlowState(generation: 0, watched: first)
        var counter = 0
        // The interface a new connection is being made over, if any: one migration at a time.
        var pending: String?
        defer { current.watched.close() }

        return await withDiscardingTaskGroup { group in
            group.addTask { await tick(every: interval, into: sink) }
            forward(current, into: sink, group: &group)
            defer {
                group.cancelAll()
                // A connection that completes after this is closed by its dialing task, which sees the stream end.
                sink.finish()
            }
            for await event in events {
                switch event {
                case .tick:
                    counter += 1
                    do throws(ClientError) {
                        // A dropped line is a gap the server will see: what "not viable" looks like on the wire.
                        _ = try current.connection.send(line: String(counter))
                    } catch {
                        return error
                    }
                case .flow(let update, let generation):
                    // Updates from the monitor of a connection already left behind are stale.
                    guard generation == current.generation else { continue }
                    report(update, on: &current)
                    if pending == nil, let better = current.status?.betterInterface,
                        current.status?.betterPathAvailable == true, better != current.connection.interface
                    {
                        pending = better
                        say(Report.opening(via: better))
                        let dialer = dialer
                        // The verdict names the addresses to bind to: no second question to pathmond.
                        let addresses = current.status?.betterInterfaceAddresses ?? []
                        group.addTask { await dial(better, addresses: addresses, with: dialer, into: sink) }
                    }
                case .dialed(.success(let new), _):
                    pending = nil
                    say(Report.connected(new.connection))
                    // Switch first, so the next line goes out on the new connection; then close the old one, whose
                    // unsent lines the kernel still delivers before its FIN.
                    let old = current
                    current = FlowState(generation: old.generation + 1, watched: new)
                    forward(current, into: sink, group: &group)
                    old.watched.close()
                    say(Report.migrated(to: new.connection.interface))
                case .dialed(.failure(let error), let interface):
                    pending = nil
                    // pathmond will say again when a path is better; until then the old connection is all there is.
                    say(Report.migrationFailed(to: interface, error, stayingOn: current))
                }
            }
            return nil
        }
    }

    /// Prints what changed since pathmond last spoke about this connection.
    private func report(_ update: FlowMonitor.Update, on state: inout FlowState) {
        switch update {
        case .unavailable(let error):
            if state.status != nil { say(Report.unavailable(error)) }
            state.status = nil
        case .status(let status):
            let previous = state.status
            state.status = status
            if previous?.isViable != status.isViable { say(Report.viability(status.isViable)) }
            let better = status.betterPathAvailable ? status.betterInterface : nil
            let previousBetter = previous?.betterPathAvailable == true ? previous?.betterInterface : nil
            // "no better path" only says that one went away, not that none was there to begin with.
            if better != previousBetter && (better != nil || previous != nil) { say(Report.betterPath(better)) }
        }
    }

    /// Feeds the monitor's updates into the loop, tagged with the connection's generation. Ends when the monitor is
    /// cancelled (its sequence finishes) or the group is.
    private func forward(
        _ state: FlowState, into sink: AsyncStream<Event>.Continuation, group: inout DiscardingTaskGroup
    ) {
        let (monitor, generation) = (state.watched.monitor, state.generation)
        group.addTask {
            for await update in monitor.updates { sink.yield(.flow(update, generation: generation)) }
        }
    }
}

/// Yields a tick every `interval`, on a schedule that does not drift, until cancelled.
private func tick(every interval: Duration, into sink: AsyncStream<Event>.Continuation) async {
    let clock = ContinuousClock()
    var next = clock.now
    while !Task.isCancelled {
        next += interval
        guard (try? await clock.sleep(until: next)) != nil else { return }
        sink.yield(.tick)
    }
}

/// Makes a connection over `interface` and hands it to the loop; if the loop has already ended, closes it.
private func dial(
    _ interface: String, addresses: [IPAddress] = [], with dialer: Dialer, into sink: AsyncStream<Event>.Continuation
) async {
    let result: Result<WatchedConnection, ClientError>
    do {
        result = .success(try await dialer.open(via: interface, addresses: addresses))
    } catch {
        result = .failure(error)
    }
    if case .terminated = sink.yield(.dialed(result, interface: interface)), case .success(let orphan) = result {
        orphan.close()
    }
}
