# SPDX-License-Identifier: Apache-2.0
# booted-systemd-test's check of a configuration refused at start (sourced; uses checks.bash's helpers).

# /etc/pathmond.conf refused while pathmond is stopped: six clients through the socket each get the refusal (not a
# hang, not a start per client), the socket stays active (no service-start-limit-hit), and after the fix one
# `systemctl restart pathmond` serves at once. Leaves pathmond active on an empty configuration.
check_refused_start() {
    local answers="" client output status socket_state socket_result started
    inside systemctl stop pathmond.service >/dev/null 2>&1
    printf '[history]\nentries = ten\n' | write_config
    for client in 1 2 3 4 5 6; do
        output=$(inside timeout 20 pathctl check --unmetered 2>&1)
        answers+="$? "
    done
    socket_state=$(prop pathmond.socket ActiveState)
    socket_result=$(prop pathmond.socket Result)
    if [ "$answers" = "69 69 69 69 69 69 " ] && grep -q '/etc/pathmond.conf:2: ' <<<"$output" &&
        [ "$socket_state" = active ] && [ "$socket_result" = success ]; then
        pass "a refused /etc/pathmond.conf: six clients told why (exit 69: $(head -n1 <<<"$output")); socket active"
    else
        fail "a refused /etc/pathmond.conf: six clients told why, the socket stays active" \
            "exits: $answers; socket $socket_state/$socket_result; last client: $output" \
            "$(inside systemctl status pathmond.service pathmond.socket --no-pager -n 5 2>&1 | tail -n 20)"
    fi
    : | write_config
    started=$(now_ms)
    output=$(inside systemctl restart pathmond 2>&1)
    status=$?
    if [ $status -eq 0 ] && output=$(inside timeout 20 pathctl status 2>&1) && grep -q eth0 <<<"$output" &&
        active && [ "$(prop pathmond.socket ActiveState)" = active ]; then
        pass "after the fix one systemctl restart serves at once ($(elapsed "$started") ms), the socket active"
    else
        fail "after the fix one systemctl restart serves at once" "restart: $status; $output" \
            "$(inside systemctl status pathmond.service pathmond.socket --no-pager -n 5 2>&1 | tail -n 20)"
    fi
}
