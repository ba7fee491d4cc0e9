# SPDX-License-Identifier: Apache-2.0
# The checks of booted-systemd-test (sourced): each drives the booted container through `inside` and reports one
# PASS or FAIL line. They run in order on one container; each leaves pathmond active for the next.

prop() { inside systemctl show -p "$2" --value "$1"; }                # prop UNIT PROPERTY
main_pid() { prop pathmond.service MainPID; }
# Signals the daemon's main process; never "kill 0", which would hit this script's own process group.
signal() { # signal SIGNAL PID
    [ -n "$2" ] && [ "$2" -gt 1 ] 2>/dev/null && inside kill "-$1" "$2"
}
active() { [ "$(prop pathmond.service ActiveState)" = active ]; }
# eth0's kind as `pathctl status --json` reports it (the Varlink field names).
eth0_type() {
    inside pathctl status --json 2>/dev/null | python3 -c '
import json, sys
document = json.load(sys.stdin)
print(next((i.get("type") for i in document.get("interfaces", []) if i.get("name") == "eth0"), ""))' 2>/dev/null
}
eth0_type_is() { [ "$(eth0_type)" = "$1" ]; }
write_config() { inside sh -c 'cat >/etc/pathmond.conf'; }
# What the root holds, for comparing before install with after purge: every path with its type, mode and
# owner, the contents of /etc, and the installed packages. Logs, caches and apt's and dpkg's own books (and apt's
# backup of them in /var/backups) are left out, and so are NetworkManager's state, which the test itself changes,
# and the PrivateTmp= directories of services started on demand (systemd-hostnamed, asked by NetworkManager).
# The user databases are compared without the pathmond user, which stays after purge as Debian keeps system users
# (and without their "-" backups, which adding it makes).
snapshot() {
    inside sh -c '
        find / -xdev \( -path /var/log -o -path /var/cache -o -path /var/lib/apt -o -path /var/lib/dpkg \
            -o -path /var/backups -o -path /var/lib/systemd/timers -o -path /var/lib/systemd/random-seed \
            -o -path /var/lib/NetworkManager -o -path /etc/NetworkManager -o -path "/var/tmp/systemd-private-*" \) \
            -prune \
            -o -printf "%p %y %m %u %g\n" | grep -v -E "^/etc/(passwd|group|shadow|gshadow)- " | sort
        find /etc -xdev \( -path /etc/NetworkManager \) -prune -o -type f ! -name ld.so.cache \
            ! -name passwd ! -name group ! -name shadow ! -name gshadow ! -name "*-" -exec sha256sum {} + | sort -k2
        for database in passwd group shadow gshadow; do
            grep -v "^pathmond:" /etc/$database | sed "s|^|$database: |"
        done
        dpkg-query -W -f "\${Package} \${Version} \${db:Status-Abbrev}\n"'
}

check_install() {
    # node_exporter's textfile directory, as prometheus-node-exporter makes it (check_metrics gives it to pathmond).
    inside mkdir -p "$metrics_dir"
    snapshot >"$work/before"
    seed_dynamic_user_state
    local start output
    start=$(now_ms)
    # shellcheck disable=SC2086 # one path a line, none with a space
    if output=$(inside apt-get install -y -q $installed_debs 2>&1); then
        pass "apt-get installs the package offline ($(elapsed "$start") ms), dependencies all from Debian"
    else
        fail "apt-get installs the package offline" "$(tail -n 15 <<<"$output")"
    fi
    local enabled state status
    enabled=$(inside systemctl is-enabled pathmond.service pathmond.socket | paste -sd' ')
    state=$(inside systemctl is-active pathmond.service pathmond.socket | paste -sd' ')
    status=$(prop pathmond.service StatusText)
    if [ "$enabled" = "enabled enabled" ] && [ "$state" = "active active" ] &&
        [ "$(prop pathmond.service Type)" = notify ]; then
        pass "service and socket enabled and active after install (Type=notify: READY=1 reached; status: '$status')"
    else
        fail "service and socket enabled and active after install" "enabled: $enabled; active: $state" \
            "$(inside journalctl -u pathmond -n 15 --no-pager -o short-monotonic)"
    fi
    if [ "$(prop pathmond.service LoadState)" = loaded ] && [ "$(prop pathmond.service NRestarts)" = 0 ] &&
        active && ! inside journalctl -u pathmond -o cat | grep -q 'status=31/SYS'; then
        pass "no seccomp kill (status=31/SYS) and no restart since start"
    else
        fail "no seccomp kill (status=31/SYS) and no restart since start" \
            "$(inside journalctl -u pathmond -o cat | grep -m3 -E 'SYS|Failed')"
    fi
    check_migrated
}

