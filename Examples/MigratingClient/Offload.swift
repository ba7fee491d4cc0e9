// SPDX-License-Identifier: Apache-2.0
import Dispatch

/// Runs a blocking call (a one-shot request to pathmond) on a Dispatch worker thread and awaits its result, so that
/// it never holds one of the few threads Swift concurrency runs every task on.
func offload<Value: Sendable, Failure: Error>(
    _ body: @escaping @Sendable () throws(Failure) -> Value
) async throws(Failure) -> Value {
    let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<Value, Failure>, Never>) in
        DispatchQueue.global().async { continuation.resume(returning: Result(catching: body)) }
    }
    return try result.get()
}
