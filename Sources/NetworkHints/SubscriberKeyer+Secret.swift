// SPDX-License-Identifier: Apache-2.0
import Glibc
import StateFiles

/// Why the keyer's secret could not be had. A daemon that gets one keys no SIM rather than keying them under a
/// fresh secret: a new secret would silently detach every remembered cellular network.
public enum SubscriberSecretError: Error, Sendable, Hashable {
    /// The file exists but could not be read (errno).
    case unreadable(path: String, errno: Int32)
    /// The file holds something other than exactly `SubscriberKeyer.secretCount` bytes.
    case malformed(path: String, byteCount: Int)
    /// The name is taken by something other than a regular file (a FIFO would block the daemon's loop for ever).
    case notRegularFile(path: String)
    /// The file could not be created (errno).
    case unwritable(path: String, errno: Int32)
    /// The kernel's random source could not be read (errno).
    case noRandomness(errno: Int32)
}

extension SubscriberKeyer {
    /// The secret's length: 256 bits, the HMAC-SHA-256 key size that RFC 2104 recommends.
    public static let secretCount = 32
    /// The secret's file name inside the state directory.
    public static let secretFileName = "subscriber-secret"

    /// The machine's secret from `stateDirectory`, created on first use: 32 bytes from /dev/urandom, written to a
    /// private temporary file (mode 0600), synced, then linked into place. `link(2)` never replaces, so two racing
    /// daemons end up with one secret, and a crash leaves either no secret or a whole one.
    public static func loadOrCreateSecret(stateDirectory: String) throws(SubscriberSecretError) -> [UInt8] {
        let path = stateDirectory + "/" + secretFileName
        if let existing = try readSecret(path) { return existing }
        let secret = try randomBytes(secretCount)
        let temporary = path + ".tmp-\(getpid())"
        _ = unlink(temporary)
        do throws(StateFileError) {
            try StateFileWriter.createNew(temporary, with: secret, mode: 0o600, durable: true)
        } catch {
            throw .unwritable(path: temporary, errno: error.errno)
        }
        defer { _ = unlink(temporary) }
        if link(temporary, path) != 0 {
            guard errno == EEXIST else { throw .unwritable(path: path, errno: errno) }
            // Another process won the race: its secret is the one.
            if let theirs = try readSecret(path) { return theirs }
            throw .unwritable(path: path, errno: EEXIST)
        }
        // Failure only weakens durability (the secret is in place), so it is not an error.
        try? FileSystem.syncDirectory(stateDirectory)
        return secret
    }

    /// The secret in `path`; nil when there is no file yet. Opened without blocking and checked to be a regular
    /// file before a byte is read (`StateFileReader`): a FIFO planted under the name must not hang the daemon's
    /// main loop.
    private static func readSecret(_ path: String) throws(SubscriberSecretError) -> [UInt8]? {
        let bytes: [UInt8]
        do {
            bytes = try StateFileReader.read(path, limit: secretCount)
        } catch {
            switch error {
            case .system(let number) where number == .noSuchFileOrDirectory: return nil
            case .system(let number): throw .unreadable(path: path, errno: number.rawValue)
            // O_NOFOLLOW's answer, as before the reader said it in words.
            case .symbolicLink: throw .unreadable(path: path, errno: ELOOP)
            case .notRegularFile: throw .notRegularFile(path: path)
            // A longer file is malformed, not silently truncated.
            case .tooLarge(let size, _): throw .malformed(path: path, byteCount: Int(clamping: size))
            }
        }
        guard bytes.count == secretCount else { throw .malformed(path: path, byteCount: bytes.count) }
        return bytes
    }

    /// `count` bytes from /dev/urandom, which never blocks once the pool is initialised and is what getrandom(2)
    /// reads; Glibc's Swift overlay does not export getrandom itself.
    static func randomBytes(_ count: Int) throws(SubscriberSecretError) -> [UInt8] {
        let descriptor = open("/dev/urandom", O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw .noRandomness(errno: errno) }
        defer { close(descriptor) }
        var bytes = [UInt8](repeating: 0, count: count)
        var filled = 0
        while filled < count {
            // The buffer holds `count` > `filled` bytes, so its base address exists.
            let got = bytes.withUnsafeMutableBytes { read(descriptor, $0.baseAddress! + filled, count - filled) }
            if got < 0 && errno == EINTR { continue }
            guard got > 0 else { throw .noRandomness(errno: got == 0 ? EIO : errno) }
            filled += got
        }
        return bytes
    }
}
