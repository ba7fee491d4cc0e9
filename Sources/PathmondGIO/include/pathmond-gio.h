/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * pathmond's GIO module: a GNetworkMonitor for the "gio-network-monitor" extension point that follows pathmond's
 * system path (io.pathmond.WatchPath) instead of dumping the routing table into every GLib process.
 *
 * GIO loads libpathmond-gio.so from its module directory and calls the three entry points GIO modules export
 * (g_io_module_load, g_io_module_unload, g_io_module_query, declared by <gio/giomodule.h>). Nothing else is
 * exported: applications use it only through g_network_monitor_get_default().
 */
#ifndef PATHMOND_GIO_H
#define PATHMOND_GIO_H

#include <gio/gio.h>

/* The GType name of the monitor, as `type(Gio.NetworkMonitor.get_default()).__gtype__.name` prints it. */
#define PATHMOND_NETWORK_MONITOR_TYPE_NAME "PathmondNetworkMonitor"

/* The extension's name and priority: above NetworkManager's backend (30) so it wins on a desktop, below the
 * portal's (40) so that inside a Flatpak sandbox the portal still decides. */
#define PATHMOND_NETWORK_MONITOR_EXTENSION_NAME "pathmond"
#define PATHMOND_NETWORK_MONITOR_PRIORITY 35

/* The socket when $PATHMOND_SOCKET is unset or empty. */
#define PATHMOND_DEFAULT_SOCKET "/run/pathmond/io.pathmond"

#endif
