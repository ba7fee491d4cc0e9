// SPDX-License-Identifier: Apache-2.0
import Foundation

/// Where `swift build` put the package's executables: next to the test bundle that is running.
let productsDirectory: URL = {
    let executable = URL(filePath: (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? "")
    return executable.deletingLastPathComponent()
}()

/// The path of one of the package's executables.
func product(_ name: String) -> String {
    productsDirectory.appending(path: name).path
}
