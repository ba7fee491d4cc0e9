#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Issue 22's GetHistory flood, for HistoryFloodTests (run as nobody through setpriv).

usage: history_flood.py SOCKET CONNECTIONS SECONDS [pipeline]
Opens CONNECTIONS connections to pathmond, sends one GetHistory call on each and never reads a reply; prints
"opened O refused R" once every connection was attempted, holds them for SECONDS, closes them all and prints
"left". With "pipeline", each connection instead writes 600 ListInterfaces calls at once and never reads a reply:
more replies than its socket and its connection's high watermark hold, so the replies pathmond keeps per user are
what is measured.
"""
import resource
import socket
import struct
import sys
import time

path, connections, seconds = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
pipelining = len(sys.argv) > 4 and sys.argv[4] == "pipeline"
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
call = b'{"method":"io.pathmond.GetHistory","parameters":{}}\0'
if pipelining:
    call = b'{"method":"io.pathmond.ListInterfaces"}\0' * 600
held, refused = [], 0
for _ in range(connections):
    client = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    client.setsockopt(socket.SOL_SOCKET, socket.SO_SNDTIMEO, struct.pack("ll", 1, 0))
    try:
        client.connect(path)
        client.sendall(call)
        held.append(client)
    except OSError:
        refused += 1
        client.close()
print(f"opened {len(held)} refused {refused}", flush=True)
deadline = time.monotonic() + seconds
time.sleep(max(0, deadline - time.monotonic()))
for client in held:
    client.close()
print("left", flush=True)
