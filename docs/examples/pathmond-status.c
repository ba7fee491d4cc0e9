/* SPDX-License-Identifier: Apache-2.0 */
/* pathmond-status: prints the system's network path as libpathmond reads it from pathmond.
 *
 *   cc pathmond-status.c $(pkg-config --cflags --libs pathmond) -o pathmond-status
 *   ./pathmond-status            one line: satisfied or unsatisfied, expensive, constrained, interfaces
 *   ./pathmond-status --watch    the same line again on every change, until pathmond goes away
 *
 * Exits 0 when pathmond answered, 69 (EX_UNAVAILABLE) when it did not. $PATHMOND_SOCKET names another socket. */
#include <pathmond.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>

static void print_path(const pathmond_path *path) {
    printf("%s", pathmond_path_get_status(path) == PATHMOND_STATUS_SATISFIED ? "satisfied" : "unsatisfied");
    const char *reason = pathmond_path_get_unsatisfied_reason(path);
    if (reason != NULL)
        printf(" (%s)", reason);
    printf(" expensive=%s constrained=%s interfaces=", pathmond_path_is_expensive(path) ? "yes" : "no",
           pathmond_path_is_constrained(path) ? "yes" : "no");
    size_t count = pathmond_path_get_interface_count(path);
    for (size_t i = 0; i < count; i++)
        printf("%s%s", i > 0 ? "," : "", pathmond_path_get_interface_name(path, i));
    printf("\n");
    fflush(stdout);
}

/* Called from pathmond_client_process(): a new path, or the end of the watch. */
static void on_path(pathmond_client *client, int error, const pathmond_path *path, void *userdata) {
    (void)client;
    if (error < 0) {
        fprintf(stderr, "pathmond-status: the watch ended: %s\n", strerror(-error));
        *(int *)userdata = error;
        return;
    }
    print_path(path);
}

/* The watch, driven by poll(2): any main loop can do the same with the descriptor and the events. */
static int watch(pathmond_client *client) {
    int ended = 0; /* the error the watch ended with */
    int r = pathmond_watch_path(client, NULL, on_path, &ended);
    if (r < 0)
        return r;
    while (ended == 0) {
        struct pollfd descriptor = {.fd = pathmond_client_get_fd(client),
                                    .events = (short)pathmond_client_get_events(client)};
        if (poll(&descriptor, 1, -1) < 0)
            return -errno;
        /* 1: more is waiting; call again before polling. A negative value reached on_path already. */
        while (pathmond_client_process(client) > 0) {
        }
    }
    return ended;
}

int main(int argc, char **argv) {
    pathmond_client *client = NULL;
    int r = pathmond_connect(&client);
    if (r < 0) {
        fprintf(stderr, "pathmond-status: cannot connect to pathmond: %s\n", strerror(-r));
        return 69;
    }
    if (argc > 1 && strcmp(argv[1], "--watch") == 0) {
        r = watch(client);
    } else {
        pathmond_path *path = NULL;
        r = pathmond_get_path(client, NULL, &path);
        if (r >= 0) {
            print_path(path);
            pathmond_path_unref(path);
        } else {
            /* -EREMOTEIO: pathmond answered with a Varlink error, which has a name. */
            const char *name = pathmond_client_get_error_name(client);
            fprintf(stderr, "pathmond-status: pathmond did not answer: %s%s%s\n", strerror(-r), name ? ": " : "",
                    name ? name : "");
        }
    }
    pathmond_client_free(client);
    return r < 0 ? 69 : 0;
}
