#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Issue 10's hostile local user, for DenialOfServiceTests (run as nobody through setpriv).

usage: dos_attacker.py SOCKET SECONDS [CONNECTIONS]
Attempts CONNECTIONS (default 5000) connections to pathmond: 10 pipeline ListInterfaces calls and never read,
20 send a malformed message, read the answer and reconnect, over and over; the rest are held idle (past the
per-user limit pathmond answers LimitReached and closes them). Prints "opened held H refused R" once every
connection was attempted, and "totals ..." when SECONDS are over.
"""
import resource
import select
import socket
import struct
import sys
import threading
import time

path, seconds = sys.argv[1], float(sys.argv[2])
connections = int(sys.argv[3]) if len(sys.argv) > 3 else 5000
deadline = time.monotonic() + seconds
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
totals = {"pipelined": 0, "answered": 0, "refused": 0, "failed": 0}


def connect():
    client = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    # A blocking connect waits for room in the accept queue, bounded by SO_SNDTIMEO (a socket timeout would make
    # Python fail at once with EAGAIN when the queue is full).
    client.setsockopt(socket.SOL_SOCKET, socket.SO_SNDTIMEO, struct.pack("ll", 1, 0))
    try:
        client.connect(path)
        client.settimeout(1.0)
        return client
    except OSError:
        client.close()
        return None


def pipeline(clients):
    burst = b'{"method":"io.pathmond.ListInterfaces"}\0' * 400
    for client in clients:
        client.setblocking(False)
    while time.monotonic() < deadline:
        for client in clients:
            try:
                while True:
                    totals["pipelined"] += client.send(burst) // 40
            except OSError:
                pass
        select.select([], clients, [], 0.1)


def flood(first):
    client = first
    while time.monotonic() < deadline:
        client = client or connect()
        if client is None:
            totals["failed"] += 1
            time.sleep(0.01)
            continue
        try:
            client.sendall(b'{"method": this is not JSON\0')
            reply = client.recv(4096)
            totals["refused" if b"LimitReached" in reply else "answered" if reply else "failed"] += 1
        except OSError:
            totals["failed"] += 1
        client.close()
        client = None


pipeliners = [c for c in (connect() for _ in range(10)) if c]
flooders = [connect() for _ in range(20)]
idle = [connect() for _ in range(connections - 30)]
# Connections pathmond has not accepted yet still look open: wait until its answers stop coming, so the counts are
# right and no late admission takes the place a flooder gives back.
held = refused = 0
pending = [client for client in idle if client is not None]
for client in pending:
    client.setblocking(False)  # with a timeout set, Python would wait for each read instead of trying it
stable_since = time.monotonic()
while time.monotonic() - stable_since < 1.0:
    time.sleep(0.1)
    for client in list(pending):
        try:
            answer = client.recv(4096)
        except BlockingIOError:
            continue  # held: nothing to read (select(2) cannot watch descriptors past 1024)
        except OSError:
            answer = b""
        refused += b"LimitReached" in answer
        pending.remove(client)
        stable_since = time.monotonic()
held = len(pending)
threads = [threading.Thread(target=pipeline, args=(pipeliners,), daemon=True)]
threads += [threading.Thread(target=flood, args=(first,), daemon=True) for first in flooders]
for thread in threads:
    thread.start()
print(f"opened held {held + len(pipeliners)} refused {refused}", flush=True)
while time.monotonic() < deadline:
    time.sleep(0.1)
print("totals " + " ".join(f"{key} {value}" for key, value in totals.items()), flush=True)
