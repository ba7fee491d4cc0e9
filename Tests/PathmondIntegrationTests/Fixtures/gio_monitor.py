#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""A GLib process holding the default GNetworkMonitor, as an application does, reporting what it sees.

Run with Debian's /usr/bin/python3 (python3-gi). Prints one JSON object per line:
  ready    once get_default() returned: the chosen type, how long it took, what it cost the process (before
           the main loop runs: PyGObject's loop adds a socket pair of its own), the properties
  notify   a notify:: signal of one of the three properties
  changed  a network-changed signal: its argument and the properties then
  state, reach, reach-async   replies to the commands read from standard input, one per line:
    state | reach HOST PORT | reach-async HOST PORT
Every event carries "at", CLOCK_MONOTONIC seconds, comparable with other processes' clocks.
"""
import json
import os
import sys
import time

from gi.repository import Gio, GLib

PROPERTIES = ("network-available", "network-metered", "connectivity")


def now():
    return time.clock_gettime(time.CLOCK_MONOTONIC)


def emit(event, **fields):
    print(json.dumps({"event": event, "at": now(), **fields}), flush=True)


def state(monitor):
    return {
        "available": monitor.get_network_available(),
        "metered": monitor.get_network_metered(),
        "connectivity": monitor.get_connectivity().value_nick,
    }


def sockets():
    """The inodes of this process's sockets, and which of them are Unix and netlink sockets."""
    inodes = set()
    for fd in os.listdir("/proc/self/fd"):
        try:
            target = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            continue
        if target.startswith("socket:["):
            inodes.add(target[len("socket:["):-1])

    def inodes_in(table, column):
        with open(table) as lines:
            next(lines)
            return {line.split()[column] for line in lines if len(line.split()) > column}

    return inodes, inodes & inodes_in("/proc/self/net/unix", 6), inodes & inodes_in("/proc/self/net/netlink", 9)


def cost(baseline):
    inodes, unix, netlink = sockets()
    new = inodes - baseline
    return {
        "descriptors": len(os.listdir("/proc/self/fd")),
        "threads": len(os.listdir("/proc/self/task")),
        "newSockets": len(new),
        "newUnixSockets": len(new & unix),
        "newNetlinkSockets": len(new & netlink),
    }


def reach_reply(verb, call):
    try:
        call()
        emit(verb, reachable=True)
    except GLib.Error as error:
        code = Gio.IOErrorEnum(error.code).value_nick if error.domain == "g-io-error-quark" else str(error.code)
        emit(verb, reachable=False, error=code, message=error.message)


def main():
    baseline, _, _ = sockets()
    before = {"descriptors": len(os.listdir("/proc/self/fd")), "threads": len(os.listdir("/proc/self/task"))}
    start = now()
    monitor = Gio.NetworkMonitor.get_default()
    seconds = now() - start
    emit("ready", type=type(monitor).__gtype__.name, seconds=seconds, before=before, cost=cost(baseline),
         **state(monitor))

    monitor.connect("network-changed", lambda m, available: emit("changed", argument=available, **state(m)))
    for name in PROPERTIES:
        monitor.connect(f"notify::{name}", lambda m, spec: emit("notify", property=spec.name))

    loop = GLib.MainLoop()
    pending = b""

    def on_input(channel, condition):
        nonlocal pending
        data = os.read(0, 4096)
        if not data:
            loop.quit()
            return False
        pending += data
        while b"\n" in pending:
            line, pending = pending.split(b"\n", 1)
            command(line.decode().split())
        return True

    def command(words):
        if not words:
            return
        if words[0] == "state":
            emit("state", **state(monitor))
        elif words[0] == "reach":
            address = Gio.NetworkAddress.new(words[1], int(words[2]))
            reach_reply("reach", lambda: monitor.can_reach(address, None))
        elif words[0] == "reach-async":
            address = Gio.NetworkAddress.new(words[1], int(words[2]))

            def finished(source, result):
                reach_reply("reach-async", lambda: monitor.can_reach_finish(result))

            monitor.can_reach_async(address, None, finished)
        else:
            emit("error", message=f"unknown command {words[0]}")

    GLib.io_add_watch(GLib.IOChannel.unix_new(0), GLib.PRIORITY_DEFAULT, GLib.IO_IN | GLib.IO_HUP, on_input)
    loop.run()


if __name__ == "__main__":
    main()
