/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A Path as pathmond sends it (docs/io.pathmond.varlink), read into an immutable, reference-counted object. Fields
 * an older pathmond omits read as false or unknown; fields a newer one adds are ignored; a field of the wrong type
 * makes the whole reply malformed. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "libpathmond-private.h"

void strings_free(char **strings, size_t count) {
    for (size_t i = 0; strings != NULL && i < count; i++)
        free(strings[i]);
    free(strings);
}

int strings_from_json(const json_document *document, const json_node *object, const char *name, char ***ret,
                      size_t *count) {
    const json_node *array;
    int r = json_member_array(document, object, name, &array);
    *ret = NULL;
    *count = 0;
    if (r < 0 || array == NULL)
        return r;
    char **strings = calloc(array->count, sizeof *strings);
    if (strings == NULL)
        return -ENOMEM;
    size_t index = 0;
    for (const json_node *element = json_first(document, array); element != NULL;
         element = json_next(document, element)) {
        const char *text = json_string(document, element);
        if (text == NULL) {
            strings_free(strings, index);
            return -EBADMSG;
        }
        if ((strings[index] = strdup(text)) == NULL) {
            strings_free(strings, index);
            return -ENOMEM;
        }
        index++;
    }
    *ret = strings;
    *count = index;
    return 0;
}

static void path_free(pathmond_path *path) {
    free(path->unsatisfied_reason);
    for (size_t i = 0; i < path->interface_count; i++)
        free(path->interfaces[i].name);
    free(path->interfaces);
    strings_free(path->gateways, path->gateway_count);
    free(path);
}

static int captive_portal_from_json(const json_document *document, const json_node *object, const char *name,
                                    pathmond_captive_portal *ret) {
    const char *state;
    int r = json_member_string(document, object, name, &state);
    if (r < 0)
        return r;
    *ret = state == NULL                  ? PATHMOND_CAPTIVE_PORTAL_UNKNOWN
           : strcmp(state, "captive") == 0 ? PATHMOND_CAPTIVE_PORTAL_CAPTIVE
           : strcmp(state, "open") == 0    ? PATHMOND_CAPTIVE_PORTAL_OPEN
                                           : PATHMOND_CAPTIVE_PORTAL_UNKNOWN;
    return 0;
}

static int interface_from_json(const json_document *document, const json_node *object, path_interface *interface) {
    if (object->kind != JSON_OBJECT)
        return -EBADMSG;
    const char *name, *type;
    int64_t ifindex = -1;
    int expensive, constrained, r;
    if ((r = json_member_string(document, object, "name", &name)) < 0 ||
        (r = json_member_string(document, object, "type", &type)) < 0 ||
        (r = json_member_int(document, object, "index", 1, INT32_MAX, &ifindex)) < 0 ||
        (r = json_member_bool(document, object, "isExpensive", 0, &expensive)) < 0 ||
        (r = json_member_bool(document, object, "isConstrained", 0, &constrained)) < 0)
        return r;
    if (name == NULL)
        return -EBADMSG;
    if ((interface->name = strdup(name)) == NULL)
        return -ENOMEM;
    interface->ifindex = (int)ifindex;
    interface->type = interface_type_from_name(type);
    interface->expensive = expensive;
    interface->constrained = constrained;
    return 0;
}

static int interfaces_from_json(const json_document *document, const json_node *object, pathmond_path *path) {
    const json_node *array;
    int r = json_member_array(document, object, "availableInterfaces", &array);
    if (r < 0 || array == NULL)
        return r;
    if ((path->interfaces = calloc(array->count, sizeof *path->interfaces)) == NULL)
        return -ENOMEM;
    for (const json_node *element = json_first(document, array); element != NULL;
         element = json_next(document, element)) {
        if ((r = interface_from_json(document, element, &path->interfaces[path->interface_count])) < 0)
            return r;
        path->interface_count++;
    }
    return 0;
}

