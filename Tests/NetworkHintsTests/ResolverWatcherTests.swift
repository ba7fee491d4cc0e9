// SPDX-License-Identifier: Apache-2.0
import Glibc
import PathModel
import Testing

@testable import NetworkHints

/// The next configuration, or nil if none arrives within the deadline (which only bounds a failing test; nothing
/// waits for it when the watcher works).
private func next(
    _ stream: AsyncStream<ResolverConfiguration>, within seconds: Int = 10
) async -> ResolverConfiguration? {
    await withTaskGroup(of: ResolverConfiguration?.self) { group in
        group.addTask {
            var iterator = stream.makeAsyncIterator()
            return await iterator.next()
        }
        group.addTask {
            try? await Task.sleep(for: .seconds(seconds))
            return nil
        }
        let first = await group.next() ?? nil
        group.cancelAll()
        return first
    }
}

/// Writes a file in place: created, then written, then closed (each step an inotify event).
private func write(_ path: String, _ text: String) {
    let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
    precondition(descriptor >= 0, "open \(path)")
    let bytes = Array(text.utf8)
    precondition(bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) } == bytes.count)
    close(descriptor)
}

/// Replaces a file the way resolved and NetworkManager do: a temporary file beside it, renamed over it.
private func replace(_ path: String, _ text: String) {
    let temporary = ResolverConfigurationReader.parent(of: path) + "/.#new"
    write(temporary, text)
    precondition(rename(temporary, path) == 0, "rename to \(path)")
}

/// Removes a directory tree made under a temporary directory.
private func removeResolverTree(_ path: String) {
    if let stream = opendir(path) {
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) {
                String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self)
            }
            guard name != "." && name != ".." else { continue }
            if entry.pointee.d_type == UInt8(DT_DIR) {
                removeResolverTree(path + "/" + name)
            } else {
                unlink(path + "/" + name)
            }
        }
        closedir(stream)
    }
    rmdir(path)
}

@Test func watcherFollowsRenamesAndLinkFiles() async throws {
    let root = makeTemporaryDirectory()
    defer { removeResolverTree(root) }
    mkdir(root + "/etc", 0o755)
    mkdir(root + "/run", 0o755)
    let resolved = root + "/run/resolve"
    let reader = ResolverConfigurationReader(
        resolvConf: root + "/etc/resolv.conf", resolvedDirectory: resolved,
        networkdLinksDirectory: root + "/run/links")
    let watcher = try ResolverWatcher(reader: reader)
    let stream = watcher.configurations()

    // Nothing there yet: the empty configuration, at once.
    #expect(await next(stream) == ResolverConfiguration())

    write(root + "/etc/resolv.conf", "# written in place\nnameserver 192.0.2.1\n")
    #expect(await next(stream) == ResolverConfiguration(globalServers: [address("192.0.2.1")]))

    // Replaced by rename with resolved's stub, while resolved's directory does not exist yet.
    replace(root + "/etc/resolv.conf", "nameserver 127.0.0.53\noptions edns0 trust-ad\n")
    #expect(await next(stream) == ResolverConfiguration())

    // resolved's directory appears (noticed through its parent), then its upstream file.
    mkdir(resolved, 0o755)
    replace(resolved + "/resolv.conf", "nameserver 198.51.100.53\nnameserver 192.0.2.53\n")
    let upstreams = ResolverConfiguration(globalServers: ["198.51.100.53", "192.0.2.53"].map(address))
    #expect(await next(stream) == upstreams)

    // A link file: its server moves from global to the link.
    mkdir(resolved + "/netif", 0o755)
    replace(resolved + "/netif/3", "SERVERS=192.0.2.53\n")
    let withLink = ResolverConfiguration(
        globalServers: [address("198.51.100.53")], linkServers: [3: [address("192.0.2.53")]])
    #expect(await next(stream) == withLink)

    // Rewritten with the same content: nothing new is delivered, so the deletion is what comes next.
    replace(resolved + "/netif/3", "# same servers\nSERVERS=192.0.2.53\n")
    unlink(resolved + "/netif/3")
    #expect(await next(stream) == upstreams)

    watcher.stop()
    #expect(await next(stream) == nil)
}

@Test func watcherFollowsTheSymbolicLinkTarget() async throws {
    let root = makeTemporaryDirectory()
    defer { removeResolverTree(root) }
    mkdir(root + "/etc", 0o755)
    mkdir(root + "/manager", 0o755)
    write(root + "/manager/resolv.conf", "nameserver 192.0.2.1\n")
    symlink("../manager/resolv.conf", root + "/etc/resolv.conf")
    let watcher = try ResolverWatcher(
        reader: ResolverConfigurationReader(
            resolvConf: root + "/etc/resolv.conf", resolvedDirectory: root + "/missing/resolve",
            networkdLinksDirectory: root + "/missing/links"))
    let stream = watcher.configurations()
    #expect(await next(stream) == ResolverConfiguration(globalServers: [address("192.0.2.1")]))

    // The target is replaced in its own directory; /etc sees nothing of it.
    replace(root + "/manager/resolv.conf", "nameserver 192.0.2.2\n")
    #expect(await next(stream) == ResolverConfiguration(globalServers: [address("192.0.2.2")]))

    // The link is pointed elsewhere: the new target's directory is watched from then on.
    mkdir(root + "/other", 0o755)
    write(root + "/other/resolv.conf", "nameserver 192.0.2.3\n")
    symlink("../other/resolv.conf", root + "/etc/.#link")
    rename(root + "/etc/.#link", root + "/etc/resolv.conf")
    #expect(await next(stream) == ResolverConfiguration(globalServers: [address("192.0.2.3")]))
    replace(root + "/other/resolv.conf", "nameserver 192.0.2.4\n")
    #expect(await next(stream) == ResolverConfiguration(globalServers: [address("192.0.2.4")]))
    watcher.stop()
}
