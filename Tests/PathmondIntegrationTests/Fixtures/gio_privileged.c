/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The privileged-process test's GLib program: made set-gid by the test and run as nobody, it loads the module
 * directory named by its argument and prints the monitor GIO chose and its metered property. Loading the
 * directory explicitly rather than through GIO_EXTRA_MODULES keeps the test about the module's own reading of
 * $PATHMOND_SOCKET, whatever GLib does with its environment in a privileged process. */
#include <gio/gio.h>
#include <stdio.h>

int
main (int argc, char **argv)
{
  if (argc != 2)
    return 2;
  /* GIO registers its extension points when it first loads its own modules; a module loaded before that could not
   * implement one. */
  (void) g_vfs_get_default ();
  GList *modules = g_io_modules_load_all_in_directory (argv[1]);
  GNetworkMonitor *monitor = g_network_monitor_get_default ();
  printf ("%s %s\n", G_OBJECT_TYPE_NAME (monitor),
          g_network_monitor_get_network_metered (monitor) ? "metered" : "unmetered");
  g_list_free (modules);
  return 0;
}
