# SPDX-License-Identifier: Apache-2.0
# The checks of booted-systemd-test for pathmond's own connectivity check ([connectivity]; sourced after checks.bash
# and checks-portal.bash, whose helpers they use): pathmond asks pathmond-probe through pathmond-probe.socket, systemd
# starts the probe per connection as a sandboxed dynamic user, and the probe asks an HTTP server on the far side of
# eth0 (192.0.2.1:80, Tests/PathmondIntegrationTests/Fixtures/connectivity_server.py run by the host's python3).
# The server first answers a redirect (a portal), then the expected text (open).

connectivity_config='[connectivity]\nuri = http://192.0.2.1/nm\nresponse = NetworkManager is online\ninterval = 2s\n'
# What a GLib application hears: GIO picks its backend itself (pathmond's module, installed by the package).
glib_connectivity() {
    inside python3 -c 'from gi.repository import Gio
print(Gio.NetworkMonitor.get_default().get_connectivity().value_nick)' 2>&1
}
glib_connectivity_is() { [ "$(glib_connectivity)" = "$1" ]; }
connectivity_mode() { # connectivity_mode portal|open: what the server answers from now on
    printf '%s' "$1" >"$connectivity_dir/mode.new" && mv "$connectivity_dir/mode.new" "$connectivity_dir/mode"
}
connectivity_details() {
    printf '%s\n' "$(portal_state)" "server asked: $(tail -n 3 "$connectivity_dir/requests.log" 2>/dev/null |
        paste -sd'|')" "GLib: $(glib_connectivity)" \
        "$(inside journalctl -u pathmond -u 'pathmond-probe@*' -n 10 --no-pager -o cat)"
}

check_connectivity() {
    local start t0 status probes exposure families
    start=$(now_ms)
    connectivity_dir=$work/connectivity-$boot
    mkdir -p "$connectivity_dir"
    connectivity_mode portal
    ip netns exec "$ns-far" python3 Tests/PathmondIntegrationTests/Fixtures/connectivity_server.py \
        "$connectivity_dir" 192.0.2.1 >"$connectivity_dir/server.out" 2>&1 &
    local server=$!
    server_ready() { grep -q '^ready' "$connectivity_dir/server.out"; }
    if ! eventually 10 server_ready; then
        fail "connectivity: an HTTP server on 192.0.2.1:80 (far side of eth0)" "$(cat "$connectivity_dir/server.out")"
        kill "$server" 2>/dev/null
        return
    fi
    if [ "$(prop pathmond-probe.socket ActiveState)" = active ] &&
        [ "$(prop pathmond-probe.socket Accept)" = yes ]; then
        pass "connectivity: pathmond-probe.socket is enabled and listening (Accept=yes, $(
            inside stat -c '%U %a' /run/pathmond-probe.socket))"
    else
        fail "connectivity: pathmond-probe.socket is enabled and listening" \
            "$(inside systemctl status pathmond-probe.socket --no-pager 2>&1 | head -n 5)"
    fi

    printf "$connectivity_config" | write_config
    inside systemctl reload pathmond.service
    t0=$(now_ms)
    if eventually 20 portal_is captive; then
        pass "connectivity: a redirect from the check's server: path and eth0 captivePortal \"captive\" ($(
            elapsed "$t0") ms after the reload)"
    else
        fail "connectivity: a redirect makes path and eth0 captive within 20 s" "$(connectivity_details)"
    fi
    inside pathctl check --unmetered >/dev/null 2>&1
    status=$?
    [ "$status" = 4 ] && pass "connectivity: pathctl check --unmetered exits 4 behind the portal" ||
        fail "connectivity: pathctl check --unmetered exits 4 behind the portal" "exit $status" \
            "$(connectivity_details)"
    if eventually 10 glib_connectivity_is portal; then
        pass "connectivity: a GLib application (Gio.NetworkMonitor) hears PORTAL"
    else
        fail "connectivity: a GLib application hears PORTAL" "$(connectivity_details)"
    fi
    # The probe ran under its sandbox: a dynamic user, no capabilities, only Unix and IP sockets; pathmond itself
    # keeps AF_UNIX AF_NETLINK.
    probes=$(inside journalctl -u 'pathmond-probe@*' -o cat --no-pager | grep -c 'out of eth0: portal')
    # The uid the probe's own lines were written with: a dynamic one (61184-65519), not pathmond's.
    local probe_uid
    probe_uid=$(inside journalctl -u 'pathmond-probe@*' -o json --no-pager | python3 -c '
import json, sys
for line in sys.stdin:
    entry = json.loads(line)
    if "out of eth0" in str(entry.get("MESSAGE", "")):
        print(entry.get("_UID", ""))' 2>/dev/null | tail -n 1)
    families=$(prop pathmond.service RestrictAddressFamilies)
    exposure=$(inside systemd-analyze security pathmond-probe@0.service --no-pager 2>&1 |
        sed -n 's/.*Overall exposure level for pathmond-probe@0.service: \([0-9.]*\).*/\1/p')
    if [ "$probes" -ge 1 ] && [ "$(inside systemctl cat pathmond-probe@.service | grep -c '^DynamicUser=yes')" = 1 ] &&
        [ "$(tr ' ' '\n' <<<"$families" | sort | paste -sd' ')" = "AF_NETLINK AF_UNIX" ] && [ -n "$exposure" ] &&
        [ "${probe_uid:-0}" -ge 61184 ] && [ "$probe_uid" -le 65519 ] && awk "BEGIN { exit !($exposure <= 2.5) }"
    then
        pass "connectivity: $probes checks made by pathmond-probe@.service (dynamic uid $probe_uid, exposure $exposure); $(
            )pathmond keeps RestrictAddressFamilies=$families"
    else
        fail "connectivity: the checks are made by pathmond-probe@.service, pathmond keeps AF_UNIX AF_NETLINK" \
            "probes that said portal: $probes; pathmond: $families; probe's exposure: '${exposure:-not reported}'," \
            "its uid: '${probe_uid:-not found}'" \
            "$(connectivity_details)"
    fi

    # The user signed in: the server answers the expected text, and the next check (2 s to 4 s) finds it open.
    connectivity_mode open
    t0=$(now_ms)
    if eventually 20 portal_is open && inside pathctl check --unmetered >/dev/null 2>&1; then
        pass "connectivity: the expected answer: open $(elapsed "$t0") ms later; pathctl check --unmetered exits 0"
    else
        fail "connectivity: the expected answer makes the path open and check --unmetered pass" \
            "$(connectivity_details)"
    fi
    if eventually 10 glib_connectivity_is full; then
        pass "connectivity: the GLib application hears FULL once open"
    else
        fail "connectivity: the GLib application hears FULL once open" "$(connectivity_details)"
    fi
    # CollectMode=inactive-or-failed unloads a failed instance at once: the journal is where a failure stays.
    local failures
    failures=$(inside journalctl -u 'pathmond-probe@*' -o cat --no-pager | grep -E 'Failed with result|status=31/SYS')
    if [ -z "$failures" ]; then
        pass "connectivity: no probe instance failed (no seccomp kill, no timeout)"
    else
        fail "connectivity: no probe instance failed" "$(head -n 5 <<<"$failures")"
    fi

    # As before: the configuration of the checks before (checks-portal.bash's, the connectivity check off).
    printf "$portal_no_connectivity_check" | write_config
    inside systemctl reload pathmond.service
    kill "$server" 2>/dev/null
    wait "$server" 2>/dev/null
    echo "# [$boot] connectivity checks: $(elapsed "$start") ms"
}
