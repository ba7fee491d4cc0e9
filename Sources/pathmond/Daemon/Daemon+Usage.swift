// SPDX-License-Identifier: Apache-2.0
import Logging
import Netlink
import PathModel
import SDEvent

extension Daemon {
    /// The usage meter as the state directory keeps it (a damaged file kept aside and logged, never fatal), with
    /// its own netlink socket for the counters and its writer on `writerLoop`.
    static func usageService(
        loop: SDEventLoop, hub: PathHub, stateDirectory: String, writerLoop: SDEventLoop, interval: Duration,
        logger: Logger, counted: @escaping @Sendable () -> Void
    ) -> UsageService {
        let file = UsageFile(stateDirectory: stateDirectory)
        let loaded = file.load()
        if let problem = loaded.problem {
            let aside = loaded.keptAside.map { "; kept aside as \($0)" } ?? ""
            let action =
                loaded.isWritable ? "counting from nothing" : "left untouched, and this run's usage is not saved"
            logger.error(
                "usage file \(file.path) not read: \(problem)\(aside); \(action)",
                metadata: JournalRecord.usageFileDamaged.metadata())
        }
        let reader: LinkCounterReader?
        do {
            reader = try LinkCounterReader()
        } catch {
            logger.error("cannot open a netlink socket for interface counters: \(error); usage is not counted")
            reader = nil
        }
        return UsageService(
            loop: loop, hub: hub, reader: reader, meter: loaded.meter,
            writer: loaded.isWritable ? UsageWriter(file: file, loop: writerLoop, logger: logger) : nil,
            interval: interval, logger: logger, today: { LocalCalendar.today() }, counted: counted)
    }
}

extension UsageService: DaemonService {
    func start() {}
}
