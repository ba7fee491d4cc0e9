/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* `pathctl check` for C: the same conditions, in the same order, with the same statuses (Sources/pathctl/
 * PathCondition.swift). */
#include <errno.h>

#include "libpathmond-private.h"

int pathmond_path_check(const pathmond_path *path, unsigned conditions) {
    if (path == NULL || (conditions & ~(PATHMOND_CHECK_UNMETERED | PATHMOND_CHECK_NOT_CONSTRAINED)) != 0)
        return -EINVAL;
    bool unmetered = conditions & PATHMOND_CHECK_UNMETERED;
    bool not_constrained = conditions & PATHMOND_CHECK_NOT_CONSTRAINED;
    if (path->status != PATHMOND_STATUS_SATISFIED)
        return PATHMOND_CHECK_UNSATISFIED;
    if (unmetered && path->expensive)
        return PATHMOND_CHECK_EXPENSIVE;
    if ((unmetered || not_constrained) && path->constrained)
        return PATHMOND_CHECK_CONSTRAINED;
    /* Work waiting for a cheap path would only fetch the portal's sign-in page. */
    if (unmetered && path->captive_portal == PATHMOND_CAPTIVE_PORTAL_CAPTIVE)
        return PATHMOND_CHECK_CAPTIVE_PORTAL;
    return PATHMOND_CHECK_OK;
}

int pathmond_check(pathmond_client *client, const pathmond_requirements *requirements, unsigned conditions) {
    if ((conditions & ~(PATHMOND_CHECK_UNMETERED | PATHMOND_CHECK_NOT_CONSTRAINED)) != 0)
        return -EINVAL;
    pathmond_requirements *system = NULL;
    if (requirements == NULL) {
        /* pathctl speaks for the system: it sees every interface, satellite links included, unless asked to look
         * as an app would. */
        int r = pathmond_requirements_new(&system);
        if (r < 0)
            return r;
        pathmond_requirements_set_allow_ultra_constrained(system, 1);
        requirements = system;
    }
    pathmond_path *path = NULL;
    int r = pathmond_get_path(client, requirements, &path);
    pathmond_requirements_free(system);
    if (r < 0)
        return r;
    r = pathmond_path_check(path, conditions);
    pathmond_path_unref(path);
    return r;
}
