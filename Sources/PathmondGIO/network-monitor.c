/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The GNetworkMonitor: its properties follow pathmond's WatchPath stream, read by a socket source in the
 * thread-default main context of init() and, for processes that never run that context, by the getters; while
 * pathmond is away it keeps the last path for a grace period, then reports GLib's defaults, and reconnects. */
#include "network-monitor.h"

/* init() gives up after this, so that GIO falls through to its built-in backends without a noticeable delay. */
#define INIT_BUDGET_US (100 * G_TIME_SPAN_MILLISECOND)
/* Reconnection backoff: a restarted pathmond is found within a second or two, a stopped one costs a failed
 * connect(2) every 10 s. Up to a quarter more at random, so that the GLib processes of a host do not all come
 * back in the same millisecond. */
#define FIRST_RETRY_MS 100
#define LAST_RETRY_MS 10000
/* A connection resets the backoff only if it lived this long after its first path: a pathmond that crashes
 * right after answering keeps every GLib process backing off instead of reconnecting at 10 Hz. */
#define HEALTHY_US (5 * G_TIME_SPAN_SECOND)
/* How long the last known path outlives its connection past the next reconnection attempt, when that attempt
 * settles nothing (it connects, but no path comes). */
#define GRACE_MS 3000
/* Bytes read per dispatch of the socket source: a flood costs the process one bounded slice per main-loop
 * iteration, and only the newest whole path of a slice is parsed. */
#define DISPATCH_BUDGET (64 * 1024)
/* Bytes a getter may drain: far more than a socket buffer holds, so that a getter sees the newest path. */
#define GETTER_BUDGET (1024 * 1024)
/* Below redraws (G_PRIORITY_HIGH_IDLE + 20) and beside applications' idle work: a flooding server never starves
 * the application; the getters read the newest path whenever it asks. */
#define SOURCE_PRIORITY G_PRIORITY_DEFAULT_IDLE

enum
{
  PROP_0,
  PROP_NETWORK_AVAILABLE,
  PROP_NETWORK_METERED,
  PROP_CONNECTIVITY,
};

static void pathmond_network_monitor_initable_iface_init (GInitableIface *iface);
static void pathmond_network_monitor_iface_init (GNetworkMonitorInterface *iface);

/* GInitable first: it is a prerequisite of GNetworkMonitor, and registering the other way round fails. */
G_DEFINE_DYNAMIC_TYPE_EXTENDED (PathmondNetworkMonitor, pathmond_network_monitor, G_TYPE_OBJECT, G_TYPE_FLAG_FINAL,
                                G_IMPLEMENT_INTERFACE_DYNAMIC (G_TYPE_INITABLE,
                                                               pathmond_network_monitor_initable_iface_init)
                                G_IMPLEMENT_INTERFACE_DYNAMIC (G_TYPE_NETWORK_MONITOR,
                                                               pathmond_network_monitor_iface_init))

static void schedule_retry (PathmondNetworkMonitor *self);

static GSource *
attach (PathmondNetworkMonitor *self, GSource *source, GSourceFunc callback)
{
  g_source_set_priority (source, SOURCE_PRIORITY);
  g_source_set_callback (source, callback, self, NULL);
  g_source_attach (source, self->context);
  return source;
}

static void
clear_source (GSource **source)
{
  if (*source == NULL)
    return;
  g_source_destroy (*source);
  g_clear_pointer (source, g_source_unref);
}

/* Derive, compare, then notify: property notifications for what flipped since the signals last told, then one
 * network-changed. Only from the context's own dispatch: handlers may do anything, getters included. */
static void
publish (PathmondNetworkMonitor *self)
{
  PathmondPathState previous = self->notified;
  PathmondPathState next = self->state;
  self->notified = next;
  gboolean available_changed = previous.available != next.available;
  gboolean metered_changed = previous.metered != next.metered;
  gboolean connectivity_changed =
      pathmond_path_state_connectivity (&previous) != pathmond_path_state_connectivity (&next);
  if (!available_changed && !metered_changed && !connectivity_changed)
    return;

  if (available_changed)
    g_object_notify (G_OBJECT (self), "network-available");
  if (metered_changed)
    g_object_notify (G_OBJECT (self), "network-metered");
  if (connectivity_changed)
    g_object_notify (G_OBJECT (self), "connectivity");
  g_signal_emit_by_name (self, "network-changed", next.available);
}

