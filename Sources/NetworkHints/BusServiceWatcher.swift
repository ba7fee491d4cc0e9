// SPDX-License-Identifier: Apache-2.0
import DBus
import SDEvent

/// Follows one service on the system bus through its signals. `SystemBusWatch` attaches it to each new connection
/// and detaches it when the connection is lost; both happen on the connection's queue.
protocol BusServiceWatcher: AnyObject, Sendable {
    /// Adds the watcher's match rules, then asks the bus who owns the service's name and reads its current state
    /// from that owner (rules first, so that no change falls between the read and the signals). On the connection's
    /// loop thread.
    func attach(to connection: BusConnection) throws(BusError)
    /// The connection is gone: forget everything learnt through it and publish that. On its loop thread.
    func detach()
    /// Binds the watcher's state to the loop its connections will use (`BusWatcherState`); called once, by the
    /// `SystemBusWatch` that takes the watcher, before anything else.
    func bind(to loop: SDEventLoop)
}

/// Match rules shared by the watchers. They narrow what the bus daemon sends this connection; they prove nothing about
/// who sent what arrives (see `BusSignal`): `FollowedService` checks every signal they let through.
enum BusMatchRules {
    /// The bus's NameOwnerChanged for one well-known name: the service starting, stopping or being replaced.
    static func nameOwnerChanged(_ name: String) -> String {
        "type='signal',sender='org.freedesktop.DBus',path='/org/freedesktop/DBus',interface='org.freedesktop.DBus',"
            + "member='NameOwnerChanged',arg0='\(name)'"
    }

    /// PropertiesChanged for one interface on the objects under a path, sent by the owner of `sender`.
    static func propertiesChanged(sender: String, pathNamespace: String, interface: String?) -> String {
        "type='signal',sender='\(sender)',interface='org.freedesktop.DBus.Properties',member='PropertiesChanged',"
            + "path_namespace='\(pathNamespace)'" + (interface.map { ",arg0='\($0)'" } ?? "")
    }

    /// One signal of the owner of `sender` on one object.
    static func signal(sender: String, path: String, interface: String, member: String) -> String {
        "type='signal',sender='\(sender)',path='\(path)',interface='\(interface)',member='\(member)'"
    }
}
