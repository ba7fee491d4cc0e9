/* One connection to pathmond carrying a WatchPath call with "more": a Unix stream socket and the bytes received
 * that do not yet make a whole NUL-terminated message. */
#ifndef PATHMOND_VARLINK_STREAM_H
#define PATHMOND_VARLINK_STREAM_H

#include "gio-private.h"

typedef struct _PathmondVarlinkStream PathmondVarlinkStream;

/* The socket to use: $PATHMOND_SOCKET when set and not empty, else PATHMOND_DEFAULT_SOCKET. */
G_GNUC_INTERNAL const char *pathmond_varlink_socket_path (void);

/* Connects and sends the WatchPath call. Never blocks: a Unix connect either completes or fails at once (a full
 * backlog fails too, to be retried), and the call is far smaller than an empty socket buffer. */
G_GNUC_INTERNAL PathmondVarlinkStream *pathmond_varlink_stream_open (const char *socket_path, GError **error);

G_GNUC_INTERNAL void pathmond_varlink_stream_free (PathmondVarlinkStream *stream);

G_GNUC_INTERNAL GSocket *pathmond_varlink_stream_get_socket (PathmondVarlinkStream *stream);

/* Reads what the socket holds now. FALSE with `error` set when the connection ended (G_IO_ERROR_CLOSED on EOF), failed,
 * or sent more than a message may hold; TRUE when bytes arrived or none were ready yet. */
G_GNUC_INTERNAL gboolean pathmond_varlink_stream_read (PathmondVarlinkStream *stream, GError **error);

/* Waits until the socket is readable or the monotonic `deadline` (µs) passes (G_IO_ERROR_TIMED_OUT). */
G_GNUC_INTERNAL gboolean pathmond_varlink_stream_wait (PathmondVarlinkStream *stream, gint64 deadline,
                                                       GCancellable *cancellable, GError **error);

/* Takes the next whole message out of the buffer (without its NUL), or returns NULL when none is complete. */
G_GNUC_INTERNAL GBytes *pathmond_varlink_stream_next_message (PathmondVarlinkStream *stream);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PathmondVarlinkStream, pathmond_varlink_stream_free)

#endif