check_files() {
    local libraries broken
    libraries=$(inside ldd /usr/sbin/pathmond /usr/bin/pathctl /usr/libexec/pathmond/pathmond-dispatcher 2>&1)
    broken=$(grep -E 'not found|libswift|libFoundation|libdispatch|No such file' <<<"$libraries")
    [ -n "$libraries" ] && [ -z "$broken" ] &&
        pass "binaries load with Debian's libraries only (no Swift runtime in the root)" ||
        fail "binaries load with Debian's libraries only" "${broken:-ldd printed nothing}"
    local pages=0 page
    for page in "1 pathctl" "8 pathmond" "5 pathmond.conf"; do
        inside sh -c "man $page 2>&1" | grep -q "${page#* }" && pages=$((pages + 1))
    done
    [ $pages -eq 3 ] && pass "man pathctl, man 8 pathmond and man 5 pathmond.conf render" ||
        fail "man pathctl, man 8 pathmond and man 5 pathmond.conf render" "$(inside sh -c 'man pathctl 2>&1 | head -5')"
    local manuals
    manuals=$(inside sh -c 'MANWIDTH=200 man pathctl 2>&1; MANWIDTH=200 man 8 pathmond 2>&1')
    if grep -q '^ *77 ' <<<"$manuals" && grep -q '^ *69 ' <<<"$manuals" && ! grep -q 'subcommand' <<<"$(
        inside sh -c 'man 8 pathmond 2>&1'
    )" && ! grep -q 'docs/' <<<"$manuals"; then
        pass "the manuals document every exit status and point at no unshipped docs"
    else
        fail "the manuals document every exit status and point at no unshipped docs" "$(grep -n 'subcommand\|docs/' <<<"$manuals" | head -3)"
    fi
    local completions
    completions=$(inside bash -c '. /usr/share/bash-completion/completions/pathctl && complete -p pathctl' 2>&1)
    if [[ $completions == complete* ]] && inside test -s /usr/share/zsh/vendor-completions/_pathctl &&
        inside test -s /usr/share/fish/vendor_completions.d/pathctl.fish; then
        pass "bash completion loads; zsh and fish completions installed"
    else
        fail "bash completion loads; zsh and fish completions installed" "$completions"
    fi
    # The licences (lintian checks the DEP-5 form when scripts/package builds the package).
    local copyright=/usr/share/doc/pathmond/copyright licences
    licences=$(inside sed -n 's/^License: //p' "$copyright" | sort -u | paste -sd';')
    if [[ ";$licences;" == *";Apache-2.0;"* && ";$licences;" == *";LGPL-2.1+;"* ]] &&
        ! inside grep -q UNSPECIFIED "$copyright"; then
        pass "$copyright names the licences: $licences"
    else
        fail "$copyright names Apache-2.0 and LGPL-2.1+ (the GIO module)" "licences: $licences"
    fi
}

check_status() {
    local output
    if output=$(inside timeout 10 pathctl status 2>&1) && grep -q eth0 <<<"$output"; then
        pass "pathctl status works with no options"
    else
        fail "pathctl status works with no options" "$output"
    fi
}

check_reload() {
    local before output
    before=$(main_pid)
    printf '[interface eth0]\ntype = cellular\n' | write_config
    output=$(inside systemctl reload pathmond 2>&1)
    if eventually 5 eth0_type_is cellular && [ "$(main_pid)" = "$before" ] && active; then
        pass "systemctl reload keeps MainPID $before and applies /etc/pathmond.conf (eth0 cellular)"
    else
        fail "systemctl reload keeps the MainPID and applies /etc/pathmond.conf" \
            "MainPID $before -> $(main_pid); eth0: '$(eth0_type)'; $output" \
            "$(inside journalctl -u pathmond -n 8 --no-pager -o cat)"
    fi
    before=$(main_pid)
    printf '[interface eth0]\ntype = wifi\n' | write_config
    signal HUP "$before"
    if eventually 5 eth0_type_is wifi && [ "$(main_pid)" = "$before" ] && active; then
        pass "kill -HUP keeps MainPID $before and applies /etc/pathmond.conf (eth0 wifi)"
    else
        fail "kill -HUP keeps the MainPID and applies /etc/pathmond.conf" \
            "MainPID $before -> $(main_pid), $(prop pathmond.service ActiveState); eth0: '$(eth0_type)'" \
            "$(inside journalctl -u pathmond -n 8 --no-pager -o cat)"
    fi
}

