/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Included first by every file of the module: the log domain must be set before GLib's headers are read. */
#ifndef PATHMOND_GIO_PRIVATE_H
#define PATHMOND_GIO_PRIVATE_H

#define G_LOG_DOMAIN "pathmond-gio"

#include <gio/gio.h>

#include "pathmond-gio.h"

#endif
