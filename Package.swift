// swift-tools-version: 6.2
// SPDX-License-Identifier: Apache-2.0
import PackageDescription

/// Our own targets' Swift settings (dependencies keep their own): every warning is an error; and, in release, a
/// concrete generic type's metadata comes from its accessor, with the conformances it needs passed in, instead of
/// from its mangled name. Made from a name, `KeyedDecodingContainer<WirePath.CodingKeys>` has the runtime check
/// its requirements by scanning every conformance record in the binary, once per type: 1.4 M of the 3.3 M
/// instructions of a `pathctl check` (issue 41, item 4); through the accessors, none. The binary grows by 32 KB.
///
/// Release builds also leave out the run-time exclusivity checks (`-enforce-exclusivity=unchecked`): each access to
/// a class's stored property or a global entered and left the runtime's access set, 80 a path flip, 3 % of its
/// instructions (issue 41). The checks stay where a violation is found, in debug builds: the test suite and the
/// TSan run.
///
/// Release builds also optimise across our modules (`-cross-module-optimization`): a generic or small function of
/// PathModel, Netlink or PathProtocol is specialised and inlined where the daemon calls it, instead of being called
/// through its generic entry point with every argument retained for the call. An isolated route flip costs 4,100
/// fewer instructions (72.7 K to 68.6 K, whole process), a carrier flip 3,400 (81.2 K to 77.8 K); the stripped
/// daemon grows by 0.2 MB, pathctl by 25 KB (issue 41). Link-time optimisation (`-lto=llvm-thin`) would go
/// further, but SwiftPM's Linux link cannot take its bitcode objects (autolink-extract fails).
///
/// And each function gets a section of its own, and the public ones lose the mark that kept them all: swiftc puts a
/// module's code in one .text section and marks every public function "retain" (SHF_GNU_RETAIN, from llvm.used), so
/// the --gc-sections SwiftPM passes dropped nothing of a library. -internalize-at-link leaves the mark off (without
/// link-time optimisation it changes nothing else); each program here links our modules statically, and no client
/// outside that link calls them. A program that exports its symbols (--export-dynamic) keeps its public functions
/// all the same: stripped, the daemon loses 0.3 MB; pathctl, which exports none, 0.8 MB (issue 41, item 4).
let strict: [SwiftSetting] = [
    .treatAllWarnings(as: .error),
    .unsafeFlags(
        [
            "-Xfrontend", "-disable-concrete-type-metadata-mangled-name-accessors", "-enforce-exclusivity=unchecked",
            "-Xfrontend", "-function-sections", "-Xfrontend", "-internalize-at-link", "-cross-module-optimization",
        ],
        .when(configuration: .release)),
]

/// The release link of the package's programs (issues 25 and 41: the stripped binaries' size). lld, the toolchain's
/// own linker, packs the 47,000 relative relocations of a position-independent executable into a few words (DT_RELR,
/// glibc 2.36 and later) where gold writes 24 bytes each (1.1 MB). It runs through scripts/link/ld-release, which
/// hands it the static Swift runtime with the "retain" mark off its functions, so that --gc-sections drops the
/// standard library's and Concurrency's uncalled public functions: 0.9 MB of each program. swiftc's
/// --export-dynamic stays, although it keeps every public symbol of our modules in the dynamic symbol table
/// (0.7 MB): in the stripped binary the package ships, that table is what names the functions of a crash's
/// backtrace in the journal (pathctl leaves it out: see its target).
let releaseLinker = Context.packageDirectory + "/scripts/link/ld-release"
let releaseLink: [LinkerSetting] = [
    .unsafeFlags(
        [
            "-use-ld=lld", "-Xclang-linker", "--ld-path=\(releaseLinker)",
            "-Xlinker", "-z", "-Xlinker", "pack-relative-relocs",
        ], .when(configuration: .release))
]

