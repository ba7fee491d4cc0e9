#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Stand-ins for NetworkManager and ModemManager on a private bus: the subset of their documented D-Bus interfaces
pathmond reads (NetworkManager's D-Bus API reference: org.freedesktop.NetworkManager, ...Device; ModemManager's:
org.freedesktop.ModemManager1, ...Modem, ...Sim, and the ObjectManager), with the signals the real services send.

Usage: standin.py networkmanager|modemmanager BUS_ADDRESS. Reads commands on stdin, one a line, and answers
"ok" (or "error: ...") on stdout once the change and its signal are sent; prints "ready" once it owns its name.

networkmanager commands:  add NAME METERED [IPIFACE]   -> prints the new device's path, then ok
                          metered NAME VALUE           -> PropertiesChanged(Metered)
                          remove NAME                  -> DeviceRemoved
                          applied NAME VALUE           -> the applied connection's connection.metered set to VALUE
                                                          (as `nmcli device modify` would), Metered follows
                          check NAME                   -> ok if every value of the applied connection kept its
                                                          type through the Reapply calls, else error
                          connectivity NAME V4 V6      -> PropertiesChanged(Ip4Connectivity, Ip6Connectivity)
modemmanager commands:    modem PORT IMEI ICCID IMSI   -> InterfacesAdded for a modem with a SIM
                          sim PORT ICCID IMSI          -> a new SIM object, the modem's Sim property changes
                          simread PORT ICCID IMSI      -> PropertiesChanged on the current SIM (SimIdentifier, Imsi)
                          unplug PORT                  -> InterfacesRemoved
                          register PORT STATE          -> PropertiesChanged(Modem3gpp RegistrationState)
                          radio PORT TECH PERCENT RECENT -> PropertiesChanged(AccessTechnologies, SignalQuality)
Both:                     slow SECONDS                 -> every later GetAll answers only after SECONDS (a service
                                                          busy or hung: the caller must not wait for it)
                          quit
