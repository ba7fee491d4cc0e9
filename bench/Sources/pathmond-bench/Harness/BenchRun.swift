// SPDX-License-Identifier: Apache-2.0
/// What every namespaced bench measures in: the bench's namespaces (`BenchNamespace`), a work directory and pathmond
/// serving in them. `with` makes all three and tears them down in reverse order however the body ends, so that no
/// bench can leave a namespace or a daemon behind.
struct BenchRun {
    let namespace: BenchNamespace
    let directory: String
    let pathmond: DaemonProcess

    /// `prepare` gets the daemon's state directory before the daemon starts (a bench that needs stored state).
    static func with<Result>(
        _ daemon: DaemonOptions, prepare: (String) throws -> Void = { _ in }, _ body: (BenchRun) throws -> Result
    ) throws -> Result {
        let namespace = try BenchNamespace()
        defer { namespace.delete() }
        let directory = try makeWorkDirectory()
        defer { _ = try? Child.run(["rm", "-rf", directory]) }
        try prepare(directory + "/state")
        let pathmond = try DaemonProcess(options: daemon, namespace: namespace, directory: directory)
        defer { pathmond.stop() }
        return try body(BenchRun(namespace: namespace, directory: directory, pathmond: pathmond))
    }

    /// A netlink socket for the bench's own changes, opened inside the namespace.
    func requestWriter() throws(BenchError) -> RequestWriter {
        try namespace.entered { () throws(BenchError) in try RequestWriter() }
    }
}
