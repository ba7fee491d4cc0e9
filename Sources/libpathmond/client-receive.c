/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What pathmond sends: NUL framing within a bounded buffer, each reply read in order, and the caller-driven dispatch
 * of a watch (pathmond_client_process). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "libpathmond-private.h"

/* One receive: large enough that a flood drains in few system calls. */
#define CHUNK_SIZE (64 * 1024)
/* What one pathmond_client_process() reads at most before it lets the caller's loop run again. */
#define PROCESS_BUDGET (1024 * 1024)
/* The buffer's first size, and what a buffer grown for a large reply shrinks back to once the reply is read: a path
 * far larger than usual (or a hostile server) must not leave the host process holding megabytes for the rest of the
 * connection. */
#define RETAINED_SIZE (2 * CHUNK_SIZE)

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
int client_receive(pathmond_client *client, size_t budget) {
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
    int r = client_flush(client);
    if (r == 0)
        r = client_receive(client, PROCESS_BUDGET);
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
        r = client_finish(client, r);
        if (client->free_requested)
            client_destroy(client);
    }
    return r;
}
