#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Asks Debian 12's unattended-upgrades whether it would stop now: loads /usr/bin/unattended-upgrade as a module
and calls its own should_stop(), which reads Gio.NetworkMonitor's network-metered when
Unattended-Upgrade::Skip-Updates-On-Metered-Connections is on (the default). Nothing is downloaded or installed.

usage: uu_should_stop.py [--skip-on-metered=false]
Prints one JSON object: the monitor GIO chose, should_stop()'s answer, and what it logged.
"""
import importlib.machinery
import importlib.util
import json
import logging
import sys

import apt_pkg


class Recorder(logging.Handler):
    def __init__(self):
        super().__init__()
        self.messages = []

    def emit(self, record):
        self.messages.append(record.getMessage())


def main():
    loader = importlib.machinery.SourceFileLoader("unattended_upgrade", "/usr/bin/unattended-upgrade")
    spec = importlib.util.spec_from_loader(loader.name, loader)
    uu = importlib.util.module_from_spec(spec)
    loader.exec_module(uu)
    apt_pkg.init_config()
    if "--skip-on-metered=false" in sys.argv[1:]:
        apt_pkg.config.set("Unattended-Upgrade::Skip-Updates-On-Metered-Connections", "false")
    recorder = Recorder()
    logging.getLogger().addHandler(recorder)
    logging.getLogger().setLevel(logging.INFO)
    stop = uu.should_stop()
    monitor = uu.NetworkMonitor.get_default()
    print(json.dumps({"type": type(monitor).__gtype__.name, "stop": stop, "log": recorder.messages}), flush=True)


if __name__ == "__main__":
    main()
