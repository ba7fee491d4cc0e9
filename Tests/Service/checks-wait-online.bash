# SPDX-License-Identifier: Apache-2.0
# booted-systemd-test's checks of network-online.target's provider, pathmond-wait-online.service and its template
# pathmond-wait-online@.service (sourced after checks.bash and checks-discretionary.bash, whose helpers they use).
# The path is made unsatisfied by taking eth0's default route away (pathmond says noDefaultRoute) and satisfied again
# by giving it back, through NetworkManager: `nmcli device modify` changes the connection applied to eth0, not its
# profile (a route deleted behind NetworkManager's back it may add again while it settles; and an earlier check's
# in-memory copy of the profile makes `nmcli connection modify eth0` ambiguous on Debian 13).

wait_online=pathmond-wait-online.service
default_route() { # default_route add|del
    local gateway=192.0.2.1
    [ "$1" = add ] || gateway=
    inside nmcli device modify eth0 ipv4.gateway "$gateway" >/dev/null
}
path_is() { # path_is satisfied|unsatisfied
    local status
    inside pathctl check -q
    status=$?
    case $1 in satisfied) [ $status -eq 0 ] ;; *) [ $status -eq 1 ] ;; esac
}
# Leaves the unit inactive, with no drop-in, no failure and the route in place.
wait_online_reset() {
    inside rm -rf "/etc/systemd/system/$wait_online.d" /etc/systemd/system/pathmond-wait-online@.service.d
    inside systemctl daemon-reload
    inside systemctl stop "$wait_online" 'pathmond-wait-online@*.service' >/dev/null 2>&1
    inside systemctl reset-failed "$wait_online" 'pathmond-wait-online@*.service' >/dev/null 2>&1
    default_route add
    eventually 10 path_is satisfied
}
# The drop-in an administrator writes with `systemctl edit UNIT`.
wait_online_dropin() { # wait_online_dropin UNIT LINE...
    local unit=$1
    shift
    inside mkdir -p "/etc/systemd/system/$unit.d"
    printf '%s\n' '[Service]' "$@" | inside sh -c "cat >/etc/systemd/system/$unit.d/test.conf"
    inside systemctl daemon-reload
}

# Shipped, not enabled by the package; `systemctl enable` puts it in network-online.target.wants.
check_wait_online_enable() {
    local state exposure
    state=$(inside systemctl is-enabled "$wait_online" 2>&1)/$(prop "$wait_online" ActiveState)
    if [ "$state" = disabled/inactive ] && ! inside test -e "/etc/systemd/system/network-online.target.wants/$wait_online"
    then
        pass "$wait_online installed, neither enabled nor started by the package ($state)"
    else
        fail "$wait_online installed, neither enabled nor started by the package" "$state"
    fi
    inside systemctl enable "$wait_online" >/dev/null 2>&1
    if inside test -L "/etc/systemd/system/network-online.target.wants/$wait_online" &&
        prop network-online.target Wants | grep -qw "$wait_online" &&
        prop "$wait_online" Before | grep -qw network-online.target; then
        pass "systemctl enable $wait_online: network-online.target wants it and is ordered after it (Wants: $(
            prop network-online.target Wants))"
    else
        fail "systemctl enable $wait_online puts it in network-online.target.wants" \
            "$(inside ls -l /etc/systemd/system/network-online.target.wants/ 2>&1)" \
            "Wants: $(prop network-online.target Wants); Before: $(prop "$wait_online" Before)"
    fi
    exposure=$(inside systemd-analyze security "$wait_online" --no-pager 2>&1 |
        sed -n "s/.*Overall exposure level for $wait_online: \([0-9.]*\).*/\1/p")
    if [ -n "$exposure" ] && awk "BEGIN { exit !($exposure <= 2.0) }"; then
        pass "systemd-analyze security $wait_online: exposure $exposure (a client of the socket: no privilege)"
    else
        fail "systemd-analyze security $wait_online: exposure at most 2.0" "exposure: '${exposure:-not reported}'"
    fi
}