/// pathctl's release linker: the others' (`releaseLinker`) with libstdc++ linked in
/// (Sources/pathctl/link/ld-static-libstdc++), named from the package's directory so that a build started elsewhere
/// (`--package-path`) finds it.
let pathctlLinker = Context.packageDirectory + "/Sources/pathctl/link/ld-static-libstdc++"

/// The Debian source package builds offline (debian/rules): PATHMOND_VENDOR names the directory its vendor tarball
/// unpacks to (scripts/vendor: the packages at Package.resolved's pins), and every package is taken from there by path.
/// The dependencies of dependencies are named too: a path dependency of the root package stands in for a remote
/// one of the same identity (the directory's name), so swift-prometheus's swift-metrics and swift-atomics are the
/// vendored ones and nothing is fetched.
let vendored: [Package.Dependency]? = Context.environment["PATHMOND_VENDOR"].map { vendor in
    ["swift-argument-parser", "swift-atomics", "swift-log", "swift-metrics", "swift-prometheus", "swift-system"]
        .map { .package(path: vendor + "/" + $0) }
}

let package = Package(
    name: "pathmond",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "PathModel", targets: ["PathModel"]),
        .library(name: "PathMonitor", targets: ["PathMonitor"]),
        .executable(name: "pathmond", targets: ["pathmond"]),
        .executable(name: "pathmond-dispatcher", targets: ["pathmond-dispatcher"]),
        .executable(name: "pathctl", targets: ["pathctl"]),
        .executable(name: "pathmond-probe", targets: ["pathmond-probe"]),
        .executable(name: "pathmond-bench", targets: ["pathmond-bench"]),
        // The GIO network-monitor module: libpathmond-gio.so, installed into GIO's module directory.
        .library(name: "pathmond-gio", type: .dynamic, targets: ["PathmondGIO"]),
    ],
    dependencies: vendored ?? [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-system", from: "1.8.1"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
    ],
    targets: [
        // libnl-3 and libnl-route-3, found through pkg-config; only the Netlink target imports it.
        .systemLibrary(
            name: "CNetlink",
            pkgConfig: "libnl-route-3.0",
            providers: [.apt(["libnl-3-dev", "libnl-route-3-dev"])]
        ),
        // libsystemd: sd_notify, socket activation (sd_listen_fds) and sd-bus. Only daemon-side targets import it.
        .systemLibrary(name: "CSystemd", pkgConfig: "libsystemd", providers: [.apt(["libsystemd-dev"])]),
        // libcurl (OpenSSL): the HTTP(S) requests of the connectivity and RFC 8908 checks. Only pathmond-probe
        // imports it.
        .systemLibrary(name: "CCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        // glibc's getopt_long (its header is outside Swift's Glibc module): the daemon's command line.
        .systemLibrary(name: "CGetopt"),
        // The command line as execve gave it (argc and argv from an ELF constructor), not through /proc, where
        // Swift's runtime looks for it and finds another process's or none where /proc is not the caller's; given
        // to Swift's CommandLine too, in place of the runtime's look at /proc/self/maps before every main.
        .target(
            name: "CProgramArguments",
            cSettings: [.enableWarning("all"), .enableWarning("extra"), .treatAllWarnings(as: .error)]),
        .target(name: "ProgramArguments", dependencies: ["CProgramArguments"], swiftSettings: strict),
        // GLib's GIO and json-glib, for the GIO module only (C, loaded into GLib processes).
        .systemLibrary(name: "CGIO", pkgConfig: "gio-2.0", providers: [.apt(["libglib2.0-dev"])]),
        .systemLibrary(name: "CJSONGLib", pkgConfig: "json-glib-1.0", providers: [.apt(["libjson-glib-dev"])]),
        // A GNetworkMonitor for GIO's "gio-network-monitor" extension point that follows pathmond's WatchPath.
        .target(
            name: "PathmondGIO",
            dependencies: ["CGIO", "CJSONGLib"],
            exclude: ["link"],
            cSettings: [.enableWarning("all"), .enableWarning("extra"), .treatAllWarnings(as: .error)],
            // swiftc links every library product, and would make this C module pull the Swift runtime (and
            // libstdc++ through it) into every GLib process, from a toolchain path the target machine lacks.
            // No startup object and a static standard library leave nothing of Swift to link, but the static
            // link arguments still name libstdc++ and libm ahead of anything a target can add, and --as-needed
            // only acts on libraries after it: link/ld-as-needed runs gold with --as-needed first, so the module
            // needs GIO, json-glib and libc alone (readelf -d). SwiftPM links from the package root.
            linkerSettings: [
                .unsafeFlags([
                    "-nostartfiles", "-static-stdlib",
                    "-Xclang-linker", "--ld-path=Sources/PathmondGIO/link/ld-as-needed",
                ])
            ]
        ),
        // libpathmond, the C client library (plain C and libc). SwiftPM compiles it for the tests; the shared library
        // the package ships (soname libpathmond.so.0, versioned symbols) is built by scripts/build-libpathmond with cc.
        .target(
            name: "libpathmond",
            exclude: ["libpathmond.sym", "pathmond.pc.in"],
            cSettings: [.enableWarning("all"), .enableWarning("extra"), .treatAllWarnings(as: .error)]
        ),
        // Pure model: no imports, no I/O.
        .target(name: "PathModel", swiftSettings: strict),
        // The kernel side: rtnetlink through libnl, turned into PathModel values.
        .target(name: "Netlink", dependencies: ["CNetlink", "PathModel", "SDEvent"], swiftSettings: strict),
        // The daemon's files on disk: one bounded reader, one atomic writer, one directory sync.
        .target(
            name: "StateFiles", dependencies: [.product(name: "SystemPackage", package: "swift-system")],
            swiftSettings: strict),
        // JSON without Foundation (issue 25: no Foundation in the daemon): one strict reader, one writer, Codable.
        // Optimized in every configuration, as Foundation's coders were (a prebuilt library): the tests run a debug
        // daemon against floods of calls, and unspecialized generic coding there took root's answer past its bound.
        .target(name: "JSON", swiftSettings: strict + [.unsafeFlags(["-O"])]),
        // The user's network policy on disk: versioned, atomic and durable, recovering from corruption.
        .target(
            name: "PolicyStore", dependencies: ["JSON", "Locking", "PathModel", "StateFiles"], swiftSettings: strict),
        // The daemon's main loop: sd-event, one thread asleep in epoll until a descriptor, signal or timer fires.
        .target(name: "SDEvent", dependencies: ["CSystemd", "Locking"], swiftSettings: strict),
        // A value behind a pthread mutex: Synchronization's Mutex, but visible to ThreadSanitizer.
        .target(name: "Locking", swiftSettings: strict),
        // D-Bus through sd-bus: the only module that imports CSystemd's sd-bus.
        .target(name: "DBus", dependencies: ["CSystemd", "SDEvent"], swiftSettings: strict),
        // What the kernel's tables do not say: metered DHCP leases, NetworkManager's Metered, the SIM behind a modem.
        .target(
            name: "NetworkHints",
            dependencies: ["DBus", "JSON", "Locking", "PathModel", "SDEvent", "StateFiles"],
            swiftSettings: strict),
        // The wire format shared by daemon, CLI and client library.
        .target(name: "PathProtocol", dependencies: ["JSON", "PathModel"], swiftSettings: strict),
        // pathmond ↔ pathmond-probe: the calls and answers, how a connectivity answer is judged, the RFC 8908 parser.
        .target(name: "ConnectivityProbe", dependencies: ["JSON", "PathModel"], swiftSettings: strict),
        // The HTTP requests of the connectivity check and the RFC 8908 check, sandboxed apart from pathmond (which
        // opens no IP socket); the only user of libcurl.
        .executableTarget(
            name: "pathmond-probe", dependencies: ["CCurl", "ConnectivityProbe", "PathModel", "PathProtocol"],
            swiftSettings: strict, linkerSettings: releaseLink),
        // The client library apps import: the monitors, with Dispatch queues and asynchronous sequences, over
        // PathmondClient's connection and reconnecting watch, which pathctl uses alone (issue 41: no Dispatch and no
        // Swift concurrency runtime linked into a gate every unit start runs).
        .target(
            name: "PathMonitor", dependencies: ["Locking", "PathModel", "PathmondClient"], swiftSettings: strict),
        .target(
            name: "PathmondClient", dependencies: ["JSON", "Locking", "PathModel", "PathProtocol"],
            swiftSettings: strict),
        // What the daemon and its root helper share as processes under systemd: the journal, sd_notify, the
        // configuration file and its reload, their command lines, a socket peer's credentials.
        .target(
            name: "DaemonRuntime",
            dependencies: [
                "CGetopt", "CSystemd", "Locking", "PathModel", "PathProtocol", "SDEvent", "StateFiles",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "SystemPackage", package: "swift-system"),
            ],
            swiftSettings: strict),
        .executableTarget(
            name: "pathmond",
            dependencies: [
                "Netlink", "PathModel", "PathProtocol", "PolicyStore", "NetworkHints", "CSystemd", "SDEvent", "DBus",
                "DaemonRuntime", "Locking", "StateFiles", "ProgramArguments", "ConnectivityProbe", "JSON",
                // No swift-argument-parser: the daemon parses with getopt_long (issue 25: binary size).
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "SystemPackage", package: "swift-system"),
            ],
            swiftSettings: strict,
            linkerSettings: releaseLink
        ),
        // The root helper that starts and stops the path's targets (pathmond-dispatcher.service): its own program,
        // as systemd keeps wait-online its own, so that the daemon links neither it nor the client library.
        .executableTarget(
            name: "pathmond-dispatcher",
            dependencies: [
                "DaemonRuntime", "DBus", "Locking", "PathModel", "PathMonitor", "PathProtocol", "ProgramArguments",
                "SDEvent", "StateFiles", "CSystemd",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "SystemPackage", package: "swift-system"),
            ],
            swiftSettings: strict,
            linkerSettings: releaseLink
        ),
        .executableTarget(
            name: "pathctl",
            dependencies: [
                // No swift-argument-parser and no Foundation (issue 41): a gate every unit start runs parses its
                // command line with its own tables and prints JSON with the project's encoder.
                "JSON", "Locking", "PathmondClient", "PathModel", "PathProtocol", "ProgramArguments",
            ],
            exclude: ["link"],
            swiftSettings: strict,
            // libstdc++ linked in, not loaded (see link/ld-static-libstdc++), whatever directory the build starts in.
            // No symbols of its own in the dynamic table: swiftc's --export-dynamic put the libraries' 4,800 public
            // functions there (0.4 MB stripped), made them all roots of --gc-sections (0.8 MB more with `strict`'s
            // function sections), and made the one dladdr of each run (the runtime looking up its own path) scan
            // them: 147,000 of `pathctl check`'s 1.95 M instructions. They named a crash's frames in those public
            // functions only, never pathctl's own nor the standard library's; the Debian build's -dbgsym names them all.
            linkerSettings: releaseLink + [
                .unsafeFlags(
                    ["-Xclang-linker", "--ld-path=\(pathctlLinker)", "-Xlinker", "--no-export-dynamic"],
                    .when(configuration: .release))
            ]
        ),
        // Linux calls the bench needs that Glibc's module lacks (epoll, eventfd, setns, pipe2): a header, no code.
        .systemLibrary(name: "CBenchSupport", path: "bench/Sources/CBenchSupport"),
        .executableTarget(
            name: "pathmond-bench",
            dependencies: [
                "CBenchSupport", "JSON", "Locking", "Netlink", "PathMonitor", "PathModel", "PathProtocol",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "bench/Sources/pathmond-bench",
            swiftSettings: strict
        ),
        // A client that moves its TCP connection to a better path, as the client library is meant to be used.
        .executableTarget(
            name: "migrating-client",
            dependencies: [
                "PathMonitor", "PathModel", .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Examples/MigratingClient",
            swiftSettings: strict
        ),
        // Seeded mutation of real inputs for the parsers' fuzz tests, shared by the test targets.
        // Optimized even in debug builds: the mutator runs 1.5 million times per `swift test`, and its time is
        // not what the fuzz tests measure. Overflow checks stay on in -O, so nothing here can hide a trap.
        .target(name: "FuzzSupport", path: "Tests/FuzzSupport", swiftSettings: strict + [.unsafeFlags(["-O"])]),
        // What only tests need of rtnetlink (writing routes, addresses and link state), kept out of the shipped
        // Netlink library; `package` access gives it the library's socket and namespace runner.
        .target(
            name: "NetlinkTestSupport", dependencies: ["CNetlink", "Locking", "Netlink", "PathModel"],
            path: "Tests/NetlinkTestSupport",
            swiftSettings: strict),
        .testTarget(name: "SDEventTests", dependencies: ["Locking", "SDEvent"], swiftSettings: strict),
        .testTarget(name: "PathModelTests", dependencies: ["PathModel", "FuzzSupport"], swiftSettings: strict),
        .testTarget(name: "JSONTests", dependencies: ["JSON"], swiftSettings: strict),
        .testTarget(
            name: "NetlinkTests",
            dependencies: ["CNetlink", "Locking", "Netlink", "NetlinkTestSupport", "PathModel", "FuzzSupport"],
            exclude: ["Fixtures"],
            swiftSettings: strict),
        .testTarget(
            name: "pathmondTests",
            dependencies: [
                "pathmond", "DaemonRuntime", "Locking", "PathModel", "PathProtocol", "PolicyStore", "FuzzSupport",
                "SDEvent", "StateFiles",
                .product(name: "SystemPackage", package: "swift-system"),
            ],
            swiftSettings: strict),
        .testTarget(
            name: "DispatcherTests",
            dependencies: [
                "pathmond-dispatcher", "DaemonRuntime", "Locking", "PathModel", "PathProtocol", "SDEvent",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict),
        .testTarget(
            name: "PolicyStoreTests", dependencies: ["PolicyStore", "PathModel", "FuzzSupport", "StateFiles"],
            swiftSettings: strict),
        .testTarget(
            name: "StateFilesTests",
            dependencies: ["StateFiles", .product(name: "SystemPackage", package: "swift-system")],
            swiftSettings: strict),
        .testTarget(
            name: "NetworkHintsTests",
            dependencies: ["DBus", "Locking", "NetworkHints", "PathModel", "FuzzSupport", "SDEvent"],
            exclude: ["Fixtures"],
            swiftSettings: strict),
        // libpathmond in process: replies the daemon's own encoder writes, bad ones, and the calls it sends.
        .testTarget(
            name: "LibpathmondTests", dependencies: ["libpathmond", "PathProtocol", "PathModel", "FuzzSupport"],
            swiftSettings: strict),
        .testTarget(
            name: "PathProtocolTests", dependencies: ["JSON", "PathProtocol", "PathModel", "FuzzSupport"],
            swiftSettings: strict),
        .testTarget(
            name: "ConnectivityProbeTests", dependencies: ["ConnectivityProbe", "FuzzSupport", "PathModel"],
            swiftSettings: strict),
        // pathctl's pure parts: argument normalisation, JSON layout, table fitting.
        .testTarget(name: "pathctlTests", dependencies: ["pathctl"], swiftSettings: strict),
        // The bench's readers of other programs' output (callgrind's dumps), on captured text.
        .testTarget(name: "BenchTests", dependencies: ["pathmond-bench"], swiftSettings: strict),
        .testTarget(
            name: "PathmondIntegrationTests",
            dependencies: ["Locking", "NetlinkTestSupport", "PathMonitor", "PathModel", "PathProtocol", "Netlink"],
            exclude: ["Fixtures"],
            swiftSettings: strict
        ),
    ]
)
