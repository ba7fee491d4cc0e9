// SPDX-License-Identifier: Apache-2.0
import Glibc

/// The fixture directory next to this file (the test target excludes it from its sources).
let fixtureRoot: String = {
    let file = #filePath
    return String(file[..<(file.lastIndex(of: "/") ?? file.startIndex)]) + "/Fixtures"
}()

/// The bytes of a fixture file; fails the test run loudly if it is missing, since every fixture is committed.
func fixtureBytes(_ relativePath: String) -> [UInt8] {
    guard let bytes = HintFilesForTests.read(fixtureRoot + "/" + relativePath) else {
        fatalError("missing fixture \(relativePath)")
    }
    return bytes
}

/// A fixture file as UTF-8 text.
func fixtureText(_ relativePath: String) -> String {
    String(decoding: fixtureBytes(relativePath), as: UTF8.self)
}

/// A fresh private directory under /tmp, removed by `removeTree`.
func makeTemporaryDirectory() -> String {
    var template = Array("/tmp/networkhints-test-XXXXXX".utf8CString)
    // The template is a valid NUL-terminated buffer that mkdtemp fills in place.
    let result = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
    precondition(result != nil, "mkdtemp failed")
    return String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
}

/// Removes a directory made by `makeTemporaryDirectory` and the plain files in it.
func removeTree(_ path: String) {
    if let stream = opendir(path) {
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) {
                String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { unlink(path + "/" + name) }
        }
        closedir(stream)
    }
    rmdir(path)
}

enum HintFilesForTests {
    static func read(_ path: String) -> [UInt8]? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var contents: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            guard count > 0 else { return count == 0 ? contents : nil }
            contents += buffer[..<count]
        }
    }
}
