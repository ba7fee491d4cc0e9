/* SPDX-License-Identifier: Apache-2.0 */
// Linux calls pathmond-bench needs that Swift's Glibc module does not export: epoll and eventfd (their headers are
// outside the module), the _GNU_SOURCE declarations setns and pipe2, declared here as glibc defines them, and
// recvmmsg.
#ifndef C_BENCH_SUPPORT_H
#define C_BENCH_SUPPORT_H

#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <stddef.h>

int setns(int fd, int nstype);
int pipe2(int pipefd[2], int flags);

// recvmmsg(2) and struct mmsghdr sit behind _GNU_SOURCE: the route look-ups read their replies in bulk, as pathmond
// does, through the system call itself. The structs are spelled out with plain types (struct msghdr's layout, the
// vector as a pointer): including <sys/socket.h> here took its constants from Glibc's module for files that do not
// import this one.
struct bench_msghdr {
    void *msg_name;
    unsigned int msg_namelen;
    void *msg_iov;
    size_t msg_iovlen;
    void *msg_control;
    size_t msg_controllen;
    int msg_flags;
};

struct bench_mmsghdr {
    struct bench_msghdr msg_hdr;
    unsigned int msg_len;
};

long syscall(long number, ...);

// __NR_recvmmsg: kernel ABI, per architecture.
#if defined(__x86_64__)
static const long bench_sys_recvmmsg = 299;
#elif defined(__aarch64__)
static const long bench_sys_recvmmsg = 243;
#else
#error "bench_sys_recvmmsg: add this architecture's __NR_recvmmsg"
#endif

static inline int bench_recvmmsg(int fd, struct bench_mmsghdr *messages, unsigned int count, int flags) {
    return (int)syscall(bench_sys_recvmmsg, fd, messages, count, flags, (void *)0);
}

// CLONE_NEWNET from <linux/sched.h>: kernel ABI.
static const int bench_clone_newnet = 0x40000000;

#endif
