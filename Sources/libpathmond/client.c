/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* One connection to pathmond: connecting, the client's state and accessors, sending a call, and its end. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* secure_getenv */
#endif
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "libpathmond-private.h"

static const char *default_socket(void) {
    /* secure_getenv returns NULL when the kernel set AT_SECURE (set-uid, set-gid, file capabilities): a
     * privileged process must not be told by its unprivileged caller which server to believe. */
    const char *path = secure_getenv("PATHMOND_SOCKET");
    return path != NULL && path[0] != '\0' ? path : PATHMOND_DEFAULT_SOCKET;
}

int pathmond_connect(pathmond_client **ret) {
    return pathmond_connect_to(default_socket(), ret);
}

int pathmond_connect_to(const char *socket_path, pathmond_client **ret) {
    if (socket_path == NULL || ret == NULL)
        return -EINVAL;
    struct sockaddr_un address = {.sun_family = AF_UNIX};
    size_t length = strlen(socket_path);
    if (length == 0 || length >= sizeof address.sun_path)
        return -EINVAL;
    memcpy(address.sun_path, socket_path, length);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0)
        return -errno;
    /* Non-blocking: a Unix connect completes or fails at once (a full listen queue is -EAGAIN, to retry). */
    if (connect(fd, (const struct sockaddr *)&address, sizeof address) < 0) {
        int r = -errno;
        close(fd);
        return r;
    }
    return pathmond_connect_fd(fd, ret);
}

int pathmond_connect_fd(int fd, pathmond_client **ret) {
    if (fd < 0)
        return -EBADF;
    if (ret == NULL) {
        close(fd);
        return -EINVAL;
    }
    pathmond_client *client = calloc(1, sizeof *client);
    if (client == NULL) {
        close(fd);
        return -ENOMEM;
    }
    client->fd = fd;
    client->state = CLIENT_IDLE;
    client->timeout_usec = PATHMOND_DEFAULT_TIMEOUT_USEC;
    *ret = client;
    return 0;
}

/* Drops the reply read but not handed over. */
void client_clear_pending(pathmond_client *client) {
    client->pending_path = pathmond_path_unref(client->pending_path);
    flow_status_free(client->pending_flow);
    client->pending_flow = NULL;
}

void client_destroy(pathmond_client *client) {
    close(client->fd);
    client_clear_pending(client);
    free(client->error_name);
    free(client->output);
    free(client->input);
    free(client);
}

void pathmond_client_free(pathmond_client *client) {
    if (client == NULL)
        return;
    /* From inside its own handler: pathmond_client_process() frees it once the handler returns. */
    if (client->dispatching) {
        client->free_requested = true;
        return;
    }
    client_destroy(client);
}

int pathmond_client_set_timeout(pathmond_client *client, uint64_t usec) {
    if (client == NULL)
        return -EINVAL;
    client->timeout_usec = usec;
    return 0;
}

const char *pathmond_client_get_error_name(const pathmond_client *client) {
    return client != NULL ? client->error_name : NULL;
}

int pathmond_client_get_fd(const pathmond_client *client) {
    return client != NULL ? client->fd : -EINVAL;
}

int pathmond_client_get_events(const pathmond_client *client) {
    if (client == NULL)
        return -EINVAL;
    return POLLIN | (client->output_sent < client->output_length ? POLLOUT : 0);
}

/* Ends the connection's use with `error`; a watch's handler hears it once. Returns `error`, or the earlier one. */
int client_finish(pathmond_client *client, int error) {
    if (client->state == CLIENT_FINISHED)
        return client->error;
    client_state was = client->state;
    client->state = CLIENT_FINISHED;
    client->error = error;
    client_clear_pending(client);
    client->dispatching = true;
    if (was == CLIENT_WATCHING_PATH)
        client->handler.path(client, error, NULL, client->userdata);
    else if (was == CLIENT_WATCHING_FLOW)
        client->handler.flow(client, error, NULL, client->userdata);
    client->dispatching = false;
    return error;
}

int client_flush(pathmond_client *client) {
    while (client->output_sent < client->output_length) {
        ssize_t sent = send(client->fd, client->output + client->output_sent,
                            client->output_length - client->output_sent, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (sent < 0) {
            if (errno == EINTR)
                continue;
            if (errno == EAGAIN)
                return 0;
            return errno == EPIPE ? -ECONNRESET : -errno;
        }
        client->output_sent += (size_t)sent;
    }
    free(client->output);
    client->output = NULL;
    client->output_length = client->output_sent = 0;
    return 0;
}

int client_start_call(pathmond_client *client, json_writer *call, client_state state, pathmond_path_handler path,
                      pathmond_flow_handler flow, void *userdata) {
    int r = json_writer_finish(call);
    if (r < 0)
        return r;
    if (client->state == CLIENT_FINISHED)
        return client->error;
    if (client->state != CLIENT_IDLE)
        return -EBUSY;
    client->output = call->data;
    client->output_length = call->length;
    client->output_sent = 0;
    call->data = NULL;
    client->ended = false;
    free(client->error_name);
    client->error_name = NULL;
    client->state = state;
    if (path != NULL)
        client->handler.path = path;
    if (flow != NULL)
        client->handler.flow = flow;
    client->userdata = userdata;
    r = client_flush(client);
    if (r < 0) {
        /* Said by the return value alone: a handler is never called from inside the call that set it. */
        client->state = CLIENT_FINISHED;
        client->error = r;
    }
    return r;
}
