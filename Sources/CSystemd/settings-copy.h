/* SPDX-License-Identifier: Apache-2.0 */
// A settings dictionary of NetworkManager's D-Bus API (a{sa{sv}}: groups of named variants) copied from a reply into
// a new call with one int32 entry set, as `nmcli device modify` changes one property of a device's applied
// connection. sd-bus copies every other value with its exact type, which a round trip through Swift values could not
// keep (an empty array has no element to tell its type).
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <systemd/sd-bus.h>

// Copies the a{sa{sv}} at `source`'s read position into `destination`, with GROUP.KEY set to VALUE (added, with
// its group, when missing). Returns a negative errno on a malformed source or a failed append.
static inline int pathmond_copy_settings_setting_int32(
    sd_bus_message *destination, sd_bus_message *source, const char *group, const char *key, int32_t value) {
    int r;
    bool group_seen = false;
    if ((r = sd_bus_message_enter_container(source, 'a', "{sa{sv}}")) <= 0) return r < 0 ? r : -EBADMSG;
    if ((r = sd_bus_message_open_container(destination, 'a', "{sa{sv}}")) < 0) return r;
    for (;;) {
        if ((r = sd_bus_message_enter_container(source, 'e', "sa{sv}")) < 0) return r;
        if (r == 0) break;
        const char *name = NULL;
        if ((r = sd_bus_message_read_basic(source, 's', &name)) < 0) return r;
        bool is_group = strcmp(name, group) == 0;
        group_seen = group_seen || is_group;
        if ((r = sd_bus_message_open_container(destination, 'e', "sa{sv}")) < 0) return r;
        if ((r = sd_bus_message_append_basic(destination, 's', name)) < 0) return r;
        if ((r = sd_bus_message_enter_container(source, 'a', "{sv}")) < 0) return r;
        if ((r = sd_bus_message_open_container(destination, 'a', "{sv}")) < 0) return r;
        for (;;) {
            if ((r = sd_bus_message_enter_container(source, 'e', "sv")) < 0) return r;
            if (r == 0) break;
            const char *property = NULL;
            if ((r = sd_bus_message_read_basic(source, 's', &property)) < 0) return r;
            if (is_group && strcmp(property, key) == 0) {
                if ((r = sd_bus_message_skip(source, "v")) < 0) return r;
            } else {
                if ((r = sd_bus_message_open_container(destination, 'e', "sv")) < 0) return r;
                if ((r = sd_bus_message_append_basic(destination, 's', property)) < 0) return r;
                if ((r = sd_bus_message_copy(destination, source, 0)) < 0) return r;
                if ((r = sd_bus_message_close_container(destination)) < 0) return r;
            }
            if ((r = sd_bus_message_exit_container(source)) < 0) return r;
        }
        if (is_group && (r = sd_bus_message_append(destination, "{sv}", key, "i", value)) < 0) return r;
        if ((r = sd_bus_message_close_container(destination)) < 0) return r;
        if ((r = sd_bus_message_exit_container(source)) < 0) return r;
        if ((r = sd_bus_message_close_container(destination)) < 0) return r;
        if ((r = sd_bus_message_exit_container(source)) < 0) return r;
    }
    if (!group_seen && (r = sd_bus_message_append(destination, "{sa{sv}}", group, 1, key, "i", value)) < 0) return r;
    if ((r = sd_bus_message_close_container(destination)) < 0) return r;
    return sd_bus_message_exit_container(source);
}
