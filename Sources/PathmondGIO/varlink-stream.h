/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* One connection to pathmond carrying a WatchPath call with "more": a Unix stream socket and the bytes received
 * that do not yet make a whole NUL-terminated message. */
#ifndef PATHMOND_VARLINK_STREAM_H
#define PATHMOND_VARLINK_STREAM_H

#include "gio-private.h"
#include "pathmond-protocol.h"

/* The largest reply WatchPath can send (the method table's, through the generated pathmond-protocol.h): a path
 * grows with the interfaces that can carry traffic, and pathmond bounds it only by what every client reads. A
 * longer message, whole or not, ends the connection: the buffer never holds more than this much of a message. */
#define PATHMOND_VARLINK_MAXIMUM_MESSAGE_SIZE PATHMOND_METHOD_WATCH_PATH_MAXIMUM_REPLY_SIZE

typedef struct _PathmondVarlinkStream PathmondVarlinkStream;

/* The socket to use: $PATHMOND_SOCKET when set, not empty, and the process is not privileged (set-uid, set-gid or
 * with file capabilities: the kernel's AT_SECURE), else PATHMOND_DEFAULT_SOCKET. A privileged process must not be
 * told by its unprivileged caller which server to believe. */
G_GNUC_INTERNAL const char *pathmond_varlink_socket_path (void);

/* Connects and sends the WatchPath call. Never blocks: a Unix connect either completes or fails at once (a full
 * backlog fails too, to be retried), and the call is far smaller than an empty socket buffer. */
G_GNUC_INTERNAL PathmondVarlinkStream *pathmond_varlink_stream_open (const char *socket_path, GError **error);

G_GNUC_INTERNAL void pathmond_varlink_stream_free (PathmondVarlinkStream *stream);

G_GNUC_INTERNAL GSocket *pathmond_varlink_stream_get_socket (PathmondVarlinkStream *stream);

/* Reads what the socket holds now, at most about `budget` bytes, without blocking, and keeps only the newest whole
 * message of them in `*newest` (replacing and freeing an older one there: each WatchPath reply supersedes the ones
 * before it, so the ones in between are never parsed). `*more` says the budget ran out before the socket was
 * drained. FALSE with `error` set when the connection ended (G_IO_ERROR_CLOSED on EOF), failed, or sent a message
 * over the limit; `*newest` may still hold what arrived before that. */
G_GNUC_INTERNAL gboolean pathmond_varlink_stream_read (PathmondVarlinkStream *stream, gsize budget, GBytes **newest,
                                                       gboolean *more, GError **error);

/* Waits until the socket is readable or the monotonic `deadline` (µs) passes (G_IO_ERROR_TIMED_OUT). */
G_GNUC_INTERNAL gboolean pathmond_varlink_stream_wait (PathmondVarlinkStream *stream, gint64 deadline,
                                                       GCancellable *cancellable, GError **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PathmondVarlinkStream, pathmond_varlink_stream_free)

#endif