static gboolean
on_notify (gpointer data)
{
  g_autoptr (PathmondNetworkMonitor) self = g_object_ref (data);
  g_clear_pointer (&self->notify_source, g_source_unref);
  publish (self);
  return G_SOURCE_REMOVE;
}

/* A getter changed the state: the signals follow from the context, never from inside the getter. */
static void
schedule_publish (PathmondNetworkMonitor *self)
{
  if (self->notify_source == NULL)
    self->notify_source = attach (self, g_idle_source_new (), on_notify);
}

/* The last known path is no longer believed: GLib's defaults, as with nothing known. */
static void
give_up_state (PathmondNetworkMonitor *self)
{
  clear_source (&self->grace_source);
  self->state = pathmond_path_state_defaults ();
}

static gboolean
on_grace (gpointer data)
{
  g_autoptr (PathmondNetworkMonitor) self = g_object_ref (data);
  g_debug ("pathmond has not answered for %d ms; reporting GLib's defaults until it does", GRACE_MS);
  give_up_state (self);
  publish (self);
  return G_SOURCE_REMOVE;
}

/* Applies one whole reply; FALSE when it is an error, malformed, or ends the stream. */
static gboolean
apply_message (PathmondNetworkMonitor *self, GBytes *message, GError **error)
{
  gsize length;
  const char *data = g_bytes_get_data (message, &length);
  PathmondPathState next = self->state;
  gboolean continues = FALSE;
  if (!pathmond_path_state_parse_reply (data, length, &next, &continues, error))
    return FALSE;
  /* A definite answer: it replaces whatever the grace period was keeping. */
  clear_source (&self->grace_source);
  self->state = next;
  if (self->healthy_since == 0)
    self->healthy_since = g_get_monotonic_time ();
  if (!continues)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_CLOSED, "pathmond ended the WatchPath stream");
      return FALSE;
    }
  return TRUE;
}

static void
close_stream (PathmondNetworkMonitor *self)
{
  clear_source (&self->read_source);
  g_clear_pointer (&self->stream, pathmond_varlink_stream_free);
}

/* pathmond went away (or said something we cannot use): reconnect with backoff; the last path holds meanwhile. */
static void
lose_connection (PathmondNetworkMonitor *self, const GError *error)
{
  gint64 now = g_get_monotonic_time ();
  g_debug ("lost pathmond: %s; reconnecting", error->message);
  close_stream (self);
  if (self->healthy_since != 0 && now - self->healthy_since >= HEALTHY_US)
    self->retry_delay_ms = FIRST_RETRY_MS;
  self->healthy_since = 0;
  schedule_retry (self);
  /* The grace period runs from the next attempt: a pathmond that answers and dies again gives the same path
   * each time, and its properties must not flap however long the backoff has grown. */
  if (self->grace_source == NULL)
    {
      self->grace_until = self->retry_at + GRACE_MS * G_TIME_SPAN_MILLISECOND;
      guint grace_ms = (guint) ((self->grace_until - now) / G_TIME_SPAN_MILLISECOND);
      self->grace_source = attach (self, g_timeout_source_new (grace_ms), on_grace);
    }
}

/* Reads at most `budget` bytes and applies the newest whole path among them. FALSE when the connection is lost
 * (it is closed then, and a reconnection scheduled); `*more` when bytes are left for the next round. */
static gboolean
drain (PathmondNetworkMonitor *self, gsize budget, gboolean *more)
{
  g_autoptr (GBytes) newest = NULL;
  g_autoptr (GError) error = NULL;
  gboolean open = pathmond_varlink_stream_read (self->stream, budget, &newest, more, &error);
  /* What arrived before an end or an error still counts, and an unusable message is the error that matters. */
  g_autoptr (GError) message_error = NULL;
  if (newest != NULL && !apply_message (self, newest, &message_error))
    {
      g_clear_error (&error);
      error = g_steal_pointer (&message_error);
      open = FALSE;
    }
  if (!open)
    lose_connection (self, error);
  return open;
}

