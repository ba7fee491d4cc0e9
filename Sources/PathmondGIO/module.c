/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* GIO's three entry points (declared in <gio/giomodule.h>): the only symbols the module exports. */
#include "network-monitor.h"

void
g_io_module_load (GIOModule *module)
{
  /* Never unloaded: json-glib, which the module pulls in, registers static GTypes, and GLib cannot take those back
   * if the library were closed again. One extra use keeps the module, and with it json-glib, resident. */
  g_type_module_use (G_TYPE_MODULE (module));
  pathmond_network_monitor_register (module);
}

void
g_io_module_unload (GIOModule *module)
{
  (void) module;
}

char **
g_io_module_query (void)
{
  /* What gio-querymodules writes into giomodule.cache, so GIO loads the module only when a monitor is wanted. */
  char *extension_points[] = { G_NETWORK_MONITOR_EXTENSION_POINT_NAME, NULL };
  return g_strdupv (extension_points);
}
