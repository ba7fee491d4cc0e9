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

  /* The thread-default context at init(): every callback runs there, as GLib's own backends do. */
  GMainContext *context;
  /* NULL while pathmond is away; then `retry_source` is pending. */
  PathmondVarlinkStream *stream;
  GSource *read_source;
  GSource *retry_source;
  /* The next reconnection delay; back to the first once a connection delivers a path. */
  guint retry_delay_ms;
  /* What the properties report. */
  PathmondPathState state;
};

/* Registers the type with GIO's module and implements the extension point. */
G_GNUC_INTERNAL void pathmond_network_monitor_register (GIOModule *module);

/* can_reach, can_reach_async and can_reach_finish for the GNetworkMonitor interface. */
G_GNUC_INTERNAL void pathmond_network_monitor_init_reach (GNetworkMonitorInterface *iface);

#endif
