/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What the library's files share: the objects behind the public handles, and the steps between them. */
#ifndef PATHMOND_LIBPATHMOND_PRIVATE_H
#define PATHMOND_LIBPATHMOND_PRIVATE_H

#include <stdbool.h>
#include <stdint.h>

#include "json-reader.h"
#include "json-writer.h"
#include "pathmond-protocol.h"
#include "pathmond.h"

/* Every reply the library reads is at most the largest any method it calls may send (the method table's, through
 * the generated pathmond-protocol.h): a message over it, whole or not, ends the connection. */
#define MAXIMUM_REPLY_SIZE PATHMOND_METHOD_WATCH_PATH_MAXIMUM_REPLY_SIZE
_Static_assert(PATHMOND_METHOD_GET_PATH_MAXIMUM_REPLY_SIZE <= MAXIMUM_REPLY_SIZE, "GetPath's replies fit");
_Static_assert(PATHMOND_METHOD_WATCH_FLOW_MAXIMUM_REPLY_SIZE <= MAXIMUM_REPLY_SIZE, "WatchFlow's replies fit");
_Static_assert(PATHMOND_METHOD_WATCH_PATH_STREAMS && PATHMOND_METHOD_WATCH_FLOW_STREAMS, "the watches stream");

/* What a connection is doing: one call at a time, and a watch holds the connection until it ends. */
typedef enum {
    CLIENT_IDLE,          /* connected, no call */
    CLIENT_CALLING,       /* inside a one-shot call (pathmond_get_path), waiting for its one reply */
    CLIENT_WATCHING_PATH, /* WatchPath with "more" sent: every reply goes to the path handler */
    CLIENT_WATCHING_FLOW, /* WatchFlow likewise, to the flow handler */
    CLIENT_FINISHED,      /* failed or ended: `error` says why; only freeing is left */
} client_state;

struct pathmond_client {
    int fd;
    client_state state;
    int error;
    uint64_t timeout_usec;
    char *error_name;
    union {
        pathmond_path_handler path;
        pathmond_flow_handler flow;
    } handler;
    void *userdata;
    /* A call not yet fully sent. */
    char *output;
    size_t output_length, output_sent;
    /* Received bytes: [partial_start, input_length) is the start of the next message; what is before it was read. */
    char *input;
    size_t input_length, input_capacity, partial_start;
    /* The newest reply read and not yet handed to the caller: each supersedes the ones before it. */
    pathmond_path *pending_path;
    pathmond_flow_status *pending_flow;
    /* A reply without "continues" came: the call is over, and any message after it is not a reply. */
    bool ended;
    bool dispatching, free_requested;
};

struct pathmond_requirements {
    int required_type; /* -1: none */
    unsigned prohibited_types; /* bit per pathmond_interface_type */
    char *required_interface;
    bool prohibit_expensive, prohibit_constrained, prohibit_roaming, allow_ultra_constrained, system_routing;
    pathmond_family family;
};

typedef struct {
    char *name;
    int ifindex;
    pathmond_interface_type type;
    bool expensive, constrained;
} path_interface;

struct pathmond_path {
    unsigned references;
    pathmond_status status;
    char *unsatisfied_reason;
    bool expensive, constrained, ultra_constrained, roaming, ipv4, ipv6, dns;
    pathmond_captive_portal captive_portal;
    path_interface *interfaces;
    size_t interface_count;
    char **gateways;
    size_t gateway_count;
};

struct pathmond_flow_status {
    bool viable, better_path;
    char *better_interface;
    char **better_addresses;
    size_t better_address_count;
};

/* The requirements as a PathRequirements object (NULL: {}). */
void requirements_write(json_writer *writer, const pathmond_requirements *requirements);

/* An InterfaceType's wire name as the enum; a name this library does not know is PATHMOND_INTERFACE_OTHER. */
pathmond_interface_type interface_type_from_name(const char *name);

/* Reads a Path object (a reply's parameters.path). */
int path_from_json(const json_document *document, const json_node *object, pathmond_path **ret);

/* Reads a FlowStatus object; flow_status_free frees it. */
int flow_status_from_json(const json_document *document, const json_node *object, pathmond_flow_status **ret);
void flow_status_free(pathmond_flow_status *status);

/* Reads a string array member (absent or null: none) into a NULL-free array of copies. */
int strings_from_json(const json_document *document, const json_node *object, const char *name, char ***ret,
                      size_t *count);
void strings_free(char **strings, size_t count);

/* Ends `call` with its NUL, sends it and enters `state` with the watch's handler (or none); what the socket cannot
 * take now waits for pathmond_client_process(). -EBUSY while another call holds the connection. */
int client_start_call(pathmond_client *client, json_writer *call, client_state state, pathmond_path_handler path,
                      pathmond_flow_handler flow, void *userdata);


/* client.c: frees the client now; drops the reply read but not handed over; ends the connection's use with `error`
 * (a watch's handler hears it once; returns `error`, or the earlier one); sends what is pending without blocking. */
void client_destroy(pathmond_client *client);
void client_clear_pending(pathmond_client *client);
int client_finish(pathmond_client *client, int error);
int client_flush(pathmond_client *client);

/* client-receive.c: reads without blocking until the socket is drained (0) or `budget` bytes were read (1);
 * -ECONNRESET at the end of the stream, another negative errno on failure. Replies read before either stay pending. */
int client_receive(pathmond_client *client, size_t budget);

#endif