# `systemctl start` returns only once the path is satisfied, within a second or two of it.
check_wait_online_start() {
    wait_online_reset
    default_route del
    if ! eventually 10 path_is unsatisfied; then
        fail "the path turns unsatisfied without a default route" "$(inside pathctl status 2>&1 | head -n 3)" \
            "routes: $(ip -n "$ns" route | paste -sd';')"
        default_route add
        return
    fi
    local started returned route_added result=$work/wait-online-start
    rm -f "$result"
    started=$(now_ms)
    (
        inside systemctl start "$wait_online" >/dev/null 2>&1
        echo "$? $(now_ms)" >"$result"
    ) &
    local job=$!
    sleep 4
    local state
    state=$(prop "$wait_online" ActiveState)
    if [ ! -e "$result" ] && [ "$state" = activating ]; then
        pass "unsatisfied path: systemctl start $wait_online has not returned after 4 s ($state)"
    else
        fail "unsatisfied path: systemctl start $wait_online does not return" \
            "state $state; returned: $(cat "$result" 2>/dev/null)" "$(inside journalctl -u "$wait_online" -n 5 -o cat)"
    fi
    route_added=$(now_ms)
    default_route add
    wait "$job"
    local status
    read -r status returned <"$result"
    local took=$((returned - route_added))
    if [ "$status" = 0 ] && [ "$(prop "$wait_online" ActiveState)/$(prop "$wait_online" SubState)" = active/exited ] &&
        [ "$took" -le 2000 ]; then
        pass "systemctl start $wait_online returned 0 (active/exited) $took ms after the default route came back ($(
            elapsed "$started") ms in all)"
    else
        fail "systemctl start $wait_online returns 0, active (exited), within 2 s of the path's return" \
            "status $status after $took ms; $(prop "$wait_online" ActiveState)/$(prop "$wait_online" SubState)" \
            "$(inside journalctl -u "$wait_online" -n 5 -o cat)"
    fi
    # Satisfied already: it returns at once.
    inside systemctl stop "$wait_online"
    started=$(now_ms)
    if inside systemctl start "$wait_online" && state_is "$wait_online" active; then
        pass "satisfied path: systemctl start $wait_online returns at once ($(elapsed "$started") ms)"
    else
        fail "satisfied path: systemctl start $wait_online returns at once" "$(prop "$wait_online" Result)"
    fi
}

