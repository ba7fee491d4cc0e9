#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""A fake pathmond that misbehaves on purpose, for the GIO module's robustness tests.

    hostile_server.py SCENARIO SOCKET

Listens on SOCKET (mode 0666), prints "listening", then one line per event on standard output:
  connection N     the Nth client connected and sent its call
  sent N           the flood scenario finished sending N updates
Reads commands from standard input, one per line: "expensive" sends every open connection a path with
isExpensive true (the no-main-loop test); the end of standard input ends the server. Scenarios: see PAYLOADS and the functions below; a name ending in
"-after-path" first sends a valid path, waits 300 ms, then the payload, and serves later connections a valid path.
"""
import json
import os
import select
import socket
import sys
import threading
import time


def path_object(expensive=False, satisfied=True):
    return {
        "status": "satisfied" if satisfied else "unsatisfied",
        "isExpensive": expensive,
        "isConstrained": False,
        "supportsIPv4": True,
        "supportsIPv6": False,
    }


def path(expensive=False, satisfied=True, continues=True):
    message = {"parameters": {"path": path_object(expensive, satisfied)}}
    if continues:
        message["continues"] = True
    return json.dumps(message).encode() + b"\0"


def reply_limit():
    """The module's limit for a WatchPath reply, from the header the method table generates."""
    header = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "Sources", "PathmondGIO",
                          "pathmond-protocol.h")
    with open(header) as file:
        for line in file:
            words = line.split()
            if words[:2] == ["#define", "PATHMOND_METHOD_WATCH_PATH_MAXIMUM_REPLY_SIZE"]:
                return int(words[2])
    raise SystemExit("no WatchPath reply limit in " + header)


LIMIT = reply_limit()


def large_path():
    """A valid, expensive path far over the 64 KiB the module once allowed: 10 000 usable interfaces."""
    interfaces = [{"index": index, "name": f"veth{index}", "type": "wired", "isExpensive": True,
                   "isConstrained": False} for index in range(1, 10_001)]
    message = {"parameters": {"path": {"status": "satisfied", "availableInterfaces": interfaces, "isExpensive": True,
                                       "isConstrained": False, "supportsIPv4": True, "supportsIPv6": False}},
               "continues": True}
    return json.dumps(message).encode() + b"\0"


PAYLOADS = {
    "nul": b"\0",
    "garbage": b"this is not json at all \xff\xfe\0",
    "non-object": b"[1, 2, 3]\0",
    "number": b"42\0",
    "string": b'"satisfied"\0',
    "null": b"null\0",
    "wrong-types": b'{"parameters":{"path":{"status":1,"isExpensive":"yes"}},"continues":"no"}\0',
    "missing-path": b'{"parameters":{},"continues":true}\0',
    "path-not-object": b'{"parameters":{"path":[true]},"continues":true}\0',
    "error": b'{"error":"io.pathmond.Failure","parameters":{}}\0',
    "error-not-string": b'{"error":{"name":5}}\0',
    "deep": b"[" * 60000 + b"\0",
    "ended": path(expensive=True, continues=False) + path(expensive=True),
    "over-limit": b'{"parameters":{"path":{"status":"satisfied","padding":"' + b"x" * (LIMIT + 1024) + b'"}}}\0',
    "endless": b"{" + b" " * (LIMIT + 1024 * 1024),
    # An object that names a member twice: the first says expensive, the last (json-glib's pick) cheap.
    "duplicate-path": b'{"parameters":{"path":' + json.dumps(path_object(expensive=True)).encode() + b',"path":'
    + json.dumps(path_object()).encode() + b'},"continues":true}\0',
    "duplicate-member": b'{"parameters":{"path":{"status":"satisfied","isExpensive":true,"isExpensive":false,'
    b'"supportsIPv4":true}},"continues":true}\0',
    "large": large_path(),
}

connections = []
lock = threading.Lock()


def say(line):
    print(line, flush=True)


def read_call(connection):
    data = b""
    connection.settimeout(5)
    while b"\0" not in data:
        chunk = connection.recv(4096)
        if not chunk:
            return False
        data += chunk
    return True


def serve(scenario, connection, number):
    if not read_call(connection):
        return
    say(f"connection {number}")
    connection.settimeout(None)
    try:
        if scenario == "serve":
            connection.sendall(path())
        elif scenario == "restart":
            # A daemon restarted once: the first connection gets a path and is closed, later ones an expensive path.
            connection.sendall(path(expensive=number > 1))
            if number == 1:
                time.sleep(0.1)
                connection.close()
                return
        elif scenario == "crash-loop":
            # A daemon that answers and dies at once, again and again.
            connection.sendall(path(expensive=True))
            connection.close()
            return
        elif scenario == "flood":
            connection.sendall(path())
            time.sleep(0.2)
            count = 100_000 - 1
            batch = []
            for index in range(count):
                batch.append(path(expensive=index % 2 == 1))
                if len(batch) == 1000:
                    connection.sendall(b"".join(batch))
                    batch = []
            batch.append(path(satisfied=False))
            connection.sendall(b"".join(batch))
            say(f"sent {count + 1}")
        elif scenario.endswith("-after-path"):
            payload = PAYLOADS[scenario[: -len("-after-path")]]
            connection.sendall(path(expensive=True))
            if number == 1:
                time.sleep(0.3)
                connection.sendall(payload)
        else:
            connection.sendall(PAYLOADS[scenario])
    except OSError:
        return
    with lock:
        connections.append(connection)


def commands():
    for line in sys.stdin:
        if line.strip() == "expensive":
            with lock:
                for connection in connections:
                    try:
                        connection.sendall(path(expensive=True))
                    except OSError:
                        pass
            say("sent expensive")
    # The client is gone (it closed or died): so is the server.
    os._exit(0)


def main():
    scenario, socket_path = sys.argv[1], sys.argv[2]
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    if os.path.exists(socket_path):
        os.unlink(socket_path)
    listener.bind(socket_path)
    os.chmod(socket_path, 0o666)
    listener.listen(64)
    say("listening")
    threading.Thread(target=commands, daemon=True).start()
    number = 0
    while True:
        connection, _ = listener.accept()
        number += 1
        threading.Thread(target=serve, args=(scenario, connection, number), daemon=True).start()


if __name__ == "__main__":
    main()
