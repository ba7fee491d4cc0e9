/* SPDX-License-Identifier: Apache-2.0 */
// json-glib (json-glib-1.0 through pkg-config): the GIO module reads pathmond's Varlink replies with it.
#include <json-glib/json-glib.h>