# A broken line: `systemctl reload` fails and says where (ExecReload= checks the file first); a SIGHUP that reaches
# the daemon anyway logs an error at priority err. Either way the daemon keeps running on the previous configuration.
check_journal() {
    local before errors output status
    before=$(main_pid)
    printf '[interface eth0]\nthis line is broken\n' | write_config
    output=$(inside systemctl reload pathmond 2>&1)
    status=$?
    local where found=no
    where=$(journal_line pathmond '/etc/pathmond.conf:2:') && found=yes
    if [ $status -ne 0 ] && [ $found = yes ] && [ "$(main_pid)" = "$before" ] && active && eth0_type_is wifi; then
        pass "systemctl reload of a refused file fails ($status) and says where: $where"
    else
        fail "systemctl reload of a refused file fails and says where (pathmond --check-config)" \
            "status $status; MainPID $before -> $(main_pid); eth0: '$(eth0_type)'; $output" \
            "$(inside journalctl -u pathmond -n 5 --no-pager -o cat)"
    fi
    signal HUP "$before"
    errors() { inside journalctl -p err -u pathmond -o cat _PID="$before" | grep -v '^$'; }
    if eventually 5 errors >/dev/null; then
        pass "kill -HUP: journalctl -p err -u pathmond shows pathmond's error: $(errors | tail -n1)"
    else
        fail "kill -HUP: journalctl -p err -u pathmond shows pathmond's error after a broken line" \
            "$(inside journalctl -u pathmond -n 5 --no-pager -o json | grep -o '"PRIORITY":"[0-9]"' | sort | uniq -c)"
    fi
    [ "$(main_pid)" = "$before" ] && active && eth0_type_is wifi &&
        pass "a broken configuration on reload keeps pathmond running on the previous one" ||
        fail "a broken configuration on reload keeps pathmond running on the previous one" \
            "MainPID $before -> $(main_pid), $(prop pathmond.service ActiveState); eth0: '$(eth0_type)'"
    local lines stamped
    lines=$(inside journalctl -u pathmond -o cat _COMM=pathmond)
    stamped=$(grep -E '^(<[0-9]>)?[0-9]{4}-[0-9]{2}-[0-9]{2}[T ][0-9]{2}:[0-9]{2}' <<<"$lines")
    if [ -n "$lines" ] && [ -z "$stamped" ]; then
        pass "pathmond's journal lines carry no second timestamp ($(wc -l <<<"$lines") lines)"
    else
        fail "pathmond's journal lines carry no second timestamp" "$(head -n 3 <<<"${stamped:-no lines}")"
    fi
    : | write_config
    inside systemctl reload pathmond >/dev/null 2>&1
}

check_crash() {
    local before restarts
    before=$(main_pid)
    restarts=$(prop pathmond.service NRestarts)
    signal SEGV "$before"
    restarted() { local pid; pid=$(main_pid); [ "$pid" != "$before" ] && [ "$pid" != 0 ] && active; }
    if eventually 15 restarted; then
        restarts="NRestarts $restarts -> $(prop pathmond.service NRestarts)"
        pass "kill -SEGV: restarted by systemd (MainPID $before -> $(main_pid), $restarts)"
    else
        fail "kill -SEGV: restarted by systemd" "$(inside systemctl status pathmond --no-pager -n 5 2>&1 | tail -n 8)"
    fi
}

check_stop_and_socket() {
    local output
    output=$(inside systemctl stop pathmond.service 2>&1)
    local state result
    state=$(prop pathmond.service ActiveState)
    result=$(prop pathmond.service Result)
    if [ "$state" = inactive ] && [ "$result" = success ] && [ "$(prop pathmond.socket ActiveState)" = active ] &&
        inside test -S /run/pathmond/io.pathmond; then
        pass "systemctl stop is clean (inactive, result success); the socket unit keeps listening on its file"
    else
        fail "systemctl stop is clean" "$state/$result; socket $(prop pathmond.socket ActiveState); $output" \
            "$(inside journalctl -u pathmond -n 5 --no-pager -o cat)"
    fi
    check_metrics_after_stop "systemctl stop"
    local start
    start=$(now_ms)
    if output=$(inside timeout 20 pathctl status 2>&1) && grep -q eth0 <<<"$output" && active; then
        pass "socket activation: pathctl status on a stopped pathmond starts it and answers ($(elapsed "$start") ms)"
    else
        fail "socket activation: pathctl status on a stopped pathmond starts it and answers" "$output" \
            "$(inside journalctl -u pathmond -n 5 --no-pager -o cat)"
    fi
}

