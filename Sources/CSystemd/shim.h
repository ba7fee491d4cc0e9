/* SPDX-License-Identifier: Apache-2.0 */
// libsystemd: sd-daemon (notify, socket activation), sd-bus (D-Bus) and sd-event (the daemon's main loop), as
// systemd's own daemons use them.
#include <systemd/sd-daemon.h>
#include <systemd/sd-bus.h>
#include "settings-copy.h"
#include <systemd/sd-event.h>
#include <systemd/sd-id128.h>
// sd_journal_sendv: log records with fields through the journal's native protocol. Without this, the header would
// turn the call into a macro adding CODE_FILE= and CODE_LINE= of this header, which say nothing.
#define SD_JOURNAL_SUPPRESS_LOCATION 1
#include <systemd/sd-journal.h>
// sd_pid_get_unit: the unit a process belongs to, from its cgroup (the dispatcher's deferrals).
#include <systemd/sd-login.h>
// For sd-event's loop: the eventfd that wakes it from other threads, and naming its thread (the Glibc module
// exports neither).
#include <sys/eventfd.h>
#include <sys/prctl.h>

// prctl is variadic, which Swift cannot call.
static inline int pathmond_set_thread_name(const char *name) { return prctl(PR_SET_NAME, name, 0, 0, 0); }

// For the daemon's listener: accept4 takes a client non-blocking and close-on-exec in one call, but glibc declares
// it only under _GNU_SOURCE, which the Glibc module does not define.
#include <sys/socket.h>
extern int accept4(int fd, struct sockaddr *address, socklen_t *length, int flags);
static inline int pathmond_accept_client(int listener) {
    return accept4(listener, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
}

