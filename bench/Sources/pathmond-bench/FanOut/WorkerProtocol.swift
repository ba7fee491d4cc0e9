// SPDX-License-Identifier: Apache-2.0
/// What `fan-out` and its subscriber processes (`fan-out-worker`) say to each other, one line each way per step, over
/// the worker's standard input and output. Times are CLOCK_MONOTONIC nanoseconds, which every process on the machine
/// reads alike, so a worker's stamps compare with the bench's t0 directly.
enum WorkerCommand: Equatable {
    /// Throw away what arrived since the last change (count it), then stamp each subscriber's next wake-up until
    /// every one was woken or `deadline` passed.
    case arm(deadline: UInt64)
    /// Read every subscriber; count updates whose newest frame lacks `expected`, and those past one per subscriber;
    /// return the newest frames as `frames` asks.
    case drain(frames: FrameRequest, expected: String)

    /// Which newest frames a drain sends back: the raw fan-out writes pathmond's own updates.
    enum FrameRequest: String {
        case none
        /// The first subscriber's that has one (every WatchPath subscriber gets the same update).
        case first
        /// Every subscriber's, in order (each flow gets its own).
        case each
    }

    var line: String {
        switch self {
        case .arm(let deadline): return "arm \(deadline)"
        case .drain(let frames, let expected): return "drain \(frames.rawValue) \(expected)"
        }
    }

    init?(line: Substring) {
        let words = line.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
        switch (words.first, words.count) {
        case ("arm", 2):
            guard let deadline = UInt64(words[1]) else { return nil }
            self = .arm(deadline: deadline)
        case ("drain", 3):
            guard let frames = FrameRequest(rawValue: String(words[1])), !words[2].isEmpty else { return nil }
            self = .drain(frames: frames, expected: String(words[2]))
        default:
            return nil
        }
    }
}

/// A worker's answers, in the order of the commands.
enum WorkerReply: Equatable {
    /// Every subscriber connected (and, for pathmond's, got its first value) in `nanoseconds`.
    case ready(nanoseconds: UInt64)
    /// Armed; `leftovers` updates had arrived since the last change.
    case armed(leftovers: Int)
    /// The stamps of one change: how many of `count` subscribers were woken, the earliest and latest (0 if none).
    case stamps(WorkerArrivals)
    /// One drain's counts; `frames` newest frames follow, one line each (hex, or `-` for none).
    case drained(wrongContent: Int, extraUpdates: Int, frames: Int)
    /// Setup failed; the worker exits.
    case failed(String)

    var line: String {
        switch self {
        case .ready(let nanoseconds): return "ready \(nanoseconds)"
        case .armed(let leftovers): return "armed \(leftovers)"
        case .stamps(let arrivals):
            return "stamps \(arrivals.arrived) \(arrivals.count) \(arrivals.earliest) \(arrivals.latest)"
        case .drained(let wrong, let extra, let frames): return "drained \(wrong) \(extra) \(frames)"
        case .failed(let message): return "failed \(message)"
        }
    }

    init?(line: Substring) {
        if line.hasPrefix("failed ") {
            self = .failed(String(line.dropFirst("failed ".count)))
            return
        }
        let words = line.split(separator: " ")
        guard let name = words.first else { return nil }
        let numbers = words.dropFirst().compactMap { UInt64($0) }
        guard numbers.count == words.count - 1 else { return nil }
        switch (name, numbers.count) {
        case ("ready", 1): self = .ready(nanoseconds: numbers[0])
        case ("armed", 1): self = .armed(leftovers: Int(numbers[0]))
        case ("stamps", 4):
            self = .stamps(
                WorkerArrivals(
                    arrived: Int(numbers[0]), count: Int(numbers[1]), earliest: numbers[2], latest: numbers[3]))
        case ("drained", 3):
            self = .drained(wrongContent: Int(numbers[0]), extraUpdates: Int(numbers[1]), frames: Int(numbers[2]))
        default: return nil
        }
    }
}

/// One change's wake-ups over some subscribers: enough to give the first and the last of all of them, as
/// `FanOutTally` defines them, once every process's are merged.
struct WorkerArrivals: Equatable {
    var arrived = 0
    var count = 0
    /// The earliest and latest stamp among those woken; 0 when none was.
    var earliest: UInt64 = 0
    var latest: UInt64 = 0

    /// The figures of one process's stamps (0 for a subscriber not woken in time).
    init(stamps: [UInt64]) {
        let woken = stamps.filter { $0 != 0 }
        self.init(
            arrived: woken.count, count: stamps.count, earliest: woken.min() ?? 0, latest: woken.max() ?? 0)
    }

    init(arrived: Int = 0, count: Int = 0, earliest: UInt64 = 0, latest: UInt64 = 0) {
        self.arrived = arrived
        self.count = count
        self.earliest = earliest
        self.latest = latest
    }

    /// Both processes' subscribers as one set.
    func merged(with other: WorkerArrivals) -> WorkerArrivals {
        func earlier(_ a: UInt64, _ b: UInt64) -> UInt64 { a == 0 ? b : b == 0 ? a : min(a, b) }
        return WorkerArrivals(
            arrived: arrived + other.arrived, count: count + other.count,
            earliest: earlier(earliest, other.earliest), latest: max(latest, other.latest))
    }
}

/// A frame as one line: hex, so that no byte of it can end the line; `-` for none.
enum FrameLine {
    static func encode(_ frame: [UInt8]?) -> String {
        guard let frame else { return "-" }
        let digits = Array("0123456789abcdef".utf8)
        var line: [UInt8] = []
        line.reserveCapacity(frame.count * 2)
        for byte in frame {
            line.append(digits[Int(byte >> 4)])
            line.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: line, as: UTF8.self)
    }

    /// The frame, nil for `-`; throws nothing: a malformed line reads as no frame, which the caller counts.
    static func decode(_ line: Substring) -> [UInt8]? {
        guard line != "-", line.utf8.count % 2 == 0 else { return nil }
        func value(_ digit: UInt8) -> UInt8? {
            switch digit {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): return digit - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): return digit - UInt8(ascii: "a") + 10
            default: return nil
            }
        }
        var frame: [UInt8] = []
        frame.reserveCapacity(line.utf8.count / 2)
        var iterator = line.utf8.makeIterator()
        while let high = iterator.next(), let low = iterator.next() {
            guard let high = value(high), let low = value(low) else { return nil }
            frame.append(high << 4 | low)
        }
        return frame
    }
}
