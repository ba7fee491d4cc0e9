/* SPDX-License-Identifier: Apache-2.0 */
// Linux calls pathmond-bench needs that Swift's Glibc module does not export: epoll and eventfd (their headers are
// outside the module) and the _GNU_SOURCE declarations setns and pipe2, declared here as glibc defines them.
#ifndef C_BENCH_SUPPORT_H
#define C_BENCH_SUPPORT_H

#include <sys/epoll.h>
#include <sys/eventfd.h>

int setns(int fd, int nstype);
int pipe2(int pipefd[2], int flags);

// CLONE_NEWNET from <linux/sched.h>: kernel ABI.
static const int bench_clone_newnet = 0x40000000;

#endif