static gboolean
on_readable (GSocket *socket, GIOCondition condition, gpointer data)
{
  /* Signal handlers run from here, and one may drop the last other reference to the monitor. */
  g_autoptr (PathmondNetworkMonitor) self = g_object_ref (data);
  gboolean more;
  (void) socket;
  (void) condition;
  gboolean open = drain (self, DISPATCH_BUDGET, &more);
  publish (self);
  return open ? G_SOURCE_CONTINUE : G_SOURCE_REMOVE;
}

static void
watch_stream (PathmondNetworkMonitor *self)
{
  GSource *source = g_socket_create_source (pathmond_varlink_stream_get_socket (self->stream), G_IO_IN, NULL);
  self->read_source = attach (self, source, G_SOURCE_FUNC (on_readable));
}

static void
reconnect (PathmondNetworkMonitor *self)
{
  g_autoptr (GError) error = NULL;
  clear_source (&self->retry_source);
  self->stream = pathmond_varlink_stream_open (pathmond_varlink_socket_path (), &error);
  if (self->stream == NULL)
    {
      g_debug ("pathmond is not back yet: %s", error->message);
      /* Nobody listens: a definite answer that pathmond is away, no need to wait out the grace period. */
      if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND) ||
          g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CONNECTION_REFUSED))
        give_up_state (self);
      schedule_retry (self);
      return;
    }
  /* The delay resets only once a connection has stayed healthy: a daemon that answers and dies keeps backing off. */
  watch_stream (self);
}

static gboolean
on_retry (gpointer data)
{
  g_autoptr (PathmondNetworkMonitor) self = g_object_ref (data);
  reconnect (self);
  publish (self);
  return G_SOURCE_REMOVE;
}

static void
schedule_retry (PathmondNetworkMonitor *self)
{
  guint delay = self->retry_delay_ms + (guint) g_random_int_range (0, (gint32) self->retry_delay_ms / 4 + 1);
  clear_source (&self->retry_source);
  self->retry_at = g_get_monotonic_time () + delay * G_TIME_SPAN_MILLISECOND;
  self->retry_source = attach (self, g_timeout_source_new (delay), on_retry);
  self->retry_delay_ms = MIN (self->retry_delay_ms * 2, LAST_RETRY_MS);
}

/* For getters: a process that never iterates the context (unattended-upgrades asks get_default() and then
 * get_network_metered() now and then) would otherwise keep its first answer for ever. Without blocking, this does
 * what the context's sources would have done by now: reconnect when due, read the newest path, end the grace
 * period. Only while holding the context, so never beside a dispatch in another thread; signals follow from the
 * context. */
static void
refresh (PathmondNetworkMonitor *self)
{
  if (self->context == NULL || !g_main_context_acquire (self->context))
    return;
  if (self->stream == NULL && self->retry_source != NULL && g_get_monotonic_time () >= self->retry_at)
    reconnect (self);
  gboolean more;
  if (self->stream != NULL)
    drain (self, GETTER_BUDGET, &more);
  if (self->grace_source != NULL && g_get_monotonic_time () >= self->grace_until)
    give_up_state (self);
  if (!pathmond_path_state_equal (&self->state, &self->notified))
    schedule_publish (self);
  g_main_context_release (self->context);
}

/* Connects and waits for the first path within the budget: GIO reads the properties right after init(), so they
 * must be true at once (unattended-upgrades asks get_network_metered() straight after get_default()). */
