/* SPDX-License-Identifier: Apache-2.0 */
// The libnl headers pathmond uses; nothing else belongs here.
#include <netlink/netlink.h>
#include <netlink/msg.h>
#include <netlink/attr.h>
#include <netlink/addr.h>
#include <netlink/socket.h>
#include <netlink/handlers.h>
#include <netlink/errno.h>
#include <netlink/cache.h>
#include <netlink/route/rtnl.h>
#include <netlink/route/link.h>
#include <netlink/route/addr.h>
#include <netlink/route/route.h>
#include <netlink/route/nexthop.h>
#include <netlink/route/neighbour.h>
#include <netlink/genl/genl.h>
#include <netlink/genl/ctrl.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/if.h>
#include <linux/if_addr.h>
#include <linux/if_arp.h>
#include <linux/neighbour.h>
#include <linux/nl80211.h>
#include <linux/sched.h>

// setns(2) sits behind _GNU_SOURCE in glibc's <sched.h>, which Swift's Glibc module is built without.
extern int setns(int fd, int nstype);

// recvmmsg(2) and struct mmsghdr sit behind _GNU_SOURCE too. The route look-ups read a batch of replies in one
// call; the struct is the kernel's layout, and the call goes through syscall(2) so that no declaration of glibc's
// can ever conflict with this one.
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>
struct pathmond_mmsghdr {
    struct msghdr msg_hdr;
    unsigned int msg_len;
};
static inline int pathmond_recvmmsg(int fd, struct pathmond_mmsghdr *messages, unsigned int count, int flags) {
    return (int)syscall(SYS_recvmmsg, fd, messages, count, flags, (void *)0);
}