check_limits() {
    local exposure soft
    exposure=$(inside systemd-analyze security pathmond.service --no-pager 2>&1 |
        sed -n 's/.*Overall exposure level for pathmond.service: \([0-9.]*\).*/\1/p')
    if [ -n "$exposure" ] && awk "BEGIN { exit !($exposure <= 2.0) }"; then
        pass "systemd-analyze security pathmond: exposure $exposure (at most 2.0)"
    else
        fail "systemd-analyze security pathmond: exposure at most 2.0" "exposure: '${exposure:-not reported}'"
    fi
    soft=$(inside cat "/proc/$(main_pid)/limits" | awk '/Max open files/ { print $4 }')
    if [ -n "$soft" ] && [ "$soft" -ge 16384 ]; then
        pass "open-file limit of the running daemon: $soft (thousands of clients)"
    else
        fail "open-file limit of the running daemon: at least 16384" "soft limit: '$soft'"
    fi
}

# apt's daily upgrade under the drop-in: skipped on an expensive path, run on an unmetered one.
check_apt_gate() {
    local unit=apt-daily-upgrade.service output skipped
    if prop "$unit" DropInPaths | grep -q pathmond-unmetered.conf; then
        pass "$unit carries pathmond's drop-in: $(prop "$unit" ExecCondition | grep -o 'argv\[\]=[^;]*')"
    else
        fail "$unit carries pathmond's ExecCondition drop-in" "$(prop "$unit" DropInPaths)"
    fi
    # The wired network is known by its gateway's MAC (check_network_identified waited for it); no datagram of the
    # test's own primes the neighbour table.
    set_expensive() { inside pathctl set-expensive eth0 "$@" >/dev/null 2>&1; }
    skipped() { inside journalctl -u "$unit" -o cat | grep -c "Skipped due to 'exec-condition'"; }
    local marked=yes
    if ! eventually 10 set_expensive; then
        marked=no
        fail "pathctl set-expensive eth0" "$(inside pathctl set-expensive eth0 2>&1)"
    fi
    skipped=$(skipped)
    output=$(inside timeout 120 systemctl start "$unit" 2>&1)
    # A skip only counts when the path was marked and pathctl understood the check (64 is its usage error).
    if [ $marked = yes ] && [ "$(skipped)" -gt "$skipped" ] && [ "$(prop "$unit" Result)" = exec-condition ] &&
        ! prop "$unit" ExecCondition | grep -q 'status=64 '; then
        pass "expensive path: $unit skipped ('Skipped due to exec-condition')"
    else
        fail "expensive path: $unit skipped" "result $(prop "$unit" Result); $output" \
            "$(inside journalctl -u "$unit" -n 5 --no-pager -o cat)"
    fi
    set_expensive --off
    skipped=$(skipped)
    # ExecStart may fail offline; what matters is that the condition let it run.
    output=$(inside timeout 300 systemctl start "$unit" 2>&1)
    local condition
    condition=$(prop "$unit" ExecCondition)
    if [ "$(skipped)" -eq "$skipped" ] && [ "$(prop "$unit" Result)" != exec-condition ] &&
        grep -qE 'status=0( |/|$)' <<<"$condition"; then
        pass "unmetered path: $unit runs (condition passed; result $(prop "$unit" Result))"
    else
        fail "unmetered path: $unit runs" "result $(prop "$unit" Result); condition: $condition" \
            "$(inside journalctl -u "$unit" -n 5 --no-pager -o cat)"
    fi
}

