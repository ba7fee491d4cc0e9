/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The Varlink side of the module: Unix socket, the one call it makes, and NUL framing (see the README and
 * docs/io.pathmond.varlink). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* secure_getenv */
#endif
#include "varlink-stream.h"

#include <gio/gunixsocketaddress.h>
#include <stdlib.h>
#include <string.h>

/* One receive: large enough that a flood drains in few system calls, small enough to leave the buffer bounded. */
#define CHUNK_SIZE (16 * 1024)

/* A message that large, once framed, gives its buffer back: a path far larger than usual (or a hostile server) must
 * not leave every GLib process holding megabytes for the rest of the connection. */
#define RETAINED_SIZE (64 * 1024)

/* The one call, with "more": the table must say WatchPath streams. It asks for the system path (root's routing), as
 * GIO's own monitors describe the machine, not the app's user's. */
G_STATIC_ASSERT (PATHMOND_METHOD_WATCH_PATH_STREAMS);
static const char watch_call[] = "{\"method\":\"" PATHMOND_METHOD_WATCH_PATH
                                 "\",\"parameters\":{\"requirements\":{\"systemRouting\":true}},\"more\":true}";
G_STATIC_ASSERT (sizeof watch_call <= PATHMOND_METHOD_WATCH_PATH_MAXIMUM_CALL_SIZE);

struct _PathmondVarlinkStream
{
  GSocket *socket;
  /* Received bytes after the last NUL: the start of a message, never more than the limit (plus one chunk while
   * it is being scanned). */
  GByteArray *partial;
};

const char *
pathmond_varlink_socket_path (void)
{
  /* glibc's secure_getenv returns NULL when the kernel set AT_SECURE for this process: set-uid, set-gid, file
   * capabilities, or an LSM transition. GLib's g_getenv would believe the caller's environment. */
  const char *path = secure_getenv ("PATHMOND_SOCKET");
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
  stream->partial = g_byte_array_new ();
  return stream;
}

void
pathmond_varlink_stream_free (PathmondVarlinkStream *stream)
{
  if (stream == NULL)
    return;
  g_socket_close (stream->socket, NULL);
  g_object_unref (stream->socket);
  g_byte_array_unref (stream->partial);
  g_free (stream);
}

GSocket *
pathmond_varlink_stream_get_socket (PathmondVarlinkStream *stream)
{
  return stream->socket;
}

static gboolean
too_large (GError **error)
{
  g_set_error (error, G_IO_ERROR, G_IO_ERROR_MESSAGE_TOO_LARGE, "pathmond sent a message over %d bytes",
               (int) PATHMOND_VARLINK_MAXIMUM_MESSAGE_SIZE);
  return FALSE;
}

/* Frames the bytes from `start` (the first `start` bytes of `partial` are a message's beginning, already checked):
 * every message is held to the limit, the newest whole one replaces `*newest`, what follows the last NUL stays. */
static gboolean
frame (PathmondVarlinkStream *stream, gsize start, GBytes **newest, GError **error)
{
  const guint8 *data = stream->partial->data;
  gsize length = stream->partial->len;
  gsize message_start = 0;
  gsize scan = start;
  const guint8 *nul;
  while ((nul = memchr (data + scan, '\0', length - scan)) != NULL)
    {
      gsize end = (gsize) (nul - data);
      if (end - message_start > PATHMOND_VARLINK_MAXIMUM_MESSAGE_SIZE)
        return too_large (error);
      g_clear_pointer (newest, g_bytes_unref);
      *newest = g_bytes_new (data + message_start, end - message_start);
      message_start = end + 1;
      scan = end + 1;
    }
  if (length - message_start > PATHMOND_VARLINK_MAXIMUM_MESSAGE_SIZE)
    return too_large (error);
  if (message_start > RETAINED_SIZE)
    {
      GByteArray *rest = g_byte_array_sized_new ((guint) (length - message_start));
      g_byte_array_append (rest, data + message_start, (guint) (length - message_start));
      g_byte_array_unref (stream->partial);
      stream->partial = rest;
    }
  else if (message_start > 0)
    g_byte_array_remove_range (stream->partial, 0, (guint) message_start);
  return TRUE;
}

gboolean
pathmond_varlink_stream_read (PathmondVarlinkStream *stream, gsize budget, GBytes **newest, gboolean *more,
                              GError **error)
{
  gsize received = 0;
  *more = FALSE;
  while (received < budget)
    {
      gsize start = stream->partial->len;
      g_byte_array_set_size (stream->partial, (guint) (start + CHUNK_SIZE));
      g_autoptr (GError) receive_error = NULL;
      gssize count = g_socket_receive (stream->socket, (gchar *) stream->partial->data + start, CHUNK_SIZE, NULL,
                                       &receive_error);
      g_byte_array_set_size (stream->partial, (guint) (start + MAX (count, 0)));
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
      if (!frame (stream, start, newest, error))
        return FALSE;
      received += (gsize) count;
    }
  *more = TRUE;
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
