/* SPDX-License-Identifier: Apache-2.0 */
// Linux calls pathmond-bench needs that Swift's Glibc module does not export: epoll and eventfd (their headers are
// outside the module), the _GNU_SOURCE declarations setns and pipe2, declared here as glibc defines them, and
// recvmmsg.
#ifndef C_BENCH_SUPPORT_H
#define C_BENCH_SUPPORT_H

#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

int setns(int fd, int nstype);
int pipe2(int pipefd[2], int flags);

// recvmmsg(2) and struct mmsghdr sit behind _GNU_SOURCE: the flows' look-ups read their replies in bulk, as
// pathmond does, through the system call itself.
struct bench_mmsghdr {
    struct msghdr msg_hdr;
    unsigned int msg_len;
};

static inline int bench_recvmmsg(int fd, struct bench_mmsghdr *messages, unsigned int count, int flags) {
    return (int)syscall(SYS_recvmmsg, fd, messages, count, flags, (void *)0);
}

// CLONE_NEWNET from <linux/sched.h>: kernel ABI.
static const int bench_clone_newnet = 0x40000000;

#endif