# dpkg's upgrade path (prerm upgrade, postinst configure OLD-VERSION) restarts the service; removal stops it and
# keeps the configuration and the user's networks for a later reinstall.
check_upgrade_and_remove() {
    local before output after
    # A configuration the new pathmond refuses: the upgrade keeps the running daemon and says so.
    inside cp /etc/pathmond.conf /root/pathmond.conf.good
    printf '[interface eth0]\nthis line is broken\n' | write_config
    before=$(main_pid)
    output=$(inside apt-get install -y -q --reinstall "/opt/$(basename "$deb")" 2>&1)
    after=$(main_pid)
    if [ "$after" = "$before" ] && active && grep -q 'pathmond.conf is refused' <<<"$output" &&
        grep -q '/etc/pathmond.conf:2:' <<<"$output"; then
        pass "upgrade with a refused /etc/pathmond.conf keeps the running pathmond (MainPID $before) and warns: $(
            grep -m1 'refused' <<<"$output")"
    else
        fail "upgrade with a refused /etc/pathmond.conf keeps the running pathmond and warns" \
            "MainPID $before -> $after, $(prop pathmond.service ActiveState)" "$(tail -n 6 <<<"$output")"
    fi
    inside cp /root/pathmond.conf.good /etc/pathmond.conf
    inside rm /root/pathmond.conf.good
    before=$(main_pid)
    output=$(inside apt-get install -y -q --reinstall "/opt/$(basename "$deb")" 2>&1)
    after=$(main_pid)
    if [ "$after" != "$before" ] && [ "$after" != 0 ] && active; then
        pass "upgrade (reinstall) restarts pathmond (MainPID $before -> $after)"
    else
        fail "upgrade (reinstall) restarts pathmond" "MainPID $before -> $after; $(tail -n 5 <<<"$output")"
    fi
    output=$(inside apt-get remove -y -q pathmond 2>&1)
    local state
    state=$(inside systemctl is-active pathmond.service pathmond.socket | paste -sd' ')
    if [ "$state" = "inactive inactive" ] && inside test -f /etc/pathmond.conf && inside test -d /var/lib/pathmond/
    then
        pass "apt-get remove stops service and socket, keeps /etc/pathmond.conf and /var/lib/pathmond"
    else
        fail "apt-get remove stops service and socket, keeps /etc/pathmond.conf and /var/lib/pathmond" \
            "active: $state; $(tail -n 5 <<<"$output")" "$(inside ls -la /var/lib/pathmond /etc/pathmond.conf 2>&1)"
    fi
    local warnings
    warnings=$(grep -i -E 'warning|not empty' <<<"$output")
    if [ -z "$warnings" ] && ! inside test -e /run/pathmond; then
        pass "apt-get remove prints no warning (no 'directory ... not empty') and leaves no /run/pathmond"
    else
        fail "apt-get remove prints no warning and leaves no /run/pathmond" "$warnings" \
            "$(inside ls -la /run/pathmond 2>&1)"
    fi
    check_metrics_after_stop "apt-get remove"
}

check_purge() {
    local output
    # The test gave the textfile directory to pathmond (check_metrics): it takes it back, as the administrator would.
    inside sh -c "chgrp root $metrics_dir && chmod 0755 $metrics_dir"
    if ! output=$(inside apt-get purge -y -q "${names[@]}" 2>&1); then
        fail "apt-get purge ${names[*]}" "$(tail -n 10 <<<"$output")"
        return
    fi
    snapshot >"$work/after"
    local difference
    difference=$(diff "$work/before" "$work/after")
    if [ -z "$difference" ] && ! inside test -e /var/lib/pathmond && ! inside test -e "$metrics_file"; then
        pass "apt-get purge leaves the root as it was (files, /etc, packages; state, pathmond.prom gone; user kept)"
    else
        fail "apt-get purge leaves the root as it was" "$(head -n 20 <<<"$difference")"
    fi
    local running
    running=$(inside sh -c 'pgrep -a -x pathmond; ls -d /run/pathmond 2>/dev/null')
    [ -z "$running" ] && pass "after purge no pathmond process runs and no /run/pathmond is left" ||
        fail "after purge no pathmond process runs and no /run/pathmond is left" "$running"
}

run_checks() {
    local start check
    start=$(now_ms)
    # PATHMOND_TEST_ONLY="check_a check_b": install, wait for the network, then only those (for working on a few).
    if [ -n "${PATHMOND_TEST_ONLY:-}" ]; then
        check_install
        check_network_identified 20
        for check in $PATHMOND_TEST_ONLY; do "$check"; done
        echo "# [$boot] checks: $(elapsed "$start") ms"
        return
    fi
    check_install
    check_user_and_bus
    check_files
    check_status
    check_libpathmond
    check_network_identified 20
    check_boot_id
    check_metered
    run_journal_checks
    check_nm_write_through
    check_qt_metered
    check_portal
    check_connectivity
    check_reload
    check_journal
    check_metrics
    check_crash
    check_stop_and_socket
    check_refused_start
    check_limits
    check_apt_gate
    check_dispatcher
    check_targets
    check_deferred_runs
    check_deferred_order
    check_deferral_survives
    check_max_deferral
    check_deferral_access
    check_user_deferral
    check_shipped_dropin
    run_wait_online_checks
    check_upgrade_and_remove
    check_purge
    echo "# [$boot] checks: $(elapsed "$start") ms"
}
