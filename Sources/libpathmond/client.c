/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* One connection to pathmond: connecting, sending a call, NUL framing of the replies within a bounded buffer, the
 * caller-driven dispatch of a watch, and the one blocking path, a one-shot call's wait for its reply. */
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

/* One receive: large enough that a flood drains in few system calls. */
#define CHUNK_SIZE (64 * 1024)
/* What one pathmond_client_process() reads at most before it lets the caller's loop run again. */
#define PROCESS_BUDGET (1024 * 1024)
/* The buffer's first size, and what a buffer grown for a large reply shrinks back to once the reply is read: a path
 * far larger than usual (or a hostile server) must not leave the host process holding megabytes for the rest of the
 * connection. */
#define RETAINED_SIZE (2 * CHUNK_SIZE)

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
static void clear_pending(pathmond_client *client) {
    client->pending_path = pathmond_path_unref(client->pending_path);
    flow_status_free(client->pending_flow);
    client->pending_flow = NULL;
}

static void client_destroy(pathmond_client *client) {
    close(client->fd);
    clear_pending(client);
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
static int finish(pathmond_client *client, int error) {
    if (client->state == CLIENT_FINISHED)
        return client->error;
    client_state was = client->state;
    client->state = CLIENT_FINISHED;
    client->error = error;
    clear_pending(client);
    client->dispatching = true;
    if (was == CLIENT_WATCHING_PATH)
        client->handler.path(client, error, NULL, client->userdata);
    else if (was == CLIENT_WATCHING_FLOW)
        client->handler.flow(client, error, NULL, client->userdata);
    client->dispatching = false;
    return error;
}

static int flush(pathmond_client *client) {
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
    r = flush(client);
    if (r < 0) {
        /* Said by the return value alone: a handler is never called from inside the call that set it. */
        client->state = CLIENT_FINISHED;
        client->error = r;
    }
    return r;
}

/* One whole message: a reply to the call on the connection, read into the pending path or flow status. A Varlink
 * error is -EREMOTEIO (its name kept); anything after the last reply, or before any call, is not a reply. */
static int handle_message(pathmond_client *client, const char *message, size_t length) {
    if (client->ended || client->state == CLIENT_IDLE)
        return -EBADMSG;
    json_document document;
    int r = json_parse(message, length, &document);
    if (r < 0)
        return r;
    const json_node *root = &document.nodes[0], *error, *parameters, *value;
    int continues;
    if (root->kind != JSON_OBJECT || (r = json_member(&document, root, "error", &error)) < 0 ||
        (r = json_member(&document, root, "parameters", &parameters)) < 0 ||
        (r = json_member_bool(&document, root, "continues", 0, &continues)) < 0) {
        r = r < 0 ? r : -EBADMSG;
        goto done;
    }
    if (error != NULL) {
        const char *name = json_string(&document, error);
        if (name == NULL) {
            r = -EBADMSG;
            goto done;
        }
        free(client->error_name);
        client->error_name = strdup(name);
        r = -EREMOTEIO;
        goto done;
    }
    /* A one-shot call did not ask for more. */
    if (parameters == NULL || (continues && client->state == CLIENT_CALLING)) {
        r = -EBADMSG;
        goto done;
    }
    bool flow = client->state == CLIENT_WATCHING_FLOW;
    if ((r = json_member(&document, parameters, flow ? "status" : "path", &value)) < 0)
        goto done;
    if (flow) {
        pathmond_flow_status *status = NULL;
        if ((r = flow_status_from_json(&document, value, &status)) < 0)
            goto done;
        flow_status_free(client->pending_flow);
        client->pending_flow = status;
    } else {
        pathmond_path *path = NULL;
        if ((r = path_from_json(&document, value, &path)) < 0)
            goto done;
        pathmond_path_unref(client->pending_path);
        client->pending_path = path;
    }
    client->ended = !continues;
done:
    json_document_free(&document);
    return r;
}

/* Handles every whole message in the bytes from `from` on, each held to the limit, and keeps what follows the last
 * NUL at the start of the buffer. */
static int frame(pathmond_client *client, size_t from) {
    const char *nul;
    int r = 0;
    /* Once the call is over nothing more is handled: what follows stays unread in the buffer. */
    while (!client->ended && (nul = memchr(client->input + from, '\0', client->input_length - from)) != NULL) {
        size_t end = (size_t)(nul - client->input);
        if (end - client->partial_start > MAXIMUM_REPLY_SIZE)
            return -EMSGSIZE;
        r = handle_message(client, client->input + client->partial_start, end - client->partial_start);
        client->partial_start = end + 1;
        from = end + 1;
        if (r < 0)
            return r;
    }
    if (client->input_length - client->partial_start > MAXIMUM_REPLY_SIZE)
        return -EMSGSIZE;
    if (client->partial_start > 0) {
        memmove(client->input, client->input + client->partial_start, client->input_length - client->partial_start);
        client->input_length -= client->partial_start;
        client->partial_start = 0;
    }
    /* A buffer grown for a large reply is given back once that reply is read. */
    if (client->input_capacity > RETAINED_SIZE && client->input_length <= RETAINED_SIZE - CHUNK_SIZE) {
        char *input = realloc(client->input, RETAINED_SIZE);
        if (input != NULL) {
            client->input = input;
            client->input_capacity = RETAINED_SIZE;
        }
    }
    return 0;
}

/* Reads without blocking until the socket is drained (0) or `budget` bytes were read (1); -ECONNRESET at the end
 * of the stream, another negative errno on failure. Replies read before either stay pending. */
static int receive(pathmond_client *client, size_t budget) {
    size_t received = 0;
    while (received < budget) {
        if (client->input_capacity - client->input_length < CHUNK_SIZE) {
            size_t capacity = client->input_capacity == 0 ? RETAINED_SIZE : client->input_capacity;
            while (capacity - client->input_length < CHUNK_SIZE)
                capacity *= 2;
            char *input = realloc(client->input, capacity);
            if (input == NULL)
                return -ENOMEM;
            client->input = input;
            client->input_capacity = capacity;
        }
        ssize_t count = recv(client->fd, client->input + client->input_length, CHUNK_SIZE, MSG_DONTWAIT);
        if (count < 0) {
            if (errno == EINTR)
                continue;
            return errno == EAGAIN ? 0 : -errno;
        }
        if (count == 0)
            return -ECONNRESET;
        size_t from = client->input_length;
        client->input_length += (size_t)count;
        received += (size_t)count;
        int r = frame(client, from);
        if (r < 0)
            return r;
        /* The call is over: nothing after its last reply is read. */
        if (client->ended)
            return 0;
    }
    return 1;
}

/* Hands the pending reply to the watch's handler. */
static void dispatch(pathmond_client *client) {
    client->dispatching = true;
    if (client->pending_path != NULL) {
        pathmond_path *path = client->pending_path;
        client->pending_path = NULL;
        client->handler.path(client, 0, path, client->userdata);
        pathmond_path_unref(path);
    } else if (client->pending_flow != NULL) {
        pathmond_flow_status *status = client->pending_flow;
        client->pending_flow = NULL;
        client->handler.flow(client, 0, status, client->userdata);
        flow_status_free(status);
    }
    client->dispatching = false;
}

int pathmond_client_process(pathmond_client *client) {
    if (client == NULL)
        return -EINVAL;
    if (client->dispatching || client->state == CLIENT_CALLING)
        return -EBUSY;
    if (client->state == CLIENT_FINISHED)
        return client->error;
    int r = flush(client);
    if (r == 0)
        r = receive(client, PROCESS_BUDGET);
    /* Whatever failed after a good reply, the reply is given first. */
    dispatch(client);
    if (client->free_requested) {
        client_destroy(client);
        return 0;
    }
    /* A watch answered without "continues" is over. */
    if (r >= 0 && client->ended)
        r = -ECONNRESET;
    if (r < 0) {
        r = finish(client, r);
        if (client->free_requested)
            client_destroy(client);
    }
    return r;
}

static uint64_t now_usec(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (uint64_t)now.tv_sec * 1000000u + (uint64_t)now.tv_nsec / 1000u;
}

/* Waits for the one reply to the call just sent, within the client's timeout. */
static int await_reply(pathmond_client *client) {
    uint64_t deadline = client->timeout_usec == 0 ? 0 : now_usec() + client->timeout_usec;
    for (;;) {
        int r = flush(client);
        if (r < 0)
            return r;
        int timeout = -1;
        if (deadline != 0) {
            uint64_t now = now_usec();
            if (now >= deadline)
                return -ETIMEDOUT;
            uint64_t milliseconds = (deadline - now + 999) / 1000;
            timeout = milliseconds > INT32_MAX ? INT32_MAX : (int)milliseconds;
        }
        struct pollfd descriptor = {.fd = client->fd, .events = (short)pathmond_client_get_events(client)};
        r = poll(&descriptor, 1, timeout);
        if (r < 0 && errno != EINTR)
            return -errno;
        if (r <= 0)
            continue;
        r = receive(client, SIZE_MAX);
        if (r < 0)
            return r;
        if (client->ended)
            return 0;
    }
}

int pathmond_get_path(pathmond_client *client, const pathmond_requirements *requirements, pathmond_path **ret) {
    if (client == NULL || ret == NULL)
        return -EINVAL;
    json_writer call;
    json_writer_init(&call, PATHMOND_METHOD_GET_PATH_MAXIMUM_CALL_SIZE);
    json_write_raw(&call, "{\"method\":\"" PATHMOND_METHOD_GET_PATH "\",\"parameters\":{\"requirements\":");
    requirements_write(&call, requirements);
    json_write_raw(&call, "}}");
    int r = client_start_call(client, &call, CLIENT_CALLING, NULL, NULL, NULL);
    json_writer_free(&call);
    if (r < 0)
        return r;
    if ((r = await_reply(client)) < 0)
        return finish(client, r);
    /* One call, one reply: a message begun after it is a server that cannot be followed. */
    if (client->input_length != 0)
        return finish(client, -EBADMSG);
    *ret = client->pending_path;
    client->pending_path = NULL;
    client->state = CLIENT_IDLE;
    return 0;
}

int pathmond_watch_path(pathmond_client *client, const pathmond_requirements *requirements,
                        pathmond_path_handler handler, void *userdata) {
    if (client == NULL || handler == NULL)
        return -EINVAL;
    json_writer call;
    json_writer_init(&call, PATHMOND_METHOD_WATCH_PATH_MAXIMUM_CALL_SIZE);
    json_write_raw(&call, "{\"method\":\"" PATHMOND_METHOD_WATCH_PATH "\",\"parameters\":{\"requirements\":");
    requirements_write(&call, requirements);
    json_write_raw(&call, "},\"more\":true}");
    int r = client_start_call(client, &call, CLIENT_WATCHING_PATH, handler, NULL, userdata);
    json_writer_free(&call);
    return r;
}
