// SPDX-License-Identifier: Apache-2.0
import PathModel
import PathmondClient

/// `pathctl name TARGET "Office"`: a name for a network, shown instead of its key; `--remove` takes it away.
struct Name: Verb {
    static let spec = VerbSpec(
        name: "name",
        abstract: "Give a network a name (shown instead of its key), or remove it with --remove.",
        discussion: """
            TARGET is a network key from 'pathctl networks' (it holds a colon, e.g. wired:de:b0:5b:9a:11:94) \
            or an interface, for the network on it now. A name is 1 to 64 bytes, \
            without control, bidirectional or invisible characters (such as U+202E or U+200B).
            """,
        options: [.flag("remove", "Remove the network's name.")] + ConnectionOptions.specs,
        arguments: [
            ArgumentSpec(
                name: "target", help: "A network key, or an interface whose current network to name.",
                completion: .networkKeyOrInterface),
            ArgumentSpec(name: "name", help: "The name, e.g. \"Office\".", isOptional: true),
        ])

    var target: String
    var name: String?
    var remove: Bool
    var options: ConnectionOptions

    init(_ arguments: ParsedArguments) throws(UsageError) {
        options = try ConnectionOptions(arguments)
        // The parser refuses a command line without it.
        target = arguments.argument(0) ?? ""
        name = arguments.argument(1)
        remove = arguments.flag("remove")
        switch (name, remove) {
        case (nil, false): throw UsageError("Give a name for the network, or --remove to remove its name.")
        case (_?, true): throw UsageError("Give a name or --remove, not both.")
        case (let name?, false) where !NetworkPolicy.isValidName(name):
            throw UsageError(
                "A network's name is 1 to \(NetworkPolicy.maximumNameLength) bytes, not only spaces, without control,"
                    + " bidirectional or invisible characters.")
        default: break
        }
    }

    func run() throws(ExitCode) {
        // Interface names never hold a colon (the kernel refuses them); every network key does.
        let isKey = target.contains(":")
        try runPolicyChange(options) { connection throws(PathmondClientError) in
            try connection.setNetworkName(
                remove ? nil : name, interface: isKey ? nil : target, key: isKey ? target : nil)
        }
    }
}
