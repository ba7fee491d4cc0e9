/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* can_reach as GLib's GNetworkMonitorBase answers it: no network, G_IO_ERROR_NETWORK_UNREACHABLE at once;
 * otherwise resolve the connectable (through proxies, as GIO would connect) and succeed on the first address the
 * path can carry. pathmond knows the path's families, not routes to prefixes: an address of a family the path
 * lacks is skipped, and when none is left the host is unreachable. */
#include "network-monitor.h"

/* Whether the path can carry traffic to `address`. Non-IP addresses (a Unix socket) are not the network's concern. */
static gboolean
path_carries (PathmondNetworkMonitor *self, GSocketAddress *address)
{
  if (!G_IS_INET_SOCKET_ADDRESS (address))
    return TRUE;
  GInetAddress *inet = g_inet_socket_address_get_address (G_INET_SOCKET_ADDRESS (address));
  switch (g_inet_address_get_family (inet))
    {
    case G_SOCKET_FAMILY_IPV4:
      return self->state.supports_ipv4;
    case G_SOCKET_FAMILY_IPV6:
      return self->state.supports_ipv6;
    default:
      return TRUE;
    }
}

static gboolean
network_unreachable (PathmondNetworkMonitor *self, GError **error)
{
  if (self->state.available)
    return FALSE;
  g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_NETWORK_UNREACHABLE, "Network unreachable");
  return TRUE;
}

static gboolean
can_reach (GNetworkMonitor *monitor, GSocketConnectable *connectable, GCancellable *cancellable, GError **error)
{
  PathmondNetworkMonitor *self = PATHMOND_NETWORK_MONITOR (monitor);
  if (network_unreachable (self, error))
    return FALSE;

  g_autoptr (GSocketAddressEnumerator) enumerator = g_socket_connectable_proxy_enumerate (connectable);
  GError *resolve_error = NULL;
  GSocketAddress *address;
  while ((address = g_socket_address_enumerator_next (enumerator, cancellable, &resolve_error)) != NULL)
    {
      gboolean carried = path_carries (self, address);
      g_object_unref (address);
      if (carried)
        return TRUE;
    }
  /* Cancelled, or the name did not resolve: the resolver's error, as GLib gives it. */
  if (resolve_error != NULL)
    g_propagate_error (error, resolve_error);
  else
    g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_HOST_UNREACHABLE, "Host unreachable");
  return FALSE;
}

static void next_address (GObject *source, GAsyncResult *result, gpointer data);

static void
can_reach_async (GNetworkMonitor *monitor, GSocketConnectable *connectable, GCancellable *cancellable,
                 GAsyncReadyCallback callback, gpointer user_data)
{
  PathmondNetworkMonitor *self = PATHMOND_NETWORK_MONITOR (monitor);
  GTask *task = g_task_new (monitor, cancellable, callback, user_data);
  g_task_set_source_tag (task, can_reach_async);
  GError *error = NULL;
  if (network_unreachable (self, &error))
    {
      g_task_return_error (task, error);
      g_object_unref (task);
      return;
    }
  g_autoptr (GSocketAddressEnumerator) enumerator = g_socket_connectable_proxy_enumerate (connectable);
  g_socket_address_enumerator_next_async (enumerator, cancellable, next_address, task);
}

/* One resolved address: done if the path carries it, else ask for the next. The task travels as `data`. */
static void
next_address (GObject *source, GAsyncResult *result, gpointer data)
{
  GSocketAddressEnumerator *enumerator = G_SOCKET_ADDRESS_ENUMERATOR (source);
  GTask *task = data;
  PathmondNetworkMonitor *self = g_task_get_source_object (task);
  GError *error = NULL;
  GSocketAddress *address = g_socket_address_enumerator_next_finish (enumerator, result, &error);
  if (address == NULL)
    {
      if (error != NULL)
        g_task_return_error (task, error);
      else
        g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_HOST_UNREACHABLE, "Host unreachable");
      g_object_unref (task);
      return;
    }
  gboolean carried = path_carries (self, address);
  g_object_unref (address);
  if (carried)
    {
      g_task_return_boolean (task, TRUE);
      g_object_unref (task);
      return;
    }
  g_socket_address_enumerator_next_async (enumerator, g_task_get_cancellable (task), next_address, task);
}

static gboolean
can_reach_finish (GNetworkMonitor *monitor, GAsyncResult *result, GError **error)
{
  g_return_val_if_fail (g_task_is_valid (result, monitor), FALSE);
  return g_task_propagate_boolean (G_TASK (result), error);
}

void
pathmond_network_monitor_init_reach (GNetworkMonitorInterface *iface)
{
  iface->can_reach = can_reach;
  iface->can_reach_async = can_reach_async;
  iface->can_reach_finish = can_reach_finish;
}
