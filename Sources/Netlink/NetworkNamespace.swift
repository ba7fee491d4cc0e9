// SPDX-License-Identifier: Apache-2.0
internal import CNetlink
import Glibc

/// Runs work inside another network namespace without moving the calling thread.
///
/// A socket belongs to the namespace it was created in for its whole life, so sockets opened here keep watching
/// that namespace from any thread. setns() changes only the calling thread, and that thread exits right after, so
/// no thread of the process is ever left in the other namespace.
package enum NetworkNamespace {
    /// Runs `body` now on the calling thread if `path` is nil, otherwise on a new thread that first joins the
    /// network namespace at `path` (e.g. "/var/run/netns/NAME"); waits for it either way.
    package static func run<Result>(
        in path: String?, _ body: @escaping () throws(NetlinkError) -> Result
    ) throws(NetlinkError) -> Result {
        guard let path else { return try body() }
        var outcome: Swift.Result<Result, NetlinkError>?
        let job = Job(path: path) {
            do throws(NetlinkError) {
                outcome = .success(try body())
            } catch {
                outcome = .failure(error)
            }
        }
        var thread = pthread_t()
        let started = pthread_create(
            &thread, nil,
            { argument in
                Unmanaged<Job>.fromOpaque(argument!).takeUnretainedValue().runInNamespace()  // always our Job
                return nil
            }, Unmanaged.passUnretained(job).toOpaque())
        guard started == 0 else { throw .system(errno: started) }
        pthread_join(thread, nil)
        // The thread has ended: `job` (kept alive until here) and `outcome` are ours again.
        if let failure = withExtendedLifetime(job, { job.failure }) { throw failure }
        return try outcome!.get()  // set by the work, which runs whenever joining the namespace succeeded
    }
}

/// The work, handed to the namespace thread through pthread_create's `void *`.
private final class Job {
    let path: String
    let work: () -> Void
    /// Why the namespace could not be joined; the work did not run.
    var failure: NetlinkError?

    init(path: String, work: @escaping () -> Void) {
        self.path = path
        self.work = work
    }

    func runInNamespace() {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            failure = .system(errno: errno)
            return
        }
        let joined = setns(descriptor, Int32(CLONE_NEWNET))
        let setnsError = errno
        close(descriptor)
        guard joined == 0 else {
            failure = .system(errno: setnsError)
            return
        }
        work()
    }
}
