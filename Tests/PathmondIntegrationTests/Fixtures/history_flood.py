#!/usr/bin/python3
"""Issue 22's GetHistory flood, for HistoryFloodTests (run as nobody through setpriv).

usage: history_flood.py SOCKET CONNECTIONS SECONDS
Opens CONNECTIONS connections to pathmond, sends one GetHistory call on each and never reads a reply; prints
"opened O refused R" once every connection was attempted, holds them for SECONDS, closes them all and prints
"left".
"""
import resource
import socket
import struct
import sys
import time

path, connections, seconds = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
call = b'{"method":"io.pathmond.GetHistory","parameters":{}}\0'
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
time.sleep(seconds)
for client in held:
    client.close()
print("left", flush=True)
