#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""A connectivity-check server for ConnectivityCheckTests: plain HTTP on ADDRESS:80, like a hotel's network.

Usage: connectivity_server.py DIRECTORY ADDRESS
Every request is answered as DIRECTORY/mode says (read on each request, so the test changes the network by rewriting
it): "portal" (302 to http://portal.example/login, as a portal intercepts), "open" (200 "NetworkManager is online"),
"204" (204, no body), "html" (200 with a sign-in page). Each request's path and User-Agent are appended to
DIRECTORY/requests.log. Prints "ready" once listening.
"""
import http.server
import os
import sys

directory, address = sys.argv[1], sys.argv[2]


class Handler(http.server.BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def do_GET(self):
        with open(os.path.join(directory, "requests.log"), "a") as log:
            log.write("%s %s\n" % (self.path, self.headers.get("User-Agent", "")))
        with open(os.path.join(directory, "mode")) as mode_file:
            mode = mode_file.read().strip()
        if mode == "portal":
            self.send_response(302)
            self.send_header("Location", "http://portal.example/login")
            self.send_header("Content-Length", "0")
            self.end_headers()
        elif mode == "204":
            self.send_response(204)
            self.end_headers()
        else:
            body = b"NetworkManager is online\n" if mode == "open" else b"<html>Sign in to the hotel</html>"
            self.send_response(200)
            self.send_header("Content-Type", "text/plain")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)


server = http.server.ThreadingHTTPServer((address, 80), Handler)
print("ready", flush=True)
server.serve_forever()
