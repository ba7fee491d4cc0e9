// SPDX-License-Identifier: Apache-2.0
import Glibc
import Testing

/// A fresh directory under /tmp for one test, removed with everything in it when the test ends.
final class TestDirectory {
    let path: String

    init() throws {
        var template = Array("/tmp/pathmond-policy-XXXXXX".utf8CString)
        let created = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) != nil }
        #expect(created, "mkdtemp: errno \(errno)")
        guard created else { throw TestFailure.noTemporaryDirectory }
        path = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    deinit {
        _ = removeTree(path)
    }

    /// `<path>/<name>`.
    func file(_ name: String) -> String { path + "/" + name }

    /// The names in the directory, sorted.
    func names() -> [String] { directoryNames(path).sorted() }
}

enum TestFailure: Error {
    case noTemporaryDirectory
}

/// The names in a directory, except "." and "..".
func directoryNames(_ path: String) -> [String] {
    guard let directory = opendir(path) else { return [] }
    defer { closedir(directory) }
    var names: [String] = []
    while let entry = readdir(directory) {
        let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        if name != "." && name != ".." { names.append(name) }
    }
    return names
}

/// The file's bytes, or nil if it cannot be read.
func contents(of path: String) -> [UInt8]? {
    guard let file = fopen(path, "rb") else { return nil }
    defer { fclose(file) }
    var bytes: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 4096)
    while true {
        let count = fread(&buffer, 1, buffer.count, file)
        if count == 0 { return ferror(file) == 0 ? bytes : nil }
        bytes += buffer[..<count]
    }
}

/// Writes a file (replacing it), for setting up damaged states by hand.
func write(_ bytes: [UInt8], to path: String) throws {
    let file = fopen(path, "wb")
    try #require(file != nil, "fopen \(path): errno \(errno)")
    defer { fclose(file) }
    try #require(fwrite(bytes, 1, bytes.count, file) == bytes.count)
}

/// Removes a file or a directory tree.
@discardableResult
func removeTree(_ path: String) -> Bool {
    var status = stat()
    guard lstat(path, &status) == 0 else { return false }
    if (status.st_mode & S_IFMT) == S_IFDIR {
        for name in directoryNames(path) { removeTree(path + "/" + name) }
        return rmdir(path) == 0
    }
    return unlink(path) == 0
}
