/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* WatchFlow: the call for a connection the app holds, and the FlowStatus replies. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "libpathmond-private.h"

void flow_status_free(pathmond_flow_status *status) {
    if (status == NULL)
        return;
    free(status->better_interface);
    strings_free(status->better_addresses, status->better_address_count);
    free(status);
}

int flow_status_from_json(const json_document *document, const json_node *object, pathmond_flow_status **ret) {
    if (object == NULL || object->kind != JSON_OBJECT)
        return -EBADMSG;
    pathmond_flow_status *status = calloc(1, sizeof *status);
    if (status == NULL)
        return -ENOMEM;
    const json_node *viable;
    const char *better_interface;
    int better, r;
    /* isViable is what a flow's status is for: a reply without it says nothing. */
    if ((r = json_member(document, object, "isViable", &viable)) < 0 ||
        (r = json_member_bool(document, object, "betterPathAvailable", 0, &better)) < 0 ||
        (r = json_member_string(document, object, "betterInterface", &better_interface)) < 0 ||
        (r = strings_from_json(document, object, "betterInterfaceAddresses", &status->better_addresses,
                               &status->better_address_count)) < 0)
        goto fail;
    if (viable == NULL || (viable->kind != JSON_TRUE && viable->kind != JSON_FALSE)) {
        r = -EBADMSG;
        goto fail;
    }
    if (better_interface != NULL && (status->better_interface = strdup(better_interface)) == NULL) {
        r = -ENOMEM;
        goto fail;
    }
    status->viable = viable->kind == JSON_TRUE;
    status->better_path = better;
    *ret = status;
    return 0;
fail:
    flow_status_free(status);
    return r;
}

int pathmond_watch_flow(pathmond_client *client, const char *interface, const char *local_address,
                        const char *remote_address, const pathmond_requirements *requirements, unsigned flags,
                        pathmond_flow_handler handler, void *userdata) {
    if (client == NULL || interface == NULL || local_address == NULL || handler == NULL ||
        (flags & ~PATHMOND_FLOW_BOUND) != 0)
        return -EINVAL;
    json_writer call;
    json_writer_init(&call, PATHMOND_METHOD_WATCH_FLOW_MAXIMUM_CALL_SIZE);
    json_write_raw(&call, "{\"method\":\"" PATHMOND_METHOD_WATCH_FLOW "\",\"parameters\":{\"flow\":{\"interface\":");
    json_write_string(&call, interface);
    json_write_raw(&call, ",\"localAddress\":");
    json_write_string(&call, local_address);
    if (remote_address != NULL) {
        json_write_raw(&call, ",\"remoteAddress\":");
        json_write_string(&call, remote_address);
    }
    if (requirements != NULL) {
        json_write_raw(&call, ",\"requirements\":");
        requirements_write(&call, requirements);
    }
    if (flags & PATHMOND_FLOW_BOUND)
        json_write_raw(&call, ",\"bound\":true");
    json_write_raw(&call, "}},\"more\":true}");
    int r = client_start_call(client, &call, CLIENT_WATCHING_FLOW, NULL, handler, userdata);
    json_writer_free(&call);
    return r;
}

int pathmond_flow_status_is_viable(const pathmond_flow_status *status) { return status != NULL && status->viable; }

int pathmond_flow_status_has_better_path(const pathmond_flow_status *status) {
    return status != NULL && status->better_path;
}

const char *pathmond_flow_status_get_better_interface(const pathmond_flow_status *status) {
    return status != NULL ? status->better_interface : NULL;
}

size_t pathmond_flow_status_get_better_address_count(const pathmond_flow_status *status) {
    return status != NULL ? status->better_address_count : 0;
}

const char *pathmond_flow_status_get_better_address(const pathmond_flow_status *status, size_t index) {
    return status != NULL && index < status->better_address_count ? status->better_addresses[index] : NULL;
}
