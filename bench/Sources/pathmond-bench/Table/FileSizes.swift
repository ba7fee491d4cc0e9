// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
    import Glibc
#endif

/// The sizes of the last row: the stripped pathmond and the .deb, read from files. The stripped binary is
/// the one given, else the measured binary stripped here (`strip -o` into a scratch directory, removed afterwards).
struct FileSizes {
    var unstripped: Int?
    var stripped: Int?
    var deb: Int?
    var note: String

    static func measure(pathmond: String, stripped: String?, deb: String?) throws(BenchError) -> FileSizes {
        var sizes = FileSizes(unstripped: fileSize(pathmond), deb: deb.flatMap(fileSize), note: "")
        var sources: [String] = []
        if let stripped {
            sizes.stripped = fileSize(stripped)
            sources.append("stripped: \(stripped)")
        } else {
            let directory = try makeWorkDirectory()
            defer { _ = try? Child.run(["rm", "-rf", directory]) }
            let output = directory + "/pathmond"
            if (try? Child.run(["strip", "-o", output, pathmond])) != nil {
                sizes.stripped = fileSize(output)
                sources.append("stripped: strip -o of \(pathmond)")
            } else {
                sources.append("strip -o \(pathmond) failed")
            }
        }
        if let deb { sources.append("deb: \(deb)") }
        let bytes = [("unstripped", sizes.unstripped), ("stripped", sizes.stripped), ("deb", sizes.deb)]
            .compactMap { name, size in size.map { "\(name) \($0)" } }
        sizes.note =
            "sizes (MB = 10^6 bytes): " + sources.joined(separator: ", ") + "; bytes: "
            + bytes.joined(separator: ", ")
        return sizes
    }
}

/// A regular file's size in bytes; nil if it cannot be read.
func fileSize(_ path: String) -> Int? {
    var info = stat()
    guard stat(path, &info) == 0 else { return nil }
    return Int(info.st_size)
}

/// 62.9 MB, in millions of bytes (the 62 MB is this binary's 62,881,528 bytes; memory figures elsewhere in
/// the bench are in mebibytes).
func formatFileSize(_ bytes: Int) -> String {
    "\(rounded(Double(bytes) / 1e6, 1)) MB"
}
