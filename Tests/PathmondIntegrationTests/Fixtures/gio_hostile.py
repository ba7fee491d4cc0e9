#!/usr/bin/python3
"""A GLib process against a hostile fake pathmond (hostile_server.py): it must survive and stay sane.

    /usr/bin/python3 gio_hostile.py MODE SCENARIO MODULE_DIRECTORY WORK_DIRECTORY

Starts the server on WORK_DIRECTORY/io.pathmond, points the module at it (PATHMOND_SOCKET, GIO_EXTRA_MODULES),
calls Gio.NetworkMonitor.get_default(), runs MODE, prints one JSON object and exits 0. Modes:
  survive     iterate the main context for 1.5 s, then report the properties
  flood       the server sends 100 000 paths; count main-loop iterations between runs of an idle callback
              (priority DEFAULT_IDLE) until the flood is over, then report the final properties
  crash-loop  iterate for 4 s against a server that answers and closes: count connections and notifications
  no-loop     never iterate: read metered, have the server send an expensive path, read metered again
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
    iterate_for(4)
    report["seconds"] = time.monotonic() - start
elif mode == "flood":
    idle_runs = [0]
    since_idle = [0]
    worst = [0]

    def idle():
        idle_runs[0] += 1
        since_idle[0] = 0
        return True

    GLib.idle_add(idle, priority=GLib.PRIORITY_DEFAULT_IDLE)
    started = time.monotonic()
    cpu = time.process_time()
    iterations = 0
    slowest = 0.0
    while True:
        before = time.monotonic()
        context.iteration(True)
        slowest = max(slowest, time.monotonic() - before)
        iterations += 1
        since_idle[0] += 1
        worst[0] = max(worst[0], since_idle[0])
        with arrived:
            sent = any(line.startswith("sent ") for line in lines)
        # Over once the server sent everything, the socket is drained and the last path is reported.
        if sent and monitor.get_network_metered() and not context.pending():
            break
        if time.monotonic() - started > 120:
            report["timedOut"] = True
            break
    report.update(iterations=iterations, idleRuns=idle_runs[0], mostIterationsWithoutIdle=worst[0],
                  slowestIteration=slowest, seconds=time.monotonic() - started, cpuSeconds=time.process_time() - cpu)
elif mode == "no-loop":
    report["meteredBefore"] = monitor.get_network_metered()
    server.stdin.write("expensive\n")
    server.stdin.flush()
    wait_for_line("sent expensive")
    time.sleep(0.3)
else:
    raise SystemExit(f"unknown mode {mode}")

report.update(available=monitor.get_network_available(), metered=monitor.get_network_metered(),
              connectivity=monitor.get_connectivity().value_nick, connections=connections(),
              notifications=len(notifications), meteredNotifications=notifications.count("network-metered"))
server.kill()
server.wait()
print(json.dumps(report), flush=True)