static gboolean
pathmond_network_monitor_initable_init (GInitable *initable, GCancellable *cancellable, GError **error)
{
  PathmondNetworkMonitor *self = PATHMOND_NETWORK_MONITOR (initable);
  gint64 deadline = g_get_monotonic_time () + INIT_BUDGET_US;
  if (self->context != NULL)
    return TRUE;

  const char *path = pathmond_varlink_socket_path ();
  g_autoptr (PathmondVarlinkStream) stream = pathmond_varlink_stream_open (path, error);
  if (stream == NULL)
    {
      g_prefix_error (error, "pathmond at %s: ", path);
      return FALSE;
    }
  g_autoptr (GBytes) first = NULL;
  g_autoptr (GError) read_error = NULL;
  gboolean open = TRUE;
  gboolean more = FALSE;
  while (first == NULL && open)
    {
      if (!pathmond_varlink_stream_wait (stream, deadline, cancellable, error))
        return FALSE;
      open = pathmond_varlink_stream_read (stream, GETTER_BUDGET, &first, &more, &read_error);
    }
  if (first == NULL)
    {
      g_propagate_error (error, g_steal_pointer (&read_error));
      return FALSE;
    }
  gsize length;
  const char *data = g_bytes_get_data (first, &length);
  PathmondPathState state = pathmond_path_state_defaults ();
  gboolean continues = FALSE;
  if (!pathmond_path_state_parse_reply (data, length, &state, &continues, error))
    return FALSE;
  if (!continues)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, "pathmond did not stream WatchPath");
      return FALSE;
    }

  self->state = state;
  self->notified = state;
  self->healthy_since = g_get_monotonic_time ();
  self->context = g_main_context_ref_thread_default ();
  self->stream = g_steal_pointer (&stream);
  /* Bytes left behind by the budget wake the socket source; a connection that ended right after its first path
   * still answered, and is retried like any other. */
  watch_stream (self);
  if (!open)
    lose_connection (self, read_error);
  g_debug ("following pathmond at %s", path);
  return TRUE;
}

static void
pathmond_network_monitor_initable_iface_init (GInitableIface *iface)
{
  iface->init = pathmond_network_monitor_initable_init;
}

static void
pathmond_network_monitor_iface_init (GNetworkMonitorInterface *iface)
{
  pathmond_network_monitor_init_reach (iface);
}

static void
pathmond_network_monitor_init (PathmondNetworkMonitor *self)
{
  self->state = pathmond_path_state_defaults ();
  self->notified = self->state;
  self->retry_delay_ms = FIRST_RETRY_MS;
}

static void
pathmond_network_monitor_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  PathmondNetworkMonitor *self = PATHMOND_NETWORK_MONITOR (object);
  refresh (self);
  switch (prop_id)
    {
    case PROP_NETWORK_AVAILABLE:
      g_value_set_boolean (value, self->state.available);
      break;
    case PROP_NETWORK_METERED:
      g_value_set_boolean (value, self->state.metered);
      break;
    case PROP_CONNECTIVITY:
      g_value_set_enum (value, pathmond_path_state_connectivity (&self->state));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
pathmond_network_monitor_finalize (GObject *object)
{
  PathmondNetworkMonitor *self = PATHMOND_NETWORK_MONITOR (object);
  close_stream (self);
  clear_source (&self->retry_source);
  clear_source (&self->grace_source);
  clear_source (&self->notify_source);
  g_clear_pointer (&self->context, g_main_context_unref);
  G_OBJECT_CLASS (pathmond_network_monitor_parent_class)->finalize (object);
}

static void
pathmond_network_monitor_class_init (PathmondNetworkMonitorClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  object_class->get_property = pathmond_network_monitor_get_property;
  object_class->finalize = pathmond_network_monitor_finalize;
  g_object_class_override_property (object_class, PROP_NETWORK_AVAILABLE, "network-available");
  g_object_class_override_property (object_class, PROP_NETWORK_METERED, "network-metered");
  g_object_class_override_property (object_class, PROP_CONNECTIVITY, "connectivity");
}

static void
pathmond_network_monitor_class_finalize (PathmondNetworkMonitorClass *klass)
{
  (void) klass;
}

void
pathmond_network_monitor_register (GIOModule *module)
{
  pathmond_network_monitor_register_type (G_TYPE_MODULE (module));
  g_io_extension_point_implement (G_NETWORK_MONITOR_EXTENSION_POINT_NAME, PATHMOND_TYPE_NETWORK_MONITOR,
                                  PATHMOND_NETWORK_MONITOR_EXTENSION_NAME, PATHMOND_NETWORK_MONITOR_PRIORITY);
}
