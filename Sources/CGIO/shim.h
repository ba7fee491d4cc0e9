/* SPDX-License-Identifier: Apache-2.0 */
// GLib's GIO (gio-2.0 through pkg-config): only the PathmondGIO module, which GIO loads into GLib processes, uses it.
#include <gio/gio.h>
