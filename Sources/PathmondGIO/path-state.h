/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What the monitor reports, and how it is read from one of pathmond's WatchPath replies. */
#ifndef PATHMOND_PATH_STATE_H
#define PATHMOND_PATH_STATE_H

#include "gio-private.h"

typedef struct {
  gboolean available;     /* the path is satisfied */
  gboolean metered;       /* the path is expensive or constrained (Low Data Mode) */
  gboolean supports_ipv4; /* for can_reach: the path carries this family */
  gboolean supports_ipv6;
  gboolean captive;       /* the path's captivePortal is "captive" (absent from older pathmond: not captive) */
  gboolean limited;       /* the path's captivePortal is "limited": pathmond's connectivity check got no answer */
} PathmondPathState;

/* GLib's own defaults (GNetworkMonitorBase with nothing known): available, not metered, both families. Reported
 * while pathmond is away, so a stopped daemon never makes applications think they are offline. */
G_GNUC_INTERNAL PathmondPathState pathmond_path_state_defaults (void);

G_GNUC_INTERNAL gboolean pathmond_path_state_equal (const PathmondPathState *a, const PathmondPathState *b);

/* FULL when available, PORTAL when available but held at a captive portal, LIMITED when available but the
 * connectivity check got no answer, LOCAL when not available. */
G_GNUC_INTERNAL GNetworkConnectivity pathmond_path_state_connectivity (const PathmondPathState *state);

/* Reads one Varlink message (without its NUL). A WatchPath reply fills `state` and `continues` (whether more replies
 * follow on this connection); a Varlink error or a malformed message sets `error`. */
G_GNUC_INTERNAL gboolean pathmond_path_state_parse_reply (const char *message, gsize length,
                                                          PathmondPathState *state, gboolean *continues,
                                                          GError **error);

#endif
