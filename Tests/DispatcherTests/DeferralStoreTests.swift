// SPDX-License-Identifier: Apache-2.0
import Foundation
import Logging
import PathModel
import Testing

@testable import pathmond_dispatcher

/// deferrals.json: the dispatcher's deferred runs read back as written, in order; a missing file is an empty book;
/// a file that cannot be read is set aside, and the dispatcher starts with none.
@Suite struct DeferralStoreTests {
    static func store() throws -> DeferralStore {
        let path = "/tmp/pmdefer-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return DeferralStore(directory: path, logger: Logger(label: "test"))
    }

    static func asideFiles(_ store: DeferralStore) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: store.directory).filter { $0.contains(".corrupt-") }
    }

    @Test func roundTripsInOrder() throws {
        let store = try Self.store()
        defer { try? FileManager.default.removeItem(atPath: store.directory) }
        var book = DeferralBook()
        for (unit, time) in [("b.service", 10), ("a.service", 20), ("b.service", 30)] as [(String, Int64)] {
            _ = book.register(unit: unit, at: time)
        }
        store.save(book)
        #expect(store.load() == book)
        let attributes = try FileManager.default.attributesOfItem(atPath: store.path)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
    }

    @Test func missingFileIsAnEmptyBook() throws {
        let store = try Self.store()
        defer { try? FileManager.default.removeItem(atPath: store.directory) }
        #expect(store.load() == DeferralBook())
        #expect(try Self.asideFiles(store).isEmpty)
    }

    @Test(arguments: ["{not json", "{\"version\":0,\"deferred\":[]}", "[]", "{\"version\":1}", ""])
    func unreadableFileIsSetAside(_ text: String) throws {
        let store = try Self.store()
        defer { try? FileManager.default.removeItem(atPath: store.directory) }
        try text.write(toFile: store.path, atomically: false, encoding: .utf8)
        #expect(store.load() == DeferralBook())
        #expect(try Self.asideFiles(store).count == 1)
        #expect(!FileManager.default.fileExists(atPath: store.path))
    }

    /// A downgrade: the file a newer dispatcher wrote (version 2, with a field this one does not know) is read, not
    /// set aside, and its runs are kept.
    @Test func newerVersionIsReadNotSetAside() throws {
        let store = try Self.store()
        defer { try? FileManager.default.removeItem(atPath: store.directory) }
        let text = """
            {"version":2,"deferred":[{"unit":"a.service","since":10,"skips":2,"reason":"expensive"},\
            {"unit":"b.service","since":20,"skips":1}],"checked":1800000000}
            """
        try text.write(toFile: store.path, atomically: false, encoding: .utf8)
        let book = store.load()
        #expect(book.deferrals == [.init(unit: "a.service", since: 10, skips: 2), .init(unit: "b.service", since: 20)])
        #expect(try Self.asideFiles(store).isEmpty)
        #expect(FileManager.default.fileExists(atPath: store.path))
    }

    /// A file of more units than the book holds: the oldest `capacity` are kept (the file's order is the age order).
    @Test func longFileIsCutToCapacityKeepingTheOldest() throws {
        let store = try Self.store()
        defer { try? FileManager.default.removeItem(atPath: store.directory) }
        let entries = (0..<10_000).map { "{\"since\":\($0),\"skips\":1,\"unit\":\"u\($0).service\"}" }
        try "{\"deferred\":[\(entries.joined(separator: ","))],\"version\":1}\n".write(
            toFile: store.path, atomically: false, encoding: .utf8)
        let book = store.load()
        #expect(book.deferrals.count == DeferralBook.capacity)
        #expect(book.deferrals.first?.unit == "u0.service")
        #expect(book.deferrals.last?.unit == "u\(DeferralBook.capacity - 1).service")
    }
}
