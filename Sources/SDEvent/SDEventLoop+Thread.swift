// SPDX-License-Identifier: Apache-2.0
internal import CSystemd
import Glibc

extension SDEventLoop {
    /// A loop running on a thread of its own, for a component used outside the daemon's main loop (tests, the
    /// benchmark, a library user). The thread ends when the loop exits (`exit(code:)`).
    public static func startedOnNewThread(name: String) throws(SDEventError) -> SDEventLoop {
        let loop = try SDEventLoop()
        let started = SDEventCompletion<Bool>()
        let context = Unmanaged.passRetained(ThreadContext(loop: loop, name: name, started: started)).toOpaque()
        var thread = pthread_t()
        let result = pthread_create(
            &thread, nil,
            { argument in
                let context = Unmanaged<ThreadContext>.fromOpaque(argument!).takeRetainedValue()
                // The kernel keeps 15 bytes of a thread's name; `ps -L` and `top -H` show it.
                _ = String(context.name.utf8.prefix(15))!.withCString { pathmond_set_thread_name($0) }
                context.loop.execute { [started = context.started] in started.complete(true) }
                context.loop.run()
                return nil
            }, context)
        guard result == 0 else {
            Unmanaged<ThreadContext>.fromOpaque(context).release()
            throw SDEventError(errno: result)
        }
        pthread_detach(thread)
        // Return only once the loop runs, so `inLoop` and `sync` are right from the first call.
        _ = started.wait()
        return loop
    }
}

private final class ThreadContext {
    let loop: SDEventLoop
    let name: String
    let started: SDEventCompletion<Bool>

    init(loop: SDEventLoop, name: String, started: SDEventCompletion<Bool>) {
        self.loop = loop
        self.name = name
        self.started = started
    }
}
