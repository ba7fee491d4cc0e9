/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The path's calls: GetPath, whose reply is the one wait the library does, and WatchPath. */
#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <time.h>

#include "libpathmond-private.h"

static uint64_t now_usec(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (uint64_t)now.tv_sec * 1000000u + (uint64_t)now.tv_nsec / 1000u;
}

/* Waits for the one reply to the call just sent, within the client's timeout. */
static int await_reply(pathmond_client *client) {
    uint64_t deadline = client->timeout_usec == 0 ? 0 : now_usec() + client->timeout_usec;
    for (;;) {
        int r = client_flush(client);
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
        r = client_receive(client, SIZE_MAX);
        if (r < 0)
            return r;
        if (client->ended)
            return 0;
    }
}

/* Sends GetPath or WatchPath (both take only the requirements), within the method's call size. */
static int start_path_call(pathmond_client *client, const char *method, size_t maximum_call_size,
                           const pathmond_requirements *requirements, client_state state,
                           pathmond_path_handler handler, void *userdata) {
    json_writer call;
    json_writer_init(&call, maximum_call_size);
    json_write_raw(&call, "{\"method\":\"");
    json_write_raw(&call, method);
    json_write_raw(&call, "\",\"parameters\":{\"requirements\":");
    requirements_write(&call, requirements);
    json_write_raw(&call, state == CLIENT_CALLING ? "}}" : "},\"more\":true}");
    int r = client_start_call(client, &call, state, handler, NULL, userdata);
    json_writer_free(&call);
    return r;
}

int pathmond_get_path(pathmond_client *client, const pathmond_requirements *requirements, pathmond_path **ret) {
    if (client == NULL || ret == NULL)
        return -EINVAL;
    int r = start_path_call(client, PATHMOND_METHOD_GET_PATH, PATHMOND_METHOD_GET_PATH_MAXIMUM_CALL_SIZE,
                            requirements, CLIENT_CALLING, NULL, NULL);
    if (r < 0)
        return r;
    if ((r = await_reply(client)) < 0)
        return client_finish(client, r);
    /* One call, one reply: a message begun after it is a server that cannot be followed. */
    if (client->input_length != 0)
        return client_finish(client, -EBADMSG);
    *ret = client->pending_path;
    client->pending_path = NULL;
    client->state = CLIENT_IDLE;
    return 0;
}

int pathmond_watch_path(pathmond_client *client, const pathmond_requirements *requirements,
                        pathmond_path_handler handler, void *userdata) {
    if (client == NULL || handler == NULL)
        return -EINVAL;
    return start_path_call(client, PATHMOND_METHOD_WATCH_PATH, PATHMOND_METHOD_WATCH_PATH_MAXIMUM_CALL_SIZE,
                           requirements, CLIENT_WATCHING_PATH, handler, userdata);
}
