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
                          connectivity NAME V4 V6      -> PropertiesChanged(Ip4Connectivity, Ip6Connectivity)
modemmanager commands:    modem PORT IMEI ICCID IMSI   -> InterfacesAdded for a modem with a SIM
                          sim PORT ICCID IMSI          -> a new SIM object, the modem's Sim property changes
                          simread PORT ICCID IMSI      -> PropertiesChanged on the current SIM (SimIdentifier, Imsi)
                          unplug PORT                  -> InterfacesRemoved
                          register PORT STATE          -> PropertiesChanged(Modem3gpp RegistrationState)
                          radio PORT TECH PERCENT RECENT -> PropertiesChanged(AccessTechnologies, SignalQuality)
Both:                     quit
"""
import os
import sys

import dbus
import dbus.mainloop.glib
import dbus.service
from gi.repository import GLib

PROPS = "org.freedesktop.DBus.Properties"


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


class NetworkManager(PropertyObject):
    def __init__(self, bus):
        super().__init__(bus, NM_PATH, {NM: {"Devices": dbus.Array([], signature="o"), "Version": "1.42.4"}})
        self.devices = {}
        self.next_number = 1

    @dbus.service.method(NM, in_signature="", out_signature="ao")
    def GetDevices(self):
        return self.interfaces[NM]["Devices"]

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
        self.devices[name] = PropertyObject(self.connection, path, {NM_DEVICE: properties})
        self.set(NM, Devices=dbus.Array([d.__dbus_object_path__ for d in self.devices.values()], signature="o"))
        self.DeviceAdded(dbus.ObjectPath(path))
        print(path, flush=True)

    def command(self, words):
        if words[0] == "add":
            self.add(*words[1:])
        elif words[0] == "metered":
            self.devices[words[1]].set(NM_DEVICE, Metered=dbus.UInt32(int(words[2])))
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