int path_from_json(const json_document *document, const json_node *object, pathmond_path **ret) {
    if (object == NULL || object->kind != JSON_OBJECT)
        return -EBADMSG;
    pathmond_path *path = calloc(1, sizeof *path);
    if (path == NULL)
        return -ENOMEM;
    path->references = 1;
    const char *status, *reason;
    int expensive, constrained, ultra, roaming, ipv4, ipv6, dns, r;
    if ((r = json_member_string(document, object, "status", &status)) < 0 ||
        (r = json_member_string(document, object, "unsatisfiedReason", &reason)) < 0 ||
        (r = json_member_bool(document, object, "isExpensive", 0, &expensive)) < 0 ||
        (r = json_member_bool(document, object, "isConstrained", 0, &constrained)) < 0 ||
        (r = json_member_bool(document, object, "isUltraConstrained", 0, &ultra)) < 0 ||
        (r = json_member_bool(document, object, "isRoaming", 0, &roaming)) < 0 ||
        (r = json_member_bool(document, object, "supportsIPv4", 0, &ipv4)) < 0 ||
        (r = json_member_bool(document, object, "supportsIPv6", 0, &ipv6)) < 0 ||
        (r = json_member_bool(document, object, "supportsDNS", 0, &dns)) < 0 ||
        (r = captive_portal_from_json(document, object, "captivePortal", &path->captive_portal)) < 0 ||
        (r = interfaces_from_json(document, object, path)) < 0 ||
        (r = strings_from_json(document, object, "gateways", &path->gateways, &path->gateway_count)) < 0)
        goto fail;
    if (status != NULL && strcmp(status, "satisfied") == 0)
        path->status = PATHMOND_STATUS_SATISFIED;
    else if (status != NULL && strcmp(status, "unsatisfied") == 0)
        path->status = PATHMOND_STATUS_UNSATISFIED;
    else {
        r = -EBADMSG;
        goto fail;
    }
    if (reason != NULL && (path->unsatisfied_reason = strdup(reason)) == NULL) {
        r = -ENOMEM;
        goto fail;
    }
    path->expensive = expensive, path->constrained = constrained, path->ultra_constrained = ultra;
    path->roaming = roaming, path->ipv4 = ipv4, path->ipv6 = ipv6, path->dns = dns;
    *ret = path;
    return 0;
fail:
    path_free(path);
    return r;
}

pathmond_path *pathmond_path_ref(pathmond_path *path) {
    if (path != NULL)
        __atomic_add_fetch(&path->references, 1, __ATOMIC_RELAXED);
    return path;
}

pathmond_path *pathmond_path_unref(pathmond_path *path) {
    /* Paths never change once read: another thread may hold a reference, and only the count is shared. */
    if (path != NULL && __atomic_sub_fetch(&path->references, 1, __ATOMIC_ACQ_REL) == 0)
        path_free(path);
    return NULL;
}

pathmond_status pathmond_path_get_status(const pathmond_path *path) {
    return path != NULL ? path->status : PATHMOND_STATUS_UNSATISFIED;
}

const char *pathmond_path_get_unsatisfied_reason(const pathmond_path *path) {
    return path != NULL && path->status == PATHMOND_STATUS_UNSATISFIED ? path->unsatisfied_reason : NULL;
}

int pathmond_path_is_expensive(const pathmond_path *path) { return path != NULL && path->expensive; }
int pathmond_path_is_constrained(const pathmond_path *path) { return path != NULL && path->constrained; }
int pathmond_path_is_ultra_constrained(const pathmond_path *path) { return path != NULL && path->ultra_constrained; }
int pathmond_path_is_roaming(const pathmond_path *path) { return path != NULL && path->roaming; }
int pathmond_path_supports_ipv4(const pathmond_path *path) { return path != NULL && path->ipv4; }
int pathmond_path_supports_ipv6(const pathmond_path *path) { return path != NULL && path->ipv6; }
int pathmond_path_supports_dns(const pathmond_path *path) { return path != NULL && path->dns; }

pathmond_captive_portal pathmond_path_get_captive_portal(const pathmond_path *path) {
    return path != NULL ? path->captive_portal : PATHMOND_CAPTIVE_PORTAL_UNKNOWN;
}

size_t pathmond_path_get_interface_count(const pathmond_path *path) {
    return path != NULL ? path->interface_count : 0;
}

static const path_interface *interface_at(const pathmond_path *path, size_t index) {
    return path != NULL && index < path->interface_count ? &path->interfaces[index] : NULL;
}

const char *pathmond_path_get_interface_name(const pathmond_path *path, size_t index) {
    const path_interface *interface = interface_at(path, index);
    return interface != NULL ? interface->name : NULL;
}

int pathmond_path_get_interface_ifindex(const pathmond_path *path, size_t index) {
    const path_interface *interface = interface_at(path, index);
    return interface != NULL ? interface->ifindex : -1;
}

pathmond_interface_type pathmond_path_get_interface_type(const pathmond_path *path, size_t index) {
    const path_interface *interface = interface_at(path, index);
    return interface != NULL ? interface->type : PATHMOND_INTERFACE_OTHER;
}

int pathmond_path_interface_is_expensive(const pathmond_path *path, size_t index) {
    const path_interface *interface = interface_at(path, index);
    return interface != NULL && interface->expensive;
}

int pathmond_path_interface_is_constrained(const pathmond_path *path, size_t index) {
    const path_interface *interface = interface_at(path, index);
    return interface != NULL && interface->constrained;
}

size_t pathmond_path_get_gateway_count(const pathmond_path *path) {
    return path != NULL ? path->gateway_count : 0;
}

const char *pathmond_path_get_gateway(const pathmond_path *path, size_t index) {
    return path != NULL && index < path->gateway_count ? path->gateways[index] : NULL;
}
