/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The monitor object, shared by its files: the GObject and connection (network-monitor.c) and can_reach
 * (network-monitor-reach.c). */
#ifndef PATHMOND_NETWORK_MONITOR_H
#define PATHMOND_NETWORK_MONITOR_H

#include "gio-private.h"
#include "path-state.h"
#include "varlink-stream.h"

/* Declared hidden before G_DECLARE_FINAL_TYPE repeats it, so the module exports only GIO's three entry points. */
G_GNUC_INTERNAL GType pathmond_network_monitor_get_type (void);
#define PATHMOND_TYPE_NETWORK_MONITOR (pathmond_network_monitor_get_type ())
G_DECLARE_FINAL_TYPE (PathmondNetworkMonitor, pathmond_network_monitor, PATHMOND, NETWORK_MONITOR, GObject)

struct _PathmondNetworkMonitor
{
  GObject parent_instance;

  /* The thread-default context at init(): every callback runs there, as GLib's own backends do, and a getter
   * touches the connection only while it holds this context (see refresh()). */
  GMainContext *context;
  /* NULL while pathmond is away; then `retry_source` is pending, due at `retry_at` (monotonic µs). */
  PathmondVarlinkStream *stream;
  GSource *read_source;
  GSource *retry_source;
  gint64 retry_at;
  /* The next reconnection delay; back to the first only once a connection has stayed healthy a while. */
  guint retry_delay_ms;
  /* When this connection delivered its first path (monotonic µs), 0 before. */
  gint64 healthy_since;
  /* Pending while the connection is lost: the last known state holds until it fires (due at `grace_until`), a
   * connection delivers a path, or a connect finds nobody listening. */
  GSource *grace_source;
  gint64 grace_until;
  /* What the properties report, and what the signals last told (they differ until `notify_source` runs, when a
   * getter read a new path). */
  PathmondPathState state;
  PathmondPathState notified;
  GSource *notify_source;
};

/* Registers the type with GIO's module and implements the extension point. */
G_GNUC_INTERNAL void pathmond_network_monitor_register (GIOModule *module);

/* can_reach, can_reach_async and can_reach_finish for the GNetworkMonitor interface. */
G_GNUC_INTERNAL void pathmond_network_monitor_init_reach (GNetworkMonitorInterface *iface);

#endif
