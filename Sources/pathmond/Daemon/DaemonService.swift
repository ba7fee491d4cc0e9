// SPDX-License-Identifier: Apache-2.0

/// A long-lived part of the daemon. The `Daemon` starts each on the main loop's thread before the loop runs, in the
/// order it lists them (a later one may rely on an earlier one: the resolver before the kernel's first snapshot),
/// and stops them in reverse order once the loop has exited, so that the state writer's final flush comes last.
protocol DaemonService {
    func start() throws
    func stop()
}

extension ResolverService: DaemonService {}
extension KernelWatchService: DaemonService {}
extension NetworkHintsService: DaemonService {}
extension WiFiIdentityService: DaemonService {}
extension WiFiQualityService: DaemonService {}
extension ReloadService: DaemonService {}

extension StateWriterService: DaemonService {
    /// Nothing to start: the writer's thread starts with the first change, so a daemon that never owes a write
    /// never has it. `stop()` writes what is owed.
    func start() {}
}
