// SPDX-License-Identifier: Apache-2.0
import Glibc

/// One pathmond per state directory. A second daemon started by hand on a host where the service runs (the
/// README's Run line) once appended to the first one's history, which was then declared damaged at the next
/// start. The lock is an flock(2) on the directory itself, taken before anything in it is read or written and
/// held for the life of the process: the kernel drops it when the process ends, however it ends, so no stale
/// lock file is ever left behind.
struct StateDirectoryLock: ~Copyable {
    private let descriptor: Int32

    /// Why the lock was not taken.
    enum Failure: Error, CustomStringConvertible {
        /// Another process holds it: another pathmond serves from this directory.
        case held(directory: String)
        /// The directory could not be opened or locked (errno).
        case system(directory: String, errno: Int32)

        var description: String {
            switch self {
            case .held(let directory):
                return "another pathmond is already using the state directory \(directory) (see systemctl status "
                    + "pathmond); start a second one with its own --state-dir and --socket"
            case .system(let directory, let number):
                return "cannot lock the state directory \(directory): \(String(cString: strerror(number)))"
            }
        }
    }

    /// Takes the lock without waiting.
    init(directory: String) throws(Failure) {
        let descriptor = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { throw .system(directory: directory, errno: errno) }
        var result: Int32
        repeat { result = flock(descriptor, LOCK_EX | LOCK_NB) } while result != 0 && errno == EINTR
        guard result == 0 else {
            let number = errno
            close(descriptor)
            throw number == EWOULDBLOCK ? .held(directory: directory) : .system(directory: directory, errno: number)
        }
        self.descriptor = descriptor
    }

    deinit { close(descriptor) }
}
