// SPDX-License-Identifier: Apache-2.0
internal import CProgramArguments

/// The command line this process was started with, from the argv that execve(2) gave it.
///
/// Not `CommandLine.arguments`: on Linux Swift reads that from /proc/self/cmdline, which is missing or another
/// process's where /proc is not the caller's (a tmpfs over /proc, a chroot or build hook without it, `nsenter -m`
/// into a container). A gate that lost its arguments there ran plain `status` and exited 0.
public enum ProgramArguments {
    /// The arguments after the program's name; nil when there is no command line to read (argc 0, or a C library
    /// that does not pass argv to constructors), which a caller must refuse rather than run as if given none.
    public static func afterName() -> [String]? {
        let count = Int(program_argument_count())
        guard count > 0 else { return nil }
        // The kernel hands argv over as NUL-terminated bytes; invalid UTF-8 is repaired, as CommandLine does.
        return (1..<count).map { String(cString: program_argument(Int32($0))) }
    }
}
