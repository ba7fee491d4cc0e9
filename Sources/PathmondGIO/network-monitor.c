/* The GNetworkMonitor: its properties follow pathmond's WatchPath stream, read by a socket source in the
 * thread-default main context of init(); while pathmond is away it reports GLib's defaults and reconnects. */
#include "network-monitor.h"

/* init() gives up after this, so that GIO falls through to its built-in backends without a noticeable delay. */
#define INIT_BUDGET_US (100 * G_TIME_SPAN_MILLISECOND)
/* Reconnection backoff: a restarted pathmond is found within a second or two, a stopped one costs a failed
 * connect(2) every 10 s. */
#define FIRST_RETRY_MS 100
#define LAST_RETRY_MS 10000

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

/* Derive, compare, then notify: property notifications for what flipped, then one network-changed. */
static void
apply_state (PathmondNetworkMonitor *self, const PathmondPathState *next)
{
  PathmondPathState previous = self->state;
  self->state = *next;
  gboolean available_changed = previous.available != next->available;
  gboolean metered_changed = previous.metered != next->metered;
  gboolean connectivity_changed =
      pathmond_path_state_connectivity (&previous) != pathmond_path_state_connectivity (next);
  if (!available_changed && !metered_changed && !connectivity_changed)
    return;

  if (available_changed)
    g_object_notify (G_OBJECT (self), "network-available");
  if (metered_changed)
    g_object_notify (G_OBJECT (self), "network-metered");
  if (connectivity_changed)
    g_object_notify (G_OBJECT (self), "connectivity");
  g_signal_emit_by_name (self, "network-changed", next->available);
}

/* Applies every whole reply in the buffer; FALSE when one is an error, malformed, or ends the stream. */
static gboolean
take_messages (PathmondNetworkMonitor *self, GError **error)
{
  GBytes *message;
  while ((message = pathmond_varlink_stream_next_message (self->stream)) != NULL)
    {
      gsize length;
      const char *data = g_bytes_get_data (message, &length);
      PathmondPathState next = self->state;
      gboolean continues = FALSE;
      gboolean parsed = pathmond_path_state_parse_reply (data, length, &next, &continues, error);
      g_bytes_unref (message);
      if (!parsed)
        return FALSE;
      self->retry_delay_ms = FIRST_RETRY_MS;
      apply_state (self, &next);
      if (!continues)
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_CLOSED, "pathmond ended the WatchPath stream");
          return FALSE;
        }
    }
  return TRUE;
}

static void
close_stream (PathmondNetworkMonitor *self)
{
  if (self->read_source != NULL)
    {
      g_source_destroy (self->read_source);
      g_clear_pointer (&self->read_source, g_source_unref);
    }
  g_clear_pointer (&self->stream, pathmond_varlink_stream_free);
}

/* pathmond went away (or said something we cannot use): GLib's defaults until a new connection delivers a path. */
static void
lose_connection (PathmondNetworkMonitor *self, const GError *error)
{
  g_debug ("lost pathmond: %s; reporting GLib's defaults until it is back", error->message);
  close_stream (self);
  schedule_retry (self);
  PathmondPathState defaults = pathmond_path_state_defaults ();
  apply_state (self, &defaults);
}

static gboolean
on_readable (GSocket *socket, GIOCondition condition, gpointer data)
{
  /* Signal handlers run from here, and one may drop the last other reference to the monitor. */
  g_autoptr (PathmondNetworkMonitor) self = g_object_ref (data);
  g_autoptr (GError) error = NULL;
  (void) socket;
  (void) condition;
  if (!pathmond_varlink_stream_read (self->stream, &error) || !take_messages (self, &error))
    {
      lose_connection (self, error);
      return G_SOURCE_REMOVE;
    }
  return G_SOURCE_CONTINUE;
}

static void
watch_stream (PathmondNetworkMonitor *self)
{
  self->read_source = g_socket_create_source (pathmond_varlink_stream_get_socket (self->stream), G_IO_IN, NULL);
  g_source_set_callback (self->read_source, G_SOURCE_FUNC (on_readable), self, NULL);
  g_source_attach (self->read_source, self->context);
}

static gboolean
on_retry (gpointer data)
{
  PathmondNetworkMonitor *self = data;
  g_autoptr (GError) error = NULL;
  g_clear_pointer (&self->retry_source, g_source_unref);
  self->stream = pathmond_varlink_stream_open (pathmond_varlink_socket_path (), &error);
  if (self->stream == NULL)
    {
      g_debug ("pathmond is not back yet: %s", error->message);
      schedule_retry (self);
      return G_SOURCE_REMOVE;
    }
  /* The delay resets only once a path arrives: a daemon that accepts and hangs up keeps backing off. */
  watch_stream (self);
  return G_SOURCE_REMOVE;
}

static void
schedule_retry (PathmondNetworkMonitor *self)
{
  self->retry_source = g_timeout_source_new (self->retry_delay_ms);
  g_source_set_callback (self->retry_source, on_retry, self, NULL);
  g_source_attach (self->retry_source, self->context);
  self->retry_delay_ms = MIN (self->retry_delay_ms * 2, LAST_RETRY_MS);
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
  while ((first = pathmond_varlink_stream_next_message (stream)) == NULL)
    {
      if (!pathmond_varlink_stream_wait (stream, deadline, cancellable, error) ||
          !pathmond_varlink_stream_read (stream, error))
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
  self->context = g_main_context_ref_thread_default ();
  self->stream = g_steal_pointer (&stream);
  watch_stream (self);
  /* Replies that came together with the first are in the buffer already; the socket source will not wake for them. */
  g_autoptr (GError) later_error = NULL;
  if (!take_messages (self, &later_error))
    lose_connection (self, later_error);
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
  self->retry_delay_ms = FIRST_RETRY_MS;
}

static void
pathmond_network_monitor_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  PathmondNetworkMonitor *self = PATHMOND_NETWORK_MONITOR (object);
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
  if (self->retry_source != NULL)
    {
      g_source_destroy (self->retry_source);
      g_clear_pointer (&self->retry_source, g_source_unref);
    }
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
