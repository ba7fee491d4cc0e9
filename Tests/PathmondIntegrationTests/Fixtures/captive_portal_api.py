#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""A captive portal's API (RFC 8908) for CaptivePortalCheckTests, over HTTPS with a throwaway test CA.

Usage: captive_portal_api.py DIRECTORY ADDRESS
DIRECTORY holds server.pem and server.key; /api answers with DIRECTORY/answer.json (read on every request, so the
test changes the portal's answer by rewriting it). Each request's path is appended to DIRECTORY/requests.log.
Misbehaving paths: /redirect (302 to another host), /stall (no answer for 30 s), /huge (10 MB of answer),
/wrong-type (JSON as text/html), /malformed (broken JSON of the right type), /flaky (503 to its first request, then what /api answers). Prints "ready" once listening on ADDRESS:443.
"""
import http.server
import os
import ssl
import sys
import time

directory, address = sys.argv[1], sys.argv[2]


class Handler(http.server.BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def do_GET(self):
        with open(os.path.join(directory, "requests.log"), "a") as log:
            log.write(self.path + "\n")
        if self.path == "/api":
            with open(os.path.join(directory, "answer.json"), "rb") as answer:
                self.answer(answer.read())
        elif self.path == "/flaky":
            with open(os.path.join(directory, "requests.log")) as log:
                earlier = log.read().split("\n").count("/flaky") - 1
            if earlier == 0:
                self.send_error(503)
            else:
                with open(os.path.join(directory, "answer.json"), "rb") as answer:
                    self.answer(answer.read())
        elif self.path == "/redirect":
            self.send_response(302)
            self.send_header("Location", "https://elsewhere.example/api")
            self.end_headers()
        elif self.path == "/stall":
            time.sleep(30)
        elif self.path == "/huge":
            self.send_response(200)
            self.send_header("Content-Type", "application/captive+json")
            self.end_headers()
            chunk = b" " * 65536
            try:
                for _ in range(160):
                    self.wfile.write(chunk)
            except OSError:
                pass
        elif self.path == "/malformed":
            self.answer(b'{"captive": tru')
        elif self.path == "/wrong-type":
            self.answer(b'{"captive": false}', content_type="text/html")
        else:
            self.send_error(404)

    def answer(self, body, content_type="application/captive+json"):
        self.send_response(200)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


server = http.server.ThreadingHTTPServer((address, 443), Handler)
server.daemon_threads = True
context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
context.load_cert_chain(os.path.join(directory, "server.pem"), os.path.join(directory, "server.key"))
server.socket = context.wrap_socket(server.socket, server_side=True)
print("ready", flush=True)
server.serve_forever()
