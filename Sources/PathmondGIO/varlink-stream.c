/* The Varlink side of the module: Unix socket, the one call it makes, and NUL framing (see the README and
 * docs/io.pathmond.varlink). */
#include "varlink-stream.h"

#include <gio/gunixsocketaddress.h>
#include <string.h>

/* pathmond's own limit for one message (PathProtocol's VarlinkCodec.maximumMessageSize). */
#define MAXIMUM_MESSAGE_SIZE (64 * 1024)

static const char watch_call[] = "{\"method\":\"io.pathmond.WatchPath\",\"parameters\":{},\"more\":true}";

struct _PathmondVarlinkStream
{
  GSocket *socket;
  GByteArray *buffer; /* received bytes after the last whole message */
};

const char *
pathmond_varlink_socket_path (void)
{
  const char *path = g_getenv ("PATHMOND_SOCKET");
  return path != NULL && path[0] != '\0' ? path : PATHMOND_DEFAULT_SOCKET;
}

PathmondVarlinkStream *
pathmond_varlink_stream_open (const char *socket_path, GError **error)
{
  g_autoptr (GSocket) socket = g_socket_new (G_SOCKET_FAMILY_UNIX, G_SOCKET_TYPE_STREAM, G_SOCKET_PROTOCOL_DEFAULT,
                                             error);
  if (socket == NULL)
    return NULL;
  g_socket_set_blocking (socket, FALSE);

  g_autoptr (GSocketAddress) address = g_unix_socket_address_new (socket_path);
  if (!g_socket_connect (socket, address, NULL, error))
    return NULL;

  /* The call with its NUL terminator, in one send. */
  gssize sent = g_socket_send (socket, watch_call, sizeof watch_call, NULL, error);
  if (sent < 0)
    return NULL;
  if ((gsize) sent != sizeof watch_call)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_WOULD_BLOCK, "the call to pathmond was cut short");
      return NULL;
    }

  PathmondVarlinkStream *stream = g_new0 (PathmondVarlinkStream, 1);
  stream->socket = g_steal_pointer (&socket);
  stream->buffer = g_byte_array_new ();
  return stream;
}

void
pathmond_varlink_stream_free (PathmondVarlinkStream *stream)
{
  if (stream == NULL)
    return;
  g_socket_close (stream->socket, NULL);
  g_object_unref (stream->socket);
  g_byte_array_unref (stream->buffer);
  g_free (stream);
}

GSocket *
pathmond_varlink_stream_get_socket (PathmondVarlinkStream *stream)
{
  return stream->socket;
}

gboolean
pathmond_varlink_stream_read (PathmondVarlinkStream *stream, GError **error)
{
  guint8 chunk[4096];
  g_autoptr (GError) receive_error = NULL;
  gssize count = g_socket_receive (stream->socket, (gchar *) chunk, sizeof chunk, NULL, &receive_error);
  if (count < 0)
    {
      if (g_error_matches (receive_error, G_IO_ERROR, G_IO_ERROR_WOULD_BLOCK))
        return TRUE;
      g_propagate_error (error, g_steal_pointer (&receive_error));
      return FALSE;
    }
  if (count == 0)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_CLOSED, "pathmond closed the connection");
      return FALSE;
    }
  g_byte_array_append (stream->buffer, chunk, (guint) count);
  /* Bytes beyond the limit without a NUL can never become a message pathmond would send. */
  if (stream->buffer->len > MAXIMUM_MESSAGE_SIZE && memchr (stream->buffer->data, '\0', stream->buffer->len) == NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_MESSAGE_TOO_LARGE, "pathmond sent a message over %d bytes",
                   MAXIMUM_MESSAGE_SIZE);
      return FALSE;
    }
  return TRUE;
}

gboolean
pathmond_varlink_stream_wait (PathmondVarlinkStream *stream, gint64 deadline, GCancellable *cancellable,
                              GError **error)
{
  gint64 remaining = deadline - g_get_monotonic_time ();
  if (remaining <= 0)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_TIMED_OUT, "pathmond did not reply in time");
      return FALSE;
    }
  return g_socket_condition_timed_wait (stream->socket, G_IO_IN, remaining, cancellable, error);
}

GBytes *
pathmond_varlink_stream_next_message (PathmondVarlinkStream *stream)
{
  if (stream->buffer->len == 0)
    return NULL;
  const guint8 *end = memchr (stream->buffer->data, '\0', stream->buffer->len);
  if (end == NULL)
    return NULL;
  gsize length = (gsize) (end - stream->buffer->data);
  GBytes *message = g_bytes_new (stream->buffer->data, length);
  g_byte_array_remove_range (stream->buffer, 0, (guint) (length + 1));
  return message;
}
