/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libpathmond: pathmond's client library for C (and anything that can call C). It asks pathmond, over its Varlink
 * socket, for the network path (satisfied or not, expensive, constrained, which interfaces) and follows the path and
 * flows as they change. docs/libpathmond.md describes it; docs/io.pathmond.varlink is the protocol.
 *
 * The library is code inside other people's processes, so:
 *   - no global state and no threads of its own: a client is one connection, used from one thread at a time;
 *   - no main loop of its own: a watch is driven by the caller, who polls pathmond_client_get_fd() for
 *     pathmond_client_get_events() with any loop (poll, epoll, GLib, sd-event, libuv) and calls
 *     pathmond_client_process() when it is ready, as with sd-bus's sd_bus_get_fd() and sd_bus_process();
 *   - non-blocking I/O everywhere but the one-shot calls (pathmond_get_path, pathmond_check), which wait at most
 *     the client's timeout;
 *   - every reply is bounded (the method table's maximum reply size) and checked; a server that sends anything else
 *     gets the connection dropped with an error code, never an abort.
 *
 * Errors are negative errno values (0 or more is success):
 *   -EINVAL      an argument is wrong (a NULL where an object is needed, a string that is not UTF-8);
 *   -ENOMEM      out of memory;
 *   -ENOENT, -ECONNREFUSED, -EACCES, -EAGAIN   connect(2)'s own (no socket, nobody listening, no access, the
 *                listener's queue is full: try again);
 *   -ETIMEDOUT   no reply within the client's timeout;
 *   -EBUSY       the connection already carries a call (a watch owns its connection: use another client);
 *   -ECONNRESET  pathmond closed the connection, or ended a watch;
 *   -EBADMSG     pathmond sent something that is not a valid reply (not JSON, wrong types, a member twice);
 *   -EMSGSIZE    a reply, or a call, is larger than the protocol allows;
 *   -EREMOTEIO   pathmond answered with a Varlink error: pathmond_client_get_error_name() names it.
 * After any error but -EINVAL, -EBUSY and -EMSGSIZE of a call, the client is finished: free it and connect again.
 *
 * Symbols are versioned (LIBPATHMOND_0); the soname is libpathmond.so.0. Build with
 *   cc app.c $(pkg-config --cflags --libs pathmond)
 */
#ifndef PATHMOND_H
#define PATHMOND_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define PATHMOND_PUBLIC __attribute__((visibility("default")))
#else
#define PATHMOND_PUBLIC
#endif

/* The socket pathmond listens on when $PATHMOND_SOCKET does not name another. */
#define PATHMOND_DEFAULT_SOCKET "/run/pathmond/io.pathmond"

/* How long a one-shot call waits for its reply unless pathmond_client_set_timeout() says otherwise. */
#define PATHMOND_DEFAULT_TIMEOUT_USEC ((uint64_t)10000000)

typedef struct pathmond_client pathmond_client;
typedef struct pathmond_requirements pathmond_requirements;
typedef struct pathmond_path pathmond_path;
typedef struct pathmond_flow_status pathmond_flow_status;

typedef enum pathmond_status {
    PATHMOND_STATUS_UNSATISFIED = 0, /* no interface can carry traffic to the internet for these requirements */
    PATHMOND_STATUS_SATISFIED = 1,
} pathmond_status;

/* An interface's kind. A kind a newer pathmond adds reads as PATHMOND_INTERFACE_OTHER. */
typedef enum pathmond_interface_type {
    PATHMOND_INTERFACE_OTHER = 0,
    PATHMOND_INTERFACE_WIRED = 1,
    PATHMOND_INTERFACE_WIFI = 2,
    PATHMOND_INTERFACE_CELLULAR = 3,
    PATHMOND_INTERFACE_LOOPBACK = 4,
} pathmond_interface_type;

/* Whether the path's network holds traffic at a captive portal. Absent (an older pathmond) or a state a newer one
 * adds reads as PATHMOND_CAPTIVE_PORTAL_UNKNOWN. */
typedef enum pathmond_captive_portal {
    PATHMOND_CAPTIVE_PORTAL_UNKNOWN = 0,
    PATHMOND_CAPTIVE_PORTAL_CAPTIVE = 1,
    PATHMOND_CAPTIVE_PORTAL_OPEN = 2,
} pathmond_captive_portal;

typedef enum pathmond_family {
    PATHMOND_FAMILY_ANY = 0,
    PATHMOND_FAMILY_IPV4 = 4,
    PATHMOND_FAMILY_IPV6 = 6,
} pathmond_family;

/* ---- Connecting ---- */

/* Connects to $PATHMOND_SOCKET when it is set and not empty (as pathctl reads it; ignored in a set-uid, set-gid or
 * otherwise privileged process, whose caller must not choose the server it believes), else to
 * PATHMOND_DEFAULT_SOCKET. */
PATHMOND_PUBLIC int pathmond_connect(pathmond_client **ret);

/* Connects to the Unix socket at `socket_path`. */
PATHMOND_PUBLIC int pathmond_connect_to(const char *socket_path, pathmond_client **ret);

/* Adopts `fd`, a connected stream socket (socket activation, socketpair(2)): the client owns it from now on, and
 * closes it when freed, also when this call fails. */
PATHMOND_PUBLIC int pathmond_connect_fd(int fd, pathmond_client **ret);

/* Closes the connection and frees the client (NULL is fine). Never calls a handler. */
PATHMOND_PUBLIC void pathmond_client_free(pathmond_client *client);

/* How long pathmond_get_path() and pathmond_check() wait for their reply; 0 waits as long as it takes. */
PATHMOND_PUBLIC int pathmond_client_set_timeout(pathmond_client *client, uint64_t usec);

/* The Varlink error pathmond answered the last call with (e.g. "io.pathmond.LimitReached"), for -EREMOTEIO;
 * NULL otherwise. Valid until the client is freed. */
PATHMOND_PUBLIC const char *pathmond_client_get_error_name(const pathmond_client *client);

/* ---- Requirements: what the app may use, as NWParameters say it (none at all: the system's path) ---- */

PATHMOND_PUBLIC int pathmond_requirements_new(pathmond_requirements **ret);
PATHMOND_PUBLIC void pathmond_requirements_free(pathmond_requirements *requirements);
/* Only interfaces of this type (PATHMOND_INTERFACE_OTHER included; -1 clears it). */
PATHMOND_PUBLIC int pathmond_requirements_set_required_interface_type(pathmond_requirements *requirements, int type);
/* No interfaces of this type; may be called once per type. */
PATHMOND_PUBLIC int pathmond_requirements_prohibit_interface_type(pathmond_requirements *requirements,
                                                                  pathmond_interface_type type);
/* Only the interface of this name (NULL clears it). */
PATHMOND_PUBLIC int pathmond_requirements_set_required_interface(pathmond_requirements *requirements,
                                                                 const char *name);
PATHMOND_PUBLIC int pathmond_requirements_set_prohibit_expensive(pathmond_requirements *requirements, int prohibit);
PATHMOND_PUBLIC int pathmond_requirements_set_prohibit_constrained(pathmond_requirements *requirements,
                                                                   int prohibit);
PATHMOND_PUBLIC int pathmond_requirements_set_prohibit_roaming(pathmond_requirements *requirements, int prohibit);
PATHMOND_PUBLIC int pathmond_requirements_set_family(pathmond_requirements *requirements, pathmond_family family);
/* Satellite links may be used; without it they are left out as if they did not exist. */
PATHMOND_PUBLIC int pathmond_requirements_set_allow_ultra_constrained(pathmond_requirements *requirements,
                                                                      int allow);
/* Follow root's routing, as system services and pathctl's gates do, not the calling user's. */
PATHMOND_PUBLIC int pathmond_requirements_set_system_routing(pathmond_requirements *requirements, int system);

/* ---- The path ---- */

/* Asks for the path now (io.pathmond.GetPath), waiting at most the client's timeout. `requirements` may be NULL.
 * The path is the caller's: pathmond_path_unref() it. */
PATHMOND_PUBLIC int pathmond_get_path(pathmond_client *client, const pathmond_requirements *requirements,
                                      pathmond_path **ret);

/* Paths are reference counted and never change; a handler's path lives until the handler returns unless it takes
 * a reference. */
PATHMOND_PUBLIC pathmond_path *pathmond_path_ref(pathmond_path *path);
PATHMOND_PUBLIC pathmond_path *pathmond_path_unref(pathmond_path *path);

PATHMOND_PUBLIC pathmond_status pathmond_path_get_status(const pathmond_path *path);
/* Why the path is unsatisfied ("noDefaultRoute", "onlyExpensiveInterfaces", ...: docs/io.pathmond.varlink), or
 * NULL when satisfied or not said. */
PATHMOND_PUBLIC const char *pathmond_path_get_unsatisfied_reason(const pathmond_path *path);
/* Booleans, 1 or 0: the interface some IP version's traffic leaves by is expensive (metered), constrained (Low Data
 * Mode), ultra-constrained, roaming; the path carries IPv4, IPv6; a DNS server is configured. */
PATHMOND_PUBLIC int pathmond_path_is_expensive(const pathmond_path *path);
PATHMOND_PUBLIC int pathmond_path_is_constrained(const pathmond_path *path);
PATHMOND_PUBLIC int pathmond_path_is_ultra_constrained(const pathmond_path *path);
PATHMOND_PUBLIC int pathmond_path_is_roaming(const pathmond_path *path);
PATHMOND_PUBLIC int pathmond_path_supports_ipv4(const pathmond_path *path);
PATHMOND_PUBLIC int pathmond_path_supports_ipv6(const pathmond_path *path);
PATHMOND_PUBLIC int pathmond_path_supports_dns(const pathmond_path *path);
PATHMOND_PUBLIC pathmond_captive_portal pathmond_path_get_captive_portal(const pathmond_path *path);

/* The usable interfaces, most preferred first; `index` runs from 0 to the count. Out of range: NULL, -1, 0. */
PATHMOND_PUBLIC size_t pathmond_path_get_interface_count(const pathmond_path *path);
PATHMOND_PUBLIC const char *pathmond_path_get_interface_name(const pathmond_path *path, size_t index);
/* The kernel's interface index (if_nametoindex), or -1. */
PATHMOND_PUBLIC int pathmond_path_get_interface_ifindex(const pathmond_path *path, size_t index);
PATHMOND_PUBLIC pathmond_interface_type pathmond_path_get_interface_type(const pathmond_path *path, size_t index);
PATHMOND_PUBLIC int pathmond_path_interface_is_expensive(const pathmond_path *path, size_t index);
PATHMOND_PUBLIC int pathmond_path_interface_is_constrained(const pathmond_path *path, size_t index);

/* The next-hop routers the path uses, IPv4 first, as text. */
PATHMOND_PUBLIC size_t pathmond_path_get_gateway_count(const pathmond_path *path);
PATHMOND_PUBLIC const char *pathmond_path_get_gateway(const pathmond_path *path, size_t index);

/* ---- Checking, as `pathctl check` does ---- */

/* Conditions: the path must be neither expensive nor constrained nor held at a captive portal (--unmetered), or
 * only not constrained (--not-constrained). */
#define PATHMOND_CHECK_UNMETERED 0x1u
#define PATHMOND_CHECK_NOT_CONSTRAINED 0x2u

/* How a path fails the conditions: pathctl check's exit statuses. */
#define PATHMOND_CHECK_OK 0
#define PATHMOND_CHECK_UNSATISFIED 1
#define PATHMOND_CHECK_EXPENSIVE 2
#define PATHMOND_CHECK_CONSTRAINED 3
#define PATHMOND_CHECK_CAPTIVE_PORTAL 4

/* PATHMOND_CHECK_OK when `path` meets `conditions`, else the first failure in the order above; -EINVAL for a NULL
 * path or an unknown condition bit. */
PATHMOND_PUBLIC int pathmond_path_check(const pathmond_path *path, unsigned conditions);

/* Gets the path for `requirements` (NULL: none) and checks it: a PATHMOND_CHECK_* value, or a negative errno when
 * pathmond did not answer (pathctl check exits 69 then). */
PATHMOND_PUBLIC int pathmond_check(pathmond_client *client, const pathmond_requirements *requirements,
                                   unsigned conditions);

/* ---- Watching, from any main loop ---- */

/* Called from pathmond_client_process() with a path (`error` 0), or once with a negative errno when the watch ended
 * (`path` NULL): the connection is finished then. When several paths arrived at once only the newest is given: each
 * supersedes the ones before it. The handler may free its client only when it returns after an error. */
typedef void (*pathmond_path_handler)(pathmond_client *client, int error, const pathmond_path *path,
                                      void *userdata);

/* Starts following the path (io.pathmond.WatchPath): the handler hears the path at once, then every change. The
 * watch owns the connection until it ends. */
PATHMOND_PUBLIC int pathmond_watch_path(pathmond_client *client, const pathmond_requirements *requirements,
                                        pathmond_path_handler handler, void *userdata);

/* A connection the app holds, for pathmond_watch_flow(). */
#define PATHMOND_FLOW_BOUND 0x1u /* the socket is bound to its interface (SO_BINDTODEVICE) */

/* Called like a path handler, with the flow's status. */
typedef void (*pathmond_flow_handler)(pathmond_client *client, int error, const pathmond_flow_status *status,
                                      void *userdata);

/* Starts following a flow (io.pathmond.WatchFlow): the connection over `interface` from `local_address` to
 * `remote_address` (NULL when unknown), with the requirements a better path must respect (NULL: none) and
 * PATHMOND_FLOW_* `flags`. */
PATHMOND_PUBLIC int pathmond_watch_flow(pathmond_client *client, const char *interface, const char *local_address,
                                        const char *remote_address, const pathmond_requirements *requirements,
                                        unsigned flags, pathmond_flow_handler handler, void *userdata);

/* The connection still works over its interface. */
PATHMOND_PUBLIC int pathmond_flow_status_is_viable(const pathmond_flow_status *status);
/* Another path the requirements allow is preferred: open a connection there and move once it is ready. */
PATHMOND_PUBLIC int pathmond_flow_status_has_better_path(const pathmond_flow_status *status);
/* That path's interface, or NULL. */
PATHMOND_PUBLIC const char *pathmond_flow_status_get_better_interface(const pathmond_flow_status *status);
/* Its usable addresses of the allowed family: what a new connection binds to. */
PATHMOND_PUBLIC size_t pathmond_flow_status_get_better_address_count(const pathmond_flow_status *status);
PATHMOND_PUBLIC const char *pathmond_flow_status_get_better_address(const pathmond_flow_status *status,
                                                                    size_t index);

/* The connection's descriptor, to poll for pathmond_client_get_events(). Never read or write it yourself. */
PATHMOND_PUBLIC int pathmond_client_get_fd(const pathmond_client *client);

/* POLLIN, and POLLOUT while a call is still being sent; poll for these and then call pathmond_client_process(). */
PATHMOND_PUBLIC int pathmond_client_get_events(const pathmond_client *client);

/* Sends what is pending and reads what has arrived, without blocking, and calls the watch's handler. Returns 0 when
 * there is nothing more to do now, 1 when it stopped early to stay fair to the caller's loop (call it again
 * before polling), or a negative errno when the connection is finished (the handler has heard it). */
PATHMOND_PUBLIC int pathmond_client_process(pathmond_client *client);

#ifdef __cplusplus
}
#endif

#endif
