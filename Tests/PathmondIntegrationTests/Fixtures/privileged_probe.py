#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Runs a command next to a fake pathmond and says whether the command's process connected to it.

    privileged_probe.py WORK_DIRECTORY COMMAND...

Starts hostile_server.py (scenario "serve") on WORK_DIRECTORY/io.pathmond, runs COMMAND with PATHMOND_SOCKET
pointing there, and prints one JSON object: the command's status and output, and how many connections the
server received.
"""
import json
import os
import subprocess
import sys
import time

work, command = sys.argv[1], sys.argv[2:]
socket_path = os.path.join(work, "io.pathmond")
server = subprocess.Popen(
    ["/usr/bin/python3", os.path.join(os.path.dirname(os.path.abspath(__file__)), "hostile_server.py"), "serve",
     socket_path], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
assert server.stdout.readline().strip() == "listening"
environment = dict(os.environ, PATHMOND_SOCKET=socket_path)
environment.pop("GIO_USE_NETWORK_MONITOR", None)
result = subprocess.run(command, env=environment, capture_output=True, text=True, timeout=30)
time.sleep(0.2)
server.stdin.close()
output = server.stdout.read()
server.wait(timeout=10)
connections = sum(1 for line in output.splitlines() if line.startswith("connection "))
print(json.dumps({"status": result.returncode, "output": result.stdout.strip(), "errors": result.stderr,
                  "connections": connections}), flush=True)
