// SPDX-License-Identifier: Apache-2.0
import Logging
import PathModel
import PathProtocol
import StateFiles
import SystemPackage

#if canImport(Glibc)
    import Glibc
#endif

/// The dispatcher's deferred runs on disk: `deferrals.json` in its state directory, replaced atomically and synced
/// on every change, so that a deferral survives a restart and a reboot. A file that cannot be read is set aside as
/// `deferrals.json.corrupt-<time>` (logged at err) and the dispatcher starts with none: a damaged file must not keep
/// it from starting, and the one set aside is there for the administrator to look at. A file of a newer version is
/// read, not set aside (a downgrade keeps the runs); one of more than `DeferralBook.capacity` units keeps the oldest.
struct DeferralStore {
    let directory: String
    let logger: Logger
    var path: String { directory + "/deferrals.json" }
    /// Far above `DeferralBook.capacity` entries of about 100 bytes (tens of thousands of entries: a longer list is
    /// read, and cut to the capacity).
    static let maximumSize = 4 << 20

    func load() -> DeferralBook {
        let bytes: [UInt8]
        do {
            bytes = try StateFileReader.read(path, limit: Self.maximumSize)
        } catch {
            if case .system(let number) = error, number == .noSuchFileOrDirectory { return DeferralBook() }
            setAside("cannot be read (\(error))")
            return DeferralBook()
        }
        do {
            let file = try VarlinkCodec().decode(DispatcherProtocol.StateFile.self, from: bytes)
            let current = DispatcherProtocol.StateFile.currentVersion
            guard file.version >= current else {
                setAside("has version \(file.version), this dispatcher reads \(current)")
                return DeferralBook()
            }
            if file.version > current {
                // A downgrade: the newer dispatcher's file still names the units and since when they wait (fields
                // it added are not read), and its runs must not be lost.
                let message =
                    "\(path) has version \(file.version), newer than this dispatcher's \(current): its deferred runs "
                    + "are read, and the file is written as version \(current) at the next change"
                logger.notice("\(message)")
            }
            let book = DeferralBook(deferrals: file.deferred.map(\.deferral))
            if file.deferred.count > book.deferrals.count {
                let message =
                    "\(path) lists \(file.deferred.count) deferred runs: the \(book.deferrals.count) oldest distinct "
                    + "units are kept (at most \(DeferralBook.capacity))"
                logger.warning("\(message)")
            }
            if !book.deferrals.isEmpty {
                logger.notice(
                    "deferred runs loaded",
                    metadata: ["count": "\(book.deferrals.count)", "units": "\(book.deferrals.prefix(20).map(\.unit))"])
            }
            return book
        } catch {
            setAside("is not a deferral list (\(error))")
            return DeferralBook()
        }
    }

    /// Writes the book; a failure is logged (the book in memory stays right, and the next change tries again).
    func save(_ book: DeferralBook) {
        var bytes = VarlinkCodec().encode(
            DispatcherProtocol.StateFile(deferred: book.deferrals.map(DispatcherProtocol.WireDeferral.init)))
        bytes[bytes.count - 1] = UInt8(ascii: "\n")  // the codec's NUL frame, a newline in a file
        do {
            try StateFileWriter.replace(path, with: bytes, mode: 0o600, durable: true)
        } catch {
            logger.error("cannot save the deferred runs: \(error); they are kept in memory until the next change")
        }
    }

    private func setAside(_ problem: String) {
        let aside = path + ".corrupt-" + FileSystem.timestamp()
        do throws(StateFileError) {
            try FileSystem.rename(path, over: aside)
            logger.error("\(path) \(problem): set aside as \(aside); starting with no deferred runs")
        } catch {
            let reason = StateFileError.message(for: error.errno)
            logger.error("\(path) \(problem), and cannot be set aside: \(reason)")
        }
    }
}
