/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* PathRequirements: what the app may use, built up by setters and written as the call's object. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "libpathmond-private.h"

/* The interface types' wire names, by pathmond_interface_type. */
static const char *const type_names[] = {
    [PATHMOND_INTERFACE_OTHER] = "other",
    [PATHMOND_INTERFACE_WIRED] = "wired",
    [PATHMOND_INTERFACE_WIFI] = "wifi",
    [PATHMOND_INTERFACE_CELLULAR] = "cellular",
    [PATHMOND_INTERFACE_LOOPBACK] = "loopback",
};
#define TYPE_COUNT ((int)(sizeof type_names / sizeof type_names[0]))

int pathmond_requirements_new(pathmond_requirements **ret) {
    if (ret == NULL)
        return -EINVAL;
    pathmond_requirements *requirements = calloc(1, sizeof *requirements);
    if (requirements == NULL)
        return -ENOMEM;
    requirements->required_type = -1;
    *ret = requirements;
    return 0;
}

void pathmond_requirements_free(pathmond_requirements *requirements) {
    if (requirements == NULL)
        return;
    free(requirements->required_interface);
    free(requirements);
}

int pathmond_requirements_set_required_interface_type(pathmond_requirements *requirements, int type) {
    if (requirements == NULL || type < -1 || type >= TYPE_COUNT)
        return -EINVAL;
    requirements->required_type = type;
    return 0;
}

int pathmond_requirements_prohibit_interface_type(pathmond_requirements *requirements,
                                                  pathmond_interface_type type) {
    if (requirements == NULL || (int)type < 0 || (int)type >= TYPE_COUNT)
        return -EINVAL;
    requirements->prohibited_types |= 1u << type;
    return 0;
}

int pathmond_requirements_set_required_interface(pathmond_requirements *requirements, const char *name) {
    if (requirements == NULL || (name != NULL && !json_utf8_valid(name)))
        return -EINVAL;
    char *copy = NULL;
    if (name != NULL && (copy = strdup(name)) == NULL)
        return -ENOMEM;
    free(requirements->required_interface);
    requirements->required_interface = copy;
    return 0;
}

#define SETTER(function, field)                                                                                    \
    int function(pathmond_requirements *requirements, int value) {                                               \
        if (requirements == NULL)                                                                                  \
            return -EINVAL;                                                                                        \
        requirements->field = value != 0;                                                                          \
        return 0;                                                                                                  \
    }
SETTER(pathmond_requirements_set_prohibit_expensive, prohibit_expensive)
SETTER(pathmond_requirements_set_prohibit_constrained, prohibit_constrained)
SETTER(pathmond_requirements_set_prohibit_roaming, prohibit_roaming)
SETTER(pathmond_requirements_set_allow_ultra_constrained, allow_ultra_constrained)
SETTER(pathmond_requirements_set_system_routing, system_routing)

int pathmond_requirements_set_family(pathmond_requirements *requirements, pathmond_family family) {
    if (requirements == NULL ||
        (family != PATHMOND_FAMILY_ANY && family != PATHMOND_FAMILY_IPV4 && family != PATHMOND_FAMILY_IPV6))
        return -EINVAL;
    requirements->family = family;
    return 0;
}

/* Writes `"name":true,` for a set flag; `*first` tracks the separator. */
static void flag(json_writer *writer, bool *first, const char *name, bool value) {
    if (!value)
        return;
    json_write_raw(writer, *first ? "\"" : ",\"");
    json_write_raw(writer, name);
    json_write_raw(writer, "\":true");
    *first = false;
}

static void key(json_writer *writer, bool *first, const char *name) {
    json_write_raw(writer, *first ? "\"" : ",\"");
    json_write_raw(writer, name);
    json_write_raw(writer, "\":");
    *first = false;
}

void requirements_write(json_writer *writer, const pathmond_requirements *requirements) {
    json_write_raw(writer, "{");
    if (requirements != NULL) {
        bool first = true;
        if (requirements->required_type >= 0) {
            key(writer, &first, "requiredInterfaceType");
            json_write_string(writer, type_names[requirements->required_type]);
        }
        if (requirements->prohibited_types != 0) {
            key(writer, &first, "prohibitedInterfaceTypes");
            json_write_raw(writer, "[");
            bool first_type = true;
            for (int type = 0; type < TYPE_COUNT; type++) {
                if ((requirements->prohibited_types & (1u << type)) == 0)
                    continue;
                if (!first_type)
                    json_write_raw(writer, ",");
                json_write_string(writer, type_names[type]);
                first_type = false;
            }
            json_write_raw(writer, "]");
        }
        if (requirements->required_interface != NULL) {
            key(writer, &first, "requiredInterface");
            json_write_string(writer, requirements->required_interface);
        }
        flag(writer, &first, "prohibitExpensive", requirements->prohibit_expensive);
        flag(writer, &first, "prohibitConstrained", requirements->prohibit_constrained);
        if (requirements->family != PATHMOND_FAMILY_ANY) {
            key(writer, &first, "family");
            json_write_string(writer, requirements->family == PATHMOND_FAMILY_IPV4 ? "ipv4" : "ipv6");
        }
        flag(writer, &first, "allowUltraConstrained", requirements->allow_ultra_constrained);
        flag(writer, &first, "prohibitRoaming", requirements->prohibit_roaming);
        flag(writer, &first, "systemRouting", requirements->system_routing);
    }
    json_write_raw(writer, "}");
}

pathmond_interface_type interface_type_from_name(const char *name) {
    for (int type = 0; name != NULL && type < TYPE_COUNT; type++)
        if (strcmp(name, type_names[type]) == 0)
            return (pathmond_interface_type)type;
    return PATHMOND_INTERFACE_OTHER;
}