"""
import os
import sys
import time

import dbus
import dbus.mainloop.glib
import dbus.service
from gi.repository import GLib

PROPS = "org.freedesktop.DBus.Properties"
# Seconds every GetAll takes (the `slow` command).
DELAY = 0.0


class PropertyObject(dbus.service.Object):
    """An object whose properties are a dict per interface, served through org.freedesktop.DBus.Properties."""

    def __init__(self, bus, path, interfaces):
        super().__init__(bus, path)
        self.interfaces = interfaces

    @dbus.service.method(PROPS, in_signature="ss", out_signature="v")
    def Get(self, interface, name):
        try:
            return self.interfaces[interface][name]
        except KeyError:
            raise dbus.exceptions.DBusException("no such property", name="org.freedesktop.DBus.Error.InvalidArgs")

    @dbus.service.method(PROPS, in_signature="s", out_signature="a{sv}")
    def GetAll(self, interface):
        time.sleep(DELAY)
        if interface not in self.interfaces:
            raise dbus.exceptions.DBusException("no such interface", name="org.freedesktop.DBus.Error.InvalidArgs")
        return dbus.Dictionary(self.interfaces[interface], signature="sv")

    @dbus.service.signal(PROPS, signature="sa{sv}as")
    def PropertiesChanged(self, interface, changed, invalidated):
        pass

    def set(self, interface, **values):
        self.interfaces[interface].update(values)
        self.PropertiesChanged(interface, dbus.Dictionary(values, signature="sv"), dbus.Array([], signature="s"))


# ---------------------------------------------------------------- NetworkManager

NM = "org.freedesktop.NetworkManager"
NM_PATH = "/org/freedesktop/NetworkManager"
NM_DEVICE = "org.freedesktop.NetworkManager.Device"


# What a device's applied connection holds, with values of many D-Bus types (an empty array among them) so that a
# client sending it back must keep each one's type, as NetworkManager's Reapply requires.
def applied_connection(name):
    return dbus.Dictionary({
        "connection": dbus.Dictionary({
            "id": dbus.String(name), "uuid": dbus.String("5b0b3a2e-0000-4000-8000-%012d" % len(name)),
            "type": dbus.String("802-3-ethernet"), "interface-name": dbus.String(name),
            "autoconnect-priority": dbus.Int32(0), "timestamp": dbus.UInt64(1795445191),
            "permissions": dbus.Array([], signature="s"),
        }, signature="sv"),
        "802-3-ethernet": dbus.Dictionary({
            "mac-address": dbus.ByteArray(b"\x02\x00\x00\x00\x00\x10"), "mtu": dbus.UInt32(0),
            "auto-negotiate": dbus.Boolean(False),
        }, signature="sv"),
        "ipv4": dbus.Dictionary({
            "method": dbus.String("manual"),
            "address-data": dbus.Array([dbus.Dictionary({"address": dbus.String("192.0.2.10"),
                                                         "prefix": dbus.UInt32(24)}, signature="sv")],
                                       signature="a{sv}"),
            "addresses": dbus.Array([dbus.Array([dbus.UInt32(0x0a0200c0), dbus.UInt32(24), dbus.UInt32(0x010200c0)],
                                                signature="u")], signature="au"),
            "dns-search": dbus.Array([], signature="s"), "route-metric": dbus.Int64(-1),
        }, signature="sv"),
    }, signature="sa{sv}")


BASIC_SIGNATURES = {dbus.String: "s", dbus.Int32: "i", dbus.UInt32: "u", dbus.UInt64: "t", dbus.Int64: "x",
                    dbus.Boolean: "b", dbus.Byte: "y", dbus.ObjectPath: "o", dbus.Double: "d", dbus.Int16: "n",
                    dbus.UInt16: "q"}


def signature_of(value):
    """The D-Bus type of a dbus-python value, the same whether it was made here or received."""
    if isinstance(value, dbus.ByteArray):
        return "ay"
    if isinstance(value, dbus.Dictionary):
        return "a{%s}" % value.signature
    if isinstance(value, dbus.Array):
        return "a%s" % value.signature
    if isinstance(value, dbus.Struct):
        return "(%s)" % "".join(signature_of(item) for item in value)
    return BASIC_SIGNATURES.get(type(value), type(value).__name__)


def shape(settings):
    return {group: {key: signature_of(value) for key, value in values.items()} for group, values in settings.items()}


METERED_SETTING_TO_DEVICE = {0: 4, 1: 1, 2: 2}  # unknown -> GUESS_NO, yes -> YES, no -> NO


class Device(PropertyObject):
    """A device with an applied connection: GetAppliedConnection and Reapply as NetworkManager serves them."""

    def __init__(self, bus, path, interfaces, name):
        super().__init__(bus, path, interfaces)
        self.applied = applied_connection(name)
        self.version = 1
        self.expected_shape = shape(self.applied)
        self.shape_problems = []

    # What NetworkManager answers a caller polkit does not authorize for network-control (command "authorize off").
    authorized = True

    def check_authorized(self):
        if not Device.authorized:
            raise dbus.exceptions.DBusException(
                "Not authorized to control networking.", name="org.freedesktop.NetworkManager.PermissionDenied")

    @dbus.service.method(NM_DEVICE, in_signature="u", out_signature="a{sa{sv}}t")
    def GetAppliedConnection(self, flags):
        self.check_authorized()
        return self.applied, dbus.UInt64(self.version)

    @dbus.service.method(NM_DEVICE, in_signature="a{sa{sv}}tu", out_signature="")
    def Reapply(self, connection, version_id, flags):
        self.check_authorized()
        if version_id != 0 and version_id != self.version:
            raise dbus.exceptions.DBusException(
                "the applied connection changed", name="org.freedesktop.NetworkManager.Device.VersionIdMismatch")
        received = shape(connection)
        expected = dict(self.expected_shape)
        expected["connection"] = dict(expected["connection"], metered="i")
        received_connection = dict(received.get("connection", {}))
        received_connection.setdefault("metered", "i")
        received["connection"] = received_connection
        if received != expected:
            self.shape_problems.append(repr(received))
        self.applied = connection
        self.version += 1
        self.set_metered_from_applied()

    def set_metered_from_applied(self):
        metered = int(self.applied["connection"].get("metered", 0))
        self.set(NM_DEVICE, Metered=dbus.UInt32(METERED_SETTING_TO_DEVICE.get(metered, 0)))


class NetworkManager(PropertyObject):
    def __init__(self, bus):
        super().__init__(bus, NM_PATH, {NM: {"Devices": dbus.Array([], signature="o"), "Version": "1.42.4",
                                             "ConnectivityCheckEnabled": dbus.Boolean(True),
                                             "ConnectivityCheckAvailable": dbus.Boolean(True)}})
        self.devices = {}
        self.next_number = 1

    @dbus.service.method(NM, in_signature="", out_signature="ao")
    def GetDevices(self):
        return self.interfaces[NM]["Devices"]

    @dbus.service.method(NM, in_signature="s", out_signature="o")
    def GetDeviceByIpIface(self, name):
        if name not in self.devices:
            raise dbus.exceptions.DBusException("No device found", name="org.freedesktop.NetworkManager.UnknownDevice")
        return dbus.ObjectPath(self.devices[name].__dbus_object_path__)

    @dbus.service.signal(NM, signature="o")
    def DeviceAdded(self, path):
        pass

    @dbus.service.signal(NM, signature="o")
    def DeviceRemoved(self, path):
        pass

    def add(self, name, metered, ip_interface=""):
        path = "%s/Devices/%d" % (NM_PATH, self.next_number)
        self.next_number += 1
        properties = {
            "Interface": dbus.String(name), "IpInterface": dbus.String(ip_interface),
            "Metered": dbus.UInt32(int(metered)), "DeviceType": dbus.UInt32(1), "State": dbus.UInt32(100),
            "Managed": dbus.Boolean(True), "Ip4Connectivity": dbus.UInt32(0), "Ip6Connectivity": dbus.UInt32(0),
        }
        self.devices[name] = Device(self.connection, path, {NM_DEVICE: properties}, name)
        self.set(NM, Devices=dbus.Array([d.__dbus_object_path__ for d in self.devices.values()], signature="o"))
        self.DeviceAdded(dbus.ObjectPath(path))
        print(path, flush=True)

    def command(self, words):
        if words[0] == "add":
            self.add(*words[1:])
        elif words[0] == "metered":
            self.devices[words[1]].set(NM_DEVICE, Metered=dbus.UInt32(int(words[2])))
        elif words[0] == "applied":
            device = self.devices[words[1]]
            connection = dict(device.applied)
            connection["connection"] = dbus.Dictionary(dict(connection["connection"], metered=dbus.Int32(int(words[2]))),
                                                       signature="sv")
            device.applied = dbus.Dictionary(connection, signature="sa{sv}")
            device.version += 1
            device.set_metered_from_applied()
        elif words[0] == "authorize":
            Device.authorized = words[1] == "on"
        elif words[0] == "check":
            problems = self.devices[words[1]].shape_problems
            if problems:
                raise ValueError("types changed: " + "; ".join(problems))
        elif words[0] == "checking":
            self.set(NM, ConnectivityCheckEnabled=dbus.Boolean(words[1] == "on"))
        elif words[0] == "connectivity":
            self.devices[words[1]].set(NM_DEVICE, Ip4Connectivity=dbus.UInt32(int(words[2])),
                                       Ip6Connectivity=dbus.UInt32(int(words[3])))
        elif words[0] == "remove":
            device = self.devices.pop(words[1])
            path = device.__dbus_object_path__
            device.remove_from_connection()
            self.set(NM, Devices=dbus.Array([d.__dbus_object_path__ for d in self.devices.values()], signature="o"))
            self.DeviceRemoved(dbus.ObjectPath(path))
        else:
            raise ValueError("unknown command " + words[0])


# ---------------------------------------------------------------- ModemManager

MM = "org.freedesktop.ModemManager1"
MM_PATH = "/org/freedesktop/ModemManager1"
MM_MODEM = "org.freedesktop.ModemManager1.Modem"
MM_SIM = "org.freedesktop.ModemManager1.Sim"
MM_3GPP = "org.freedesktop.ModemManager1.Modem.Modem3gpp"
OBJECT_MANAGER = "org.freedesktop.DBus.ObjectManager"


class ModemManager(dbus.service.Object):
    def __init__(self, bus):
        super().__init__(bus, MM_PATH)
        self.bus = bus
        self.modems = {}  # port -> PropertyObject
        self.sims = {}  # port -> PropertyObject
        self.next_modem = 0
        self.next_sim = 0

    @dbus.service.method(OBJECT_MANAGER, in_signature="", out_signature="a{oa{sa{sv}}}")
    def GetManagedObjects(self):
        return {m.__dbus_object_path__: m.interfaces for m in self.modems.values()}

    @dbus.service.signal(OBJECT_MANAGER, signature="oa{sa{sv}}")
    def InterfacesAdded(self, path, interfaces):
        pass

    @dbus.service.signal(OBJECT_MANAGER, signature="oas")
    def InterfacesRemoved(self, path, interfaces):
        pass

    def new_sim(self, iccid, imsi):
        path = "%s/SIM/%d" % (MM_PATH, self.next_sim)
        self.next_sim += 1
        return PropertyObject(self.bus, path, {MM_SIM: {"SimIdentifier": dbus.String(iccid), "Imsi": dbus.String(imsi),
                                                       "OperatorName": dbus.String("Test")}})

    def command(self, words):
        if words[0] == "modem":
            port, imei, iccid, imsi = words[1:]
            sim = self.new_sim(iccid, imsi)
            path = "%s/Modem/%d" % (MM_PATH, self.next_modem)
            self.next_modem += 1
            ports = dbus.Array([dbus.Struct((port, dbus.UInt32(2))), dbus.Struct(("cdc-wdm9", dbus.UInt32(6)))],
                               signature="(su)")
            # Registered at home on LTE (MM_MODEM_ACCESS_TECHNOLOGY_LTE = 1 << 14), a recent 60 % signal.
            modem = PropertyObject(self.bus, path, {
                MM_MODEM: {
                    "Ports": ports, "Sim": dbus.ObjectPath(sim.__dbus_object_path__),
                    "EquipmentIdentifier": dbus.String(imei), "State": dbus.Int32(8),
                    "AccessTechnologies": dbus.UInt32(1 << 14),
                    "SignalQuality": dbus.Struct((dbus.UInt32(60), dbus.Boolean(True)), signature="ub")},
                MM_3GPP: {"RegistrationState": dbus.UInt32(1), "OperatorCode": dbus.String("26201")}})
            self.modems[port], self.sims[port] = modem, sim
            self.InterfacesAdded(dbus.ObjectPath(path), modem.interfaces)
        elif words[0] == "sim":
            port, iccid, imsi = words[1:]
            old = self.sims[port]
            self.sims[port] = self.new_sim(iccid, imsi)
            old.remove_from_connection()
            self.modems[port].set(MM_MODEM, Sim=dbus.ObjectPath(self.sims[port].__dbus_object_path__))
        elif words[0] == "simread":
            port, iccid, imsi = words[1:]
            self.sims[port].set(MM_SIM, SimIdentifier=dbus.String(iccid), Imsi=dbus.String(imsi))
        elif words[0] == "register":
            self.modems[words[1]].set(MM_3GPP, RegistrationState=dbus.UInt32(int(words[2])))
        elif words[0] == "radio":
            port, tech, percent, recent = words[1:]
            quality = dbus.Struct((dbus.UInt32(int(percent)), dbus.Boolean(recent == "yes")), signature="ub")
            self.modems[port].set(MM_MODEM, AccessTechnologies=dbus.UInt32(int(tech)), SignalQuality=quality)
        elif words[0] == "unplug":
            modem = self.modems.pop(words[1])
            path = modem.__dbus_object_path__
            modem.remove_from_connection()
            self.sims.pop(words[1]).remove_from_connection()
            self.InterfacesRemoved(dbus.ObjectPath(path), dbus.Array([MM_MODEM, MM_3GPP], signature="s"))
        else:
            raise ValueError("unknown command " + words[0])


def main():
    kind, address = sys.argv[1], sys.argv[2]
    dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
    bus = dbus.bus.BusConnection(address)
    service = NetworkManager(bus) if kind == "networkmanager" else ModemManager(bus)
    name = dbus.service.BusName(NM if kind == "networkmanager" else MM, bus)
    loop = GLib.MainLoop()

    pending = b""

    def on_input(channel, condition):
        # os.read, not sys.stdin: a buffered reader would swallow lines the watch is never woken for again.
        nonlocal pending
        chunk = os.read(sys.stdin.fileno(), 4096)
        if not chunk:
            loop.quit()
            return False
        pending += chunk
        while b"\n" in pending:
            line, pending = pending.split(b"\n", 1)
            line = line.decode().strip()
            if line == "quit":
                loop.quit()
                return False
            if not line:
                continue
            if line.startswith("slow "):
                global DELAY
                DELAY = float(line.split()[1])
                print("ok", flush=True)
                continue
            try:
                service.command(line.split())
                # A round trip to the bus daemon: every signal emitted above has reached it before "ok".
                bus.get_name_owner("org.freedesktop.DBus")
                print("ok", flush=True)
            except Exception as error:  # noqa: BLE001 - the test reads the message
                print("error: %s" % error, flush=True)
        return True

    GLib.io_add_watch(sys.stdin.fileno(), GLib.IO_IN | GLib.IO_HUP, on_input)
    print("ready", flush=True)
    loop.run()
    del name


if __name__ == "__main__":
    main()