# The user story: a unit After= and Wants=network-online.target starts only once pathmond says the path is there.
check_wait_online_orders() {
    local unit=pathmond-test-online.service
    inside sh -c "cat >/etc/systemd/system/$unit" <<UNIT
[Unit]
Description=Needs the network (pathmond's booted test)
Wants=network-online.target
After=network-online.target

[Service]
Type=oneshot
RemainAfterExit=yes
ExecStart=/bin/true
UNIT
    wait_online_reset
    # As at boot: network-online.target not reached yet (a target can be stopped; nothing here requires it).
    inside systemctl stop network-online.target "$wait_online" >/dev/null 2>&1
    default_route del
    eventually 10 path_is unsatisfied
    inside systemctl start --no-block "$unit"
    sleep 4
    local states
    states="$unit $(prop $unit ActiveState), network-online.target $(prop network-online.target ActiveState)"
    states+=", $wait_online $(prop "$wait_online" ActiveState)"
    if state_is $unit inactive && state_is network-online.target inactive && state_is "$wait_online" activating; then
        pass "unsatisfied path: a unit After=network-online.target waits ($states)"
    else
        fail "unsatisfied path: a unit After=network-online.target waits" "$states" \
            "$(inside systemctl list-jobs --no-pager 2>&1)"
    fi
    local route_added took
    route_added=$(now_ms)
    default_route add
    if eventually 10 state_is $unit active; then
        took=$(elapsed "$route_added")
        local online started
        online=$(prop "$wait_online" ActiveEnterTimestampMonotonic)
        started=$(prop $unit ExecMainStartTimestampMonotonic)
        if [ "$started" -ge "$online" ] && state_is network-online.target active; then
            pass "the unit started $took ms after the default route came back, $(((started - online) / 1000)) ms after $wait_online finished"
        else
            fail "the unit starts after $wait_online finishes" "unit started at $started, wait-online done at $online"
        fi
    else
        fail "the unit After=network-online.target starts once the path is satisfied" \
            "$(prop $unit ActiveState); $(inside systemctl list-jobs --no-pager 2>&1)" \
            "$(inside journalctl -u "$wait_online" -n 5 -o cat)"
    fi
    inside systemctl stop $unit
    inside rm -f "/etc/systemd/system/$unit"
    inside systemctl daemon-reload
}

# At its timeout it fails, says why in the journal, and network-online.target is reached anyway; the options of the
# drop-in variables (--unmetered) and the template's interface reach pathctl.
check_wait_online_timeout() {
    wait_online_reset
    wait_online_dropin "$wait_online" Environment=PATHMOND_WAIT_ONLINE_TIMEOUT=2
    default_route del
    eventually 10 path_is unsatisfied
    local started output took said found=no
    started=$(now_ms)
    output=$(inside systemctl start "$wait_online" 2>&1)
    took=$(elapsed "$started")
    said=$(journal_line "$wait_online" 'timed out') && found=yes
    if [ "$(prop "$wait_online" Result)" = exit-code ] && [ "$(prop "$wait_online" ExecMainStatus)" = 1 ] &&
        state_is "$wait_online" failed && [ "$took" -ge 1900 ] && [ $found = yes ]; then
        pass "PATHMOND_WAIT_ONLINE_TIMEOUT=2 and no path: failed after $took ms (exit-code, status 1): $said"
    else
        fail "PATHMOND_WAIT_ONLINE_TIMEOUT=2 and no path: the unit fails with status 1 after 2 s" \
            "$took ms; $(prop "$wait_online" Result), status $(prop "$wait_online" ExecMainStatus); $output" \
            "$(inside journalctl -u "$wait_online" -n 5 -o cat)"
    fi
    # --unmetered through the options variable: an expensive path is not enough.
    wait_online_reset
    wait_online_dropin "$wait_online" Environment=PATHMOND_WAIT_ONLINE_TIMEOUT=2 \
        'Environment="PATHMOND_WAIT_ONLINE_OPTIONS=--unmetered --interface eth0"'
    eventually 10 mark_expensive
    inside systemctl start "$wait_online" >/dev/null 2>&1
    found=no
    said=$(journal_line "$wait_online" 'timed out.*expensive') && found=yes
    if [ "$(prop "$wait_online" ExecMainStatus)" = 2 ] && [ $found = yes ]; then
        pass "PATHMOND_WAIT_ONLINE_OPTIONS=--unmetered on an expensive path: status 2 at the timeout: $said"
    else
        fail "PATHMOND_WAIT_ONLINE_OPTIONS=--unmetered on an expensive path: status 2 at the timeout" \
            "status $(prop "$wait_online" ExecMainStatus): $said"
    fi
    eventually 10 mark_expensive --auto
    wait_online_reset
    # The template: the path through eth0 is there, through a missing interface it is not.
    wait_online_dropin pathmond-wait-online@.service Environment=PATHMOND_WAIT_ONLINE_TIMEOUT=2
    local eth0 missing
    inside systemctl start pathmond-wait-online@eth0.service >/dev/null 2>&1
    eth0=$(prop pathmond-wait-online@eth0.service ActiveState)/$(prop pathmond-wait-online@eth0.service SubState)
    inside systemctl start pathmond-wait-online@nosuch0.service >/dev/null 2>&1
    missing=$(prop pathmond-wait-online@nosuch0.service Result)/$(prop pathmond-wait-online@nosuch0.service ExecMainStatus)
    if [ "$eth0" = active/exited ] && [ "$missing" = exit-code/1 ]; then
        pass "pathmond-wait-online@eth0.service: $eth0; @nosuch0: failed at its timeout ($missing)"
    else
        fail "pathmond-wait-online@eth0.service active, @nosuch0 failed at its timeout" "eth0 $eth0; nosuch0 $missing" \
            "$(inside journalctl -u pathmond-wait-online@nosuch0.service -n 3 -o cat)"
    fi
    # Left enabled, an instance too: purge must take their links away (check_purge compares the root).
    inside systemctl enable pathmond-wait-online@eth0.service >/dev/null 2>&1
    wait_online_reset
}

# A real boot: with the units enabled and a unit WantedBy=multi-user.target that wants network-online.target, the
# boot runs the waits (no ordering cycle) and starts that unit only after them.
check_wait_online_boot() {
    local unit=pathmond-test-boot-online.service
    inside sh -c "cat >/etc/systemd/system/$unit" <<UNIT
[Unit]
Description=Needs the network at boot (pathmond's booted test)
Wants=network-online.target
After=network-online.target

[Service]
Type=oneshot
RemainAfterExit=yes
ExecStart=/bin/true

[Install]
WantedBy=multi-user.target
UNIT
    inside systemctl enable $unit pathmond-wait-online@eth0.service >/dev/null 2>&1
    container_reboot
    local online instance started cycles states booted
    # Monotonic times are the host kernel's: measured from the container's systemd start.
    booted=$(inside systemctl show -p UserspaceTimestampMonotonic --value)
    online=$(prop "$wait_online" ActiveEnterTimestampMonotonic)
    instance=$(prop pathmond-wait-online@eth0.service ActiveEnterTimestampMonotonic)
    started=$(prop $unit ExecMainStartTimestampMonotonic)
    cycles=$(inside journalctl -b -o cat | grep -i -m3 'ordering cycle')
    states="$(prop "$wait_online" SubState) $(prop pathmond-wait-online@eth0.service SubState)"
    states+=" $(prop network-online.target ActiveState) $(prop $unit SubState)"
    if [ "$states" = "exited exited active exited" ] && [ "$online" -gt 0 ] && [ "$instance" -gt 0 ] &&
        [ "$started" -ge "$online" ] && [ "$started" -ge "$instance" ] && [ -z "$cycles" ]; then
        pass "boot: $wait_online and @eth0 done $(((online - booted) / 1000)) and $(((instance - booted) / 1000)) ms after systemd started, the unit After=network-online.target after them ($(((started - booted) / 1000)) ms); no ordering cycle"
    else
        fail "boot: the wait-online units run, then the unit After=network-online.target starts; no cycle" \
            "states (wait-online, @eth0, network-online.target, unit): $states; at $online $instance $started" \
            "$cycles" "$(inside journalctl -b -u "$wait_online" -o cat | tail -n 3)"
    fi
    inside systemctl disable $unit >/dev/null 2>&1
    inside rm -f "/etc/systemd/system/$unit"
    inside systemctl daemon-reload
}

# An upgrade keeps what the administrator enabled and does not run the wait again (Wants=pathmond.socket, not
# Requires=: the socket's restart does not propagate).
check_wait_online_upgrade() {
    wait_online_reset
    inside systemctl start "$wait_online"
    local before after enabled output
    before=$(prop "$wait_online" InvocationID)
    output=$(inside apt-get install -y -q --reinstall "/opt/$(basename "$deb")" 2>&1)
    after=$(prop "$wait_online" InvocationID)
    enabled=$(inside systemctl is-enabled "$wait_online" pathmond-wait-online@eth0.service | paste -sd' ')
    if [ -n "$before" ] && [ "$before" = "$after" ] && state_is "$wait_online" active &&
        [ "$enabled" = "enabled enabled" ]; then
        pass "upgrade (reinstall): $wait_online and @eth0 stay enabled; the wait is not run again (same invocation)"
    else
        fail "upgrade (reinstall) keeps the wait-online units enabled and does not run the wait again" \
            "invocation $before -> $after; $(prop "$wait_online" ActiveState); enabled: $enabled" \
            "$(tail -n 5 <<<"$output")"
    fi
}

run_wait_online_checks() {
    check_wait_online_enable
    check_wait_online_start
    check_wait_online_orders
    check_wait_online_timeout
    check_wait_online_boot
    check_wait_online_upgrade
}
