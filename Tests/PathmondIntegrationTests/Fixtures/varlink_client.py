#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Talks to pathmond with the reference Python Varlink client, to show a generic client needs nothing special.

usage: varlink_client.py SOCKET get | describe | watch COUNT
"""
import sys

import varlink


def summary(path):
    if path["status"] == "satisfied":
        names = ",".join(i["name"] for i in path["availableInterfaces"])
        return f"status=satisfied interfaces={names} gateways={','.join(path['gateways'])}"
    return f"status=unsatisfied reason={path['unsatisfiedReason']}"


def main():
    socket, verb = sys.argv[1], sys.argv[2]
    with varlink.Client(address=f"unix:{socket}") as client:
        if verb == "describe":
            with client.open("org.varlink.service") as service:
                print(service.GetInterfaceDescription("io.pathmond")["description"])
            return
        with client.open("io.pathmond", namespaced=False) as pathmond:
            if verb == "get":
                print(summary(pathmond.GetPath()["path"]), flush=True)
            elif verb == "watch":
                count = int(sys.argv[3])
                for index, reply in enumerate(pathmond.WatchPath(_more=True)):
                    print(summary(reply["path"]), flush=True)
                    if index + 1 >= count:
                        break


if __name__ == "__main__":
    main()
