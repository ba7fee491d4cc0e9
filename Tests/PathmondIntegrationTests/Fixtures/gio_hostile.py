#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""A GLib process against a hostile fake pathmond (hostile_server.py): it must survive and stay sane.

    /usr/bin/python3 gio_hostile.py MODE SCENARIO MODULE_DIRECTORY WORK_DIRECTORY

Starts the server on WORK_DIRECTORY/io.pathmond, points the module at it (PATHMOND_SOCKET, GIO_EXTRA_MODULES),
calls Gio.NetworkMonitor.get_default(), runs MODE, prints one JSON object and exits 0. Modes:
  survive     iterate the main context for 1.5 s, then report the properties
  flood       the server sends 100 000 paths, the last one unsatisfied; until that one is notified, measure how
              long an idle callback (priority DEFAULT_IDLE) queued every 10 ms waits, in iterations and seconds
  crash-loop  iterate for 8 s against a server that answers and closes: count connections and notifications
  no-loop     never iterate: read metered, have the server send an expensive path, read metered again
  no-loop-reconnect   never iterate, against a server that closes the first connection and gives later ones
              an expensive path: read metered every 100 ms for up to 3 s until it is true
Every report has "type", "available", "metered", "connections" (how many times the module connected) and
"notifications" (notify:: signals seen).
"""
import json
import os
import subprocess
import sys
import threading
import time

mode, scenario, modules, work = sys.argv[1:5]
socket_path = os.path.join(work, "io.pathmond")
os.environ["PATHMOND_SOCKET"] = socket_path
os.environ["GIO_EXTRA_MODULES"] = modules
os.environ.pop("GIO_USE_NETWORK_MONITOR", None)
os.environ.pop("GIO_MODULE_DIR", None)

from gi.repository import Gio, GLib  # noqa: E402  (after the environment GIO reads)

server = subprocess.Popen(
    ["/usr/bin/python3", os.path.join(os.path.dirname(os.path.abspath(__file__)), "hostile_server.py"), scenario,
     socket_path], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
assert server.stdout.readline().strip() == "listening"
lines = []
arrived = threading.Condition()


def read_server():
    for line in server.stdout:
        with arrived:
            lines.append(line.strip())
            arrived.notify_all()


threading.Thread(target=read_server, daemon=True).start()


def wait_for_line(prefix, timeout=30):
    deadline = time.monotonic() + timeout
    with arrived:
        while not any(line.startswith(prefix) for line in lines):
            if not arrived.wait(deadline - time.monotonic()):
                raise SystemExit(f"no {prefix!r} from the server: {lines}")


def connections():
    with arrived:
        return sum(1 for line in lines if line.startswith("connection "))


context = GLib.MainContext.default()


def iterate_for(seconds):
    wake = GLib.timeout_add(10, lambda: True)
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        context.iteration(True)
    GLib.source_remove(wake)


monitor = Gio.NetworkMonitor.get_default()
notifications = []
for name in ("network-available", "network-metered", "connectivity"):
    monitor.connect(f"notify::{name}", lambda m, spec: notifications.append(spec.name))
report = {"type": type(monitor).__gtype__.name}

if mode == "survive":
    iterate_for(1.5)
elif mode == "crash-loop":
    start = time.monotonic()
    iterate_for(8)
    report["seconds"] = time.monotonic() - start
elif mode == "flood":
    # Every 10 ms a timeout (default priority) queues an idle callback (DEFAULT_IDLE, as applications' idle work):
    # how many iterations and how long until it runs says whether the flood starves the application.
    iterations = 0
    idle = {"queuedAt": None, "queuedTime": 0.0, "runs": 0, "mostIterations": 0, "longest": 0.0}

    def idle_ran():
        idle["runs"] += 1
        idle["mostIterations"] = max(idle["mostIterations"], iterations - idle["queuedAt"])
        idle["longest"] = max(idle["longest"], time.monotonic() - idle["queuedTime"])
        idle["queuedAt"] = None
        return False

    def tick():
        if idle["queuedAt"] is None:
            idle["queuedAt"], idle["queuedTime"] = iterations, time.monotonic()
            GLib.idle_add(idle_ran, priority=GLib.PRIORITY_DEFAULT_IDLE)
        return True

    GLib.timeout_add(10, tick)
    started = time.monotonic()
    cpu = time.process_time()
    # The flood's last path is the only unsatisfied one: its network-available notification ends the run.
    while "network-available" not in notifications:
        context.iteration(True)
        iterations += 1
        if time.monotonic() - started > 90:
            report["timedOut"] = True
            break
    report.update(iterations=iterations, idleRuns=idle["runs"], mostIterationsBeforeIdle=idle["mostIterations"],
                  longestIdleWait=idle["longest"], seconds=time.monotonic() - started,
                  cpuSeconds=time.process_time() - cpu)
elif mode == "no-loop":
    report["meteredBefore"] = monitor.get_network_metered()
    server.stdin.write("expensive\n")
    server.stdin.flush()
    wait_for_line("sent expensive")
    # The bytes are on their way when the server says so; a loaded machine may take a while to deliver them.
    # Polled, never iterated: the getter alone must bring the new path in.
    deadline = time.monotonic() + 5
    while not monitor.get_network_metered() and time.monotonic() < deadline:
        time.sleep(0.05)
elif mode == "no-loop-reconnect":
    report["meteredBefore"] = monitor.get_network_metered()
    # The getter finds the connection closed, the next one past the delay reconnects, a later one reads the path.
    deadline = time.monotonic() + 3
    while not monitor.get_network_metered() and time.monotonic() < deadline:
        time.sleep(0.1)
else:
    raise SystemExit(f"unknown mode {mode}")

report.update(available=monitor.get_network_available(), metered=monitor.get_network_metered(),
              connectivity=monitor.get_connectivity().value_nick, connections=connections(),
              notifications=len(notifications), meteredNotifications=notifications.count("network-metered"))
server.kill()
server.wait()
print(json.dumps(report), flush=True)
