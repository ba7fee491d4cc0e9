// SPDX-License-Identifier: Apache-2.0
import Glibc
import StateFiles

/// A fresh directory under /tmp for one test, removed with everything in it when the test is done.
final class ScratchDirectory {
    let path: String

    init() throws {
        var template = Array("/tmp/pathmond-statefiles-XXXXXX".utf8CString)
        guard mkdtemp(&template) != nil else { throw StateFileError(.createDirectory, path: "/tmp", errno: errno) }
        path = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    deinit {
        for name in (try? FileSystem.names(in: path)) ?? [] { unlink(file(name)) }
        rmdir(path)
    }

    func file(_ name: String) -> String { path + "/" + name }

    func names() throws -> [String] { try FileSystem.names(in: path).sorted() }

    func contents(_ name: String) throws -> [UInt8] { try StateFileReader.read(file(name), limit: 1 << 20) }
}
