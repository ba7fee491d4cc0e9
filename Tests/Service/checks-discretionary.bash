# SPDX-License-Identifier: Apache-2.0
# The checks of booted-systemd-test for the system policy (issue 23): pathmond-dispatcher.service, the root helper
# that starts and stops pathmond-online.target and pathmond-unmetered.target as the path changes, after the settle
# and grace times of [discretionary] (sourced after checks.bash, whose helpers they use). The path is made expensive
# and cheap with `pathctl set-expensive eth0 [--off]`, as check_apt_gate does.

# A reboot: a clean poweroff of the container, then a boot of the same root in the same network (run_boot's
# options). systemd-nspawn -b exits on a reboot instead of booting again, so the test boots it again itself.
container_reboot() {
    container_halt
    container_boot "$root" "$ns" "$work/console-$boot-reboot.log" "${options[@]}" ||
        fail "the container boots again" "$(tail -n 20 "$work/console-$boot-reboot.log")"
}

mark_expensive() { inside pathctl set-expensive eth0 "$@" >/dev/null 2>&1; }
state_is() { [ "$(prop "$1" ActiveState)" = "$2" ]; } # state_is UNIT STATE
prop_is() { [ "$(prop "$1" "$2")" = "$3" ]; }           # prop_is UNIT PROPERTY VALUE
dispatcher_pid() { prop pathmond-dispatcher.service MainPID; }
timing_changed() { inside journalctl -u pathmond-dispatcher -o cat | grep -m1 'system policy timing changed'; }
# Waits until UNIT reaches STATE, at most SECONDS; prints the milliseconds it took.
wait_state() { # wait_state SECONDS UNIT STATE
    local start
    start=$(now_ms)
    eventually "$1" state_is "$2" "$3" || return 1
    elapsed "$start"
}

check_dispatcher() {
    local state exposure
    state=$(inside systemctl is-enabled pathmond-dispatcher.service)/$(prop pathmond-dispatcher.service ActiveState)
    if [ "$state" = enabled/active ] && [ "$(prop pathmond-dispatcher.service User)" = "" ]; then
        pass "pathmond-dispatcher.service enabled and active (root; pathmond.service stays User=$(
            prop pathmond.service User))"
    else
        fail "pathmond-dispatcher.service enabled and active" "$state" \
            "$(inside journalctl -u pathmond-dispatcher -n 10 --no-pager -o cat)"
    fi
    # Its own program: the daemon's binary no longer holds the helper (nor the client library it follows with).
    local program
    program=$(inside readlink "/proc/$(dispatcher_pid)/exe")
    [ "$program" = /usr/libexec/pathmond/pathmond-dispatcher ] &&
        pass "pathmond-dispatcher.service runs its own program, $program" ||
        fail "pathmond-dispatcher.service runs /usr/libexec/pathmond/pathmond-dispatcher" "${program:-no MainPID}"
    exposure=$(inside systemd-analyze security pathmond-dispatcher.service --no-pager 2>&1 |
        sed -n 's/.*Overall exposure level for pathmond-dispatcher.service: \([0-9.]*\).*/\1/p')
    local rss
    rss=$(inside awk '/^VmRSS/ { print $2 " " $3 }' "/proc/$(dispatcher_pid)/status")
    if [ -n "$exposure" ] && awk "BEGIN { exit !($exposure <= 2.5) }"; then
        pass "systemd-analyze security pathmond-dispatcher: exposure $exposure (a root unit that manages units); RSS $rss"
    else
        fail "systemd-analyze security pathmond-dispatcher: exposure at most 2.5" "exposure: '${exposure:-not reported}'"
    fi
}

# The targets follow the damped path; a unit WantedBy= and PartOf= pathmond-unmetered.target starts and stops with it.
check_targets() {
    local took before
    # Short times for the test; the shipped defaults are 3 s and 30 s. pathmond's reload propagates to the
    # dispatcher (ReloadPropagatedFrom=): one file, one reload.
    before=$(dispatcher_pid)
    discretionary_config no
    if eventually 5 timing_changed >/dev/null; then
        [ "$(dispatcher_pid)" = "$before" ] &&
            pass "systemctl reload pathmond reaches the dispatcher, which applies [discretionary] in MainPID $before: $(timing_changed)" ||
            fail "systemctl reload pathmond-dispatcher keeps its MainPID" "$before -> $(dispatcher_pid)"
    else
        fail "systemctl reload pathmond applies [discretionary] in the dispatcher" \
            "$(inside journalctl -u pathmond-dispatcher -n 10 --no-pager -o cat)"
    fi
    mark_expensive --off
    if eventually 15 state_is pathmond-unmetered.target active && state_is pathmond-online.target active; then
        pass "cheap path: pathmond-online.target and pathmond-unmetered.target active"
    else
        fail "cheap path: pathmond-online.target and pathmond-unmetered.target active" \
            "online $(prop pathmond-online.target ActiveState), unmetered $(prop pathmond-unmetered.target ActiveState)" \
            "$(inside journalctl -u pathmond-dispatcher -n 10 --no-pager -o cat)"
    fi
    # A unit as docs/integration.md shows it, enabled while the target is active (so not started by enabling).
    inside sh -c 'cat >/etc/systemd/system/pathmond-test-cheap.service' <<'UNIT'
[Unit]
Description=Runs only on a cheap path (pathmond's booted test)
PartOf=pathmond-unmetered.target
After=pathmond-unmetered.target

[Service]
ExecStart=/bin/sleep infinity

[Install]
WantedBy=pathmond-unmetered.target
UNIT
    inside systemctl daemon-reload
    inside systemctl enable pathmond-test-cheap.service >/dev/null 2>&1
    mark_expensive
    # Clients see the change at once; only the system policy waits for the grace time.
    if inside pathctl check --unmetered -q; [ $? -eq 2 ] && state_is pathmond-unmetered.target active; then
        pass "expensive path: pathctl check says so at once (2) while pathmond-unmetered.target waits out the grace"
    else
        fail "expensive path: pathctl check says so at once while the target waits" \
            "target $(prop pathmond-unmetered.target ActiveState)"
    fi
    if took=$(wait_state 20 pathmond-unmetered.target inactive) && state_is pathmond-online.target active; then
        [ "$took" -ge 6000 ] && pass "expensive path: pathmond-unmetered.target stopped after the grace ($took ms; grace 8 s), online stays" ||
            fail "expensive path: the target stops only after the grace (8 s)" "stopped after $took ms"
    else
        fail "expensive path: pathmond-unmetered.target stopped, pathmond-online.target stays" \
            "unmetered $(prop pathmond-unmetered.target ActiveState), online $(prop pathmond-online.target ActiveState)"
    fi
    mark_expensive --off
    if took=$(wait_state 15 pathmond-test-cheap.service active); then
        pass "cheap again: the unit WantedBy=pathmond-unmetered.target starts $took ms after the path turned cheap (settle 1 s)"
    else
        fail "cheap again: the unit WantedBy=pathmond-unmetered.target starts" \
            "$(prop pathmond-test-cheap.service ActiveState)" "$(inside journalctl -u pathmond-dispatcher -n 10 --no-pager -o cat)"
    fi
    # 20 flips, all within the grace time: the unit keeps running (same process).
    local pid flips=0 start
    sleep 1.5
    pid=$(prop pathmond-test-cheap.service MainPID)
    start=$(now_ms)
    for _ in $(seq 20); do
        mark_expensive && mark_expensive --off && flips=$((flips + 1))
    done
    local flipped
    flipped=$(elapsed "$start")
    sleep 10
    if [ "$flips" = 20 ] && [ "$flipped" -lt 8000 ] && state_is pathmond-test-cheap.service active &&
        [ "$(prop pathmond-test-cheap.service MainPID)" = "$pid" ]; then
        pass "20 expensive/cheap flips in $flipped ms (within the 8 s grace): the unit keeps running (MainPID $pid)"
    else
        fail "20 expensive/cheap flips within the grace do not stop the unit" \
            "flips $flips in $flipped ms; unit $(prop pathmond-test-cheap.service ActiveState), MainPID $pid -> $(
                prop pathmond-test-cheap.service MainPID)"
    fi
    # Slower flips: each expensive stretch (1.5 s) outlasts the settle time (1 s) but not the grace (8 s), so only a
    # grace longer than the settle keeps the unit running.
    start=$(now_ms)
    flips=0
    for _ in $(seq 20); do
        mark_expensive && sleep 1.5 && mark_expensive --off && sleep 0.2 && flips=$((flips + 1))
    done
    flipped=$(elapsed "$start")
    sleep 2
    if [ "$flips" = 20 ] && state_is pathmond-test-cheap.service active &&
        [ "$(prop pathmond-test-cheap.service MainPID)" = "$pid" ] && state_is pathmond-unmetered.target active; then
        pass "20 flips each expensive for 1.5 s (longer than the settle, shorter than the grace; $flipped ms): the unit keeps running"
    else
        fail "20 flips each expensive for 1.5 s do not stop the unit" \
            "flips $flips in $flipped ms; unit $(prop pathmond-test-cheap.service ActiveState), MainPID $pid -> $(
                prop pathmond-test-cheap.service MainPID)" "$(inside journalctl -u pathmond-dispatcher -n 5 --no-pager -o cat)"
    fi
    mark_expensive
    if took=$(wait_state 20 pathmond-test-cheap.service inactive); then
        pass "expensive for longer than the grace: the unit PartOf=pathmond-unmetered.target is stopped ($took ms)"
    else
        fail "expensive for longer than the grace: the unit PartOf=pathmond-unmetered.target is stopped" \
            "$(prop pathmond-test-cheap.service ActiveState)"
    fi
    mark_expensive --off
    inside systemctl disable --now pathmond-test-cheap.service >/dev/null 2>&1
    inside rm -f /etc/systemd/system/pathmond-test-cheap.service
    inside rmdir /etc/systemd/system/pathmond-unmetered.target.wants 2>/dev/null
    inside systemctl daemon-reload
}

# Deferred runs. The path is made expensive through /etc/pathmond.conf (`[interface eth0] expensive = yes`), which
# holds from the first moment of a boot (a network marked with pathctl is known only once identified).
# The configuration the earlier checks left (the metrics textfile among it) is kept, and these sections added to it;
# discretionary_restore puts it back.
discretionary_config() { # discretionary_config yes|no: eth0 expensive or not, settle 1 s, grace 8 s
    inside test -f /root/pathmond.conf.before-discretionary ||
        inside cp /etc/pathmond.conf /root/pathmond.conf.before-discretionary
    {
        inside cat /root/pathmond.conf.before-discretionary
        printf '\n[discretionary]\nsettle = 1s\ngrace = 8s\n'
        [ "$1" = no ] || printf '[interface eth0]\nexpensive = yes\n'
    } | write_config
    inside systemctl reload pathmond
}
discretionary_restore() {
    inside test -f /root/pathmond.conf.before-discretionary || return 0
    inside mv /root/pathmond.conf.before-discretionary /etc/pathmond.conf
    inside systemctl reload pathmond
}
runs_of() { inside sh -c "cat /var/lib/pathmond-test-runs/$1 2>/dev/null | wc -l"; } # runs_of UNIT
deferred_json() { inside pathctl deferred --json=short 2>/dev/null; }
is_deferred() { deferred_json | grep -q "\"unit\":\"$1\""; }
not_deferred() { ! is_deferred "$1"; }
skips_of() { deferred_json | python3 -c '
import json, sys
print(next((d["skips"] for d in json.load(sys.stdin)["deferred"] if d["unit"] == sys.argv[1]), 0))' "$1" 2>/dev/null; }
skips_at_least() { [ "$(skips_of "$1")" -ge "$2" ]; }
runs_are() { [ "$(runs_of "$1")" = "$2" ]; }
# A oneshot gated as apt's daily jobs are, that counts its runs; with a timer every 3 s when asked.
gated_unit() { # gated_unit NAME [EXTRA CHECK ARGUMENTS]
    local name=$1
    shift
    inside mkdir -p /var/lib/pathmond-test-runs
    inside sh -c "cat >/etc/systemd/system/$name.service" <<UNIT
[Unit]
Description=Discretionary download stand-in ($name)

[Service]
Type=oneshot
ExecCondition=/usr/bin/pathctl check --unmetered $*
ExecStart=/bin/sh -c 'date +%%s.%%N >>/var/lib/pathmond-test-runs/$name.service'
UNIT
    inside sh -c "cat >/etc/systemd/system/$name.timer" <<UNIT
[Timer]
OnCalendar=*:*:0/3
AccuracySec=100ms
UNIT
    inside systemctl daemon-reload
}

# Turns the path cheap; the deferred UNIT runs once, within 20 s, and not again within 5 s, and leaves the list.
runs_once_when_cheap() { # runs_once_when_cheap UNIT WHAT NOTE
    local unit=$1 start took
    start=$(now_ms)
    discretionary_config no
    if eventually 20 runs_are $unit.service 1; then
        took=$(elapsed "$start")
        sleep 5
        if runs_are $unit.service 1 && ! is_deferred $unit.service; then
            pass "cheap path: $2 ran once, $took ms after the path turned cheap ($3), and left the list"
        else
            fail "cheap path: $2 ran exactly once" "runs: $(runs_of $unit.service); $(deferred_json)"
        fi
    else
        fail "cheap path: $2 runs" "runs: $(runs_of $unit.service); $(deferred_json)" \
            "$(inside journalctl -u pathmond-dispatcher -n 8 --no-pager -o cat)"
    fi
}

check_deferred_runs() {
    local unit=pathmond-test-deferred output skips=0
    # check_targets marked eth0's network not expensive, which would win over the configuration: forget the mark.
    eventually 10 mark_expensive --auto
    discretionary_config yes
    gated_unit $unit
    eventually 15 state_is pathmond-unmetered.target inactive
    inside systemctl start $unit.timer
    if eventually 30 skips_at_least $unit.service 3; then
        inside systemctl stop $unit.timer
        skips=$(skips_of $unit.service)
        pass "expensive path: the timer's runs of $unit are skipped and deferred ($skips skips; pathctl deferred: $(
            inside pathctl deferred --no-legend | head -1 | tr -s ' '))"
    else
        inside systemctl stop $unit.timer
        fail "expensive path: the timer's runs are skipped and deferred" "deferred: $(deferred_json)" \
            "$(inside journalctl -u $unit.service -n 6 --no-pager -o cat)" \
            "$(inside journalctl -u pathmond-dispatcher -n 6 --no-pager -o cat)"
    fi
    output=$(inside pathctl check --unmetered 2>&1)
    if ! deferred_json | grep -q scope && [ "$(runs_of $unit.service)" = 0 ]; then
        pass "a root shell's pathctl check defers nothing (not a unit's ExecCondition=); no run yet"
    else
        fail "a root shell's pathctl check defers nothing; no run yet" "$output" "$(deferred_json)"
    fi
    runs_once_when_cheap $unit "the deferred unit" "settle 1 s; $skips skips, one run"
}

# Ten deferred units start in deferral order, spaced: not in the same second.
check_deferred_order() {
    local n units=() order times first last
    discretionary_config yes
    eventually 15 state_is pathmond-unmetered.target inactive
    for n in 0 1 2 3 4 5 6 7 8 9; do
        gated_unit pathmond-test-order-$n
        inside systemctl start pathmond-test-order-$n.service
        units+=(pathmond-test-order-$n.service)
    done
    discretionary_config no
    eventually 40 runs_are pathmond-test-order-9.service 1
    order=$(for n in 0 1 2 3 4 5 6 7 8 9; do
        printf '%s %s\n' "$(inside cat /var/lib/pathmond-test-runs/pathmond-test-order-$n.service)" $n
    done | sort -n | awk '{ print $2 }' | paste -sd' ')
    first=$(inside cat /var/lib/pathmond-test-runs/pathmond-test-order-0.service)
    last=$(inside cat /var/lib/pathmond-test-runs/pathmond-test-order-9.service)
    times=$(awk -v a="$first" -v b="$last" 'BEGIN { printf "%.1f", b - a }')
    if [ "$order" = "0 1 2 3 4 5 6 7 8 9" ] && awk -v t="$times" 'BEGIN { exit !(t >= 9) }'; then
        pass "ten deferred units started in deferral order, spread over $times s (2 s apart)"
    else
        fail "ten deferred units start in deferral order, 2 s apart" "order: $order; first to last: $times s"
    fi
    for n in 0 1 2 3 4 5 6 7 8 9; do inside rm -f /etc/systemd/system/pathmond-test-order-$n.service \
        /etc/systemd/system/pathmond-test-order-$n.timer; done
}

# A deferral survives `systemctl restart pathmond` and of the dispatcher, and a reboot; then runs once.
check_deferral_survives() {
    local unit=pathmond-test-deferred boot_before boot_after
    inside rm -f /var/lib/pathmond-test-runs/$unit.service
    discretionary_config yes
    eventually 15 state_is pathmond-unmetered.target inactive
    inside systemctl start $unit.service
    inside systemctl restart pathmond pathmond-dispatcher
    if eventually 10 is_deferred $unit.service && runs_are $unit.service 0; then
        pass "the deferral survives systemctl restart pathmond pathmond-dispatcher (still listed, not run)"
    else
        fail "the deferral survives systemctl restart pathmond pathmond-dispatcher" "$(deferred_json)"
    fi
    boot_before=$(inside cat /proc/sys/kernel/random/boot_id)
    container_reboot
    boot_after=$(inside cat /proc/sys/kernel/random/boot_id)
    if [ "$boot_before" != "$boot_after" ] && eventually 20 is_deferred $unit.service && sleep 3 &&
        runs_are $unit.service 0; then
        pass "after a reboot (boot ID changed) the deferral is still listed, and nothing ran on the expensive path"
    else
        fail "after a reboot the deferral is still listed" "boot $boot_before -> $boot_after; $(deferred_json)" \
            "runs: $(runs_of $unit.service)" "$(inside journalctl -b -u pathmond-dispatcher -n 8 --no-pager -o cat)"
    fi
    discretionary_config no
    if eventually 20 runs_are $unit.service 1 && sleep 4 && runs_are $unit.service 1; then
        pass "after the reboot, on a cheap path, the deferred run ran once"
    else
        fail "after the reboot, on a cheap path, the deferred run runs once" "runs: $(runs_of $unit.service)" \
            "$(inside journalctl -b -u pathmond-dispatcher -n 8 --no-pager -o cat)"
    fi
}

# --max-deferral: a unit deferred longer than its cap runs on the expensive path. The clock is the state file's:
# the deferral is written as made 15 days ago, with the dispatcher stopped.
check_max_deferral() {
    local unit=pathmond-test-capped since state=/var/lib/pathmond-dispatcher/deferrals.json
    gated_unit $unit --max-deferral 14d
    discretionary_config yes
    eventually 15 state_is pathmond-unmetered.target inactive
    inside systemctl start $unit.service
    if is_deferred $unit.service && runs_are $unit.service 0; then
        pass "--max-deferral 14d, deferred a moment ago: skipped and deferred"
    else
        fail "--max-deferral 14d, deferred a moment ago: skipped and deferred" "$(deferred_json)"
    fi
    inside systemctl stop pathmond-dispatcher
    since=$(($(date +%s) - 15 * 86400))
    inside sh -c "sed -i 's/\"since\":[0-9]*,\"skips\":\\([0-9]*\\),\"unit\":\"$unit.service\"/\"since\":$since,\"skips\":\\1,\"unit\":\"$unit.service\"/' $state"
    inside systemctl start pathmond-dispatcher
    inside systemctl start $unit.service
    local why said=no
    why=$(journal_line pathmond-dispatcher "longer than its --max-deferral") && said=yes
    if runs_are $unit.service 1 && ! is_deferred $unit.service && [ $said = yes ] &&
        inside pathctl check --unmetered -q; [ $? -eq 2 ] && runs_are $unit.service 1; then
        pass "deferred 15 days ago with --max-deferral 14d: runs on the expensive path; the journal: $why"
    else
        fail "deferred longer than --max-deferral: runs on the expensive path, the journal says why" \
            "runs: $(runs_of $unit.service); $(deferred_json); why: $why" "$(inside cat $state)"
    fi
}

# Only root lists or forgets (the socket is open to all: SO_PEERCRED decides); a corrupt state file is set aside.
check_deferral_access() {
    local unit=pathmond-test-deferred output status listing
    discretionary_config yes
    eventually 15 state_is pathmond-unmetered.target inactive
    inside systemctl start $unit.service
    output=$(inside setpriv --reuid=65534 --regid=65534 --clear-groups pathctl deferred --forget $unit.service 2>&1)
    status=$?
    listing=$(inside stat -c '%a %U' /run/pathmond-dispatcher /run/pathmond-dispatcher/io.pathmond.Dispatcher | paste -sd' ')
    if [ $status = 77 ] && is_deferred $unit.service &&
        ! inside setpriv --reuid=65534 --regid=65534 --clear-groups pathctl deferred >/dev/null 2>&1; then
        pass "nobody cannot list or forget a deferral (exit $status: $output; socket $listing)"
    else
        fail "a non-root user cannot list or forget a deferral" "exit $status: $output; $(deferred_json)"
    fi
    local refusal said=no
    refusal=$(journal_line pathmond-dispatcher 'from uid 65534: only root may list or forget') && said=yes
    if [ "$listing" = "755 root 666 root" ] && [ $said = yes ]; then
        pass "the socket is open to all ($listing), the dispatcher refuses nobody's Forget (SO_PEERCRED): $refusal"
    else
        fail "the socket is open to all and the dispatcher refuses nobody (SO_PEERCRED)" "socket $listing" \
            "$(inside journalctl -u pathmond-dispatcher -n 5 --no-pager -o cat)"
    fi
    if inside pathctl deferred --forget $unit.service >/dev/null && ! is_deferred $unit.service; then
        pass "root forgets a deferral with pathctl deferred --forget"
    else
        fail "root forgets a deferral with pathctl deferred --forget" "$(deferred_json)"
    fi
    inside systemctl stop pathmond-dispatcher
    inside sh -c 'echo "{not json" >/var/lib/pathmond-dispatcher/deferrals.json'
    inside systemctl start pathmond-dispatcher
    # The journal takes the line on its own time: `systemctl start` returning does not mean journalctl shows it yet.
    if state_is pathmond-dispatcher.service active && inside sh -c 'ls /var/lib/pathmond-dispatcher/deferrals.json.corrupt-*' >/dev/null 2>&1 &&
        eventually 5 inside sh -c "journalctl -u pathmond-dispatcher -o cat | grep -q 'set aside'"; then
        pass "a corrupt deferrals.json is set aside (logged) and the dispatcher starts"
    else
        fail "a corrupt deferrals.json is set aside and the dispatcher starts" \
            "$(inside journalctl -u pathmond-dispatcher -n 5 --no-pager -o cat)"
    fi
    inside sh -c 'rm -f /var/lib/pathmond-dispatcher/deferrals.json.corrupt-*'
    discretionary_config no
    inside sh -c 'rm -rf /var/lib/pathmond-test-runs /etc/systemd/system/pathmond-test-*'
    inside systemctl daemon-reload
}

# A unit with User=nobody defers without "+": its ExecCondition= process (the unit's ControlPID, as nobody)
# registers it, and it runs exactly once when the path turns cheap. Refused, as before or newly possible now that
# the socket is open: a transient scope as nobody, a service calling from ExecStart= (outside its condition), a shell
# in the condition that does not exec pathctl, and another user's process in a unit's cgroup while that unit runs
# its condition.
check_user_deferral() {
    local unit=pathmond-test-user output claims=()
    discretionary_config yes
    eventually 15 state_is pathmond-unmetered.target inactive
    inside mkdir -p /var/lib/pathmond-test-runs
    inside chmod 1777 /var/lib/pathmond-test-runs
    user_unit() { # user_unit NAME EXEC_CONDITION EXEC_START
        inside sh -c "cat >/etc/systemd/system/$1.service" <<UNIT
[Service]
Type=oneshot
User=nobody
${2:+ExecCondition=$2}
ExecStart=$3
UNIT
    }
    user_unit $unit "/usr/bin/pathctl check --unmetered" "/bin/sh -c 'date +%%s.%%N >>/var/lib/pathmond-test-runs/$unit.service'"
    user_unit pathmond-test-outside "" "/usr/bin/pathctl check --unmetered"
    user_unit pathmond-test-shell "/bin/sh -c '/usr/bin/pathctl check --unmetered; exit 1'" /bin/true
    # A root unit (no User=) whose condition runs a process of uid 1000: that process is in the unit's cgroup while
    # it runs its condition, but is not the condition process. (Moving a process into a unit's cgroup from outside
    # would show the same; it fails with EIO in this test's containers, on a host with the hybrid cgroup layout.)
    user_unit pathmond-test-other \
        "/bin/sh -c 'setpriv --reuid=1000 --regid=1000 --clear-groups /usr/bin/pathctl check --unmetered; exit 1'" \
        /bin/true
    inside sed -i '/^User=nobody$/d' /etc/systemd/system/pathmond-test-other.service
    inside systemctl daemon-reload
    inside systemctl start $unit.service
    inside systemctl start $unit.service
    output=$(journal_line $unit.service 'pathctl: the run')
    if is_deferred $unit.service && skips_at_least $unit.service 2 && runs_are $unit.service 0; then
        pass "User=nobody with ExecCondition=/usr/bin/pathctl check --unmetered (no +): skipped and deferred ($(
            skips_of $unit.service) skips); its journal: $output"
    else
        fail "User=nobody without +: skipped and deferred" "$(deferred_json)" \
            "$(inside journalctl -u $unit.service -n 6 --no-pager -o cat)" \
            "$(inside journalctl -u pathmond-dispatcher -n 6 --no-pager -o cat)"
    fi

    # The adversary's calls, all on the expensive path; systemd sets each one's INVOCATION_ID, so pathctl says why.
    # The scope is made from a transient service, inside the container's own cgroup tree.
    claims+=("a transient scope as nobody: $(inside systemd-run --quiet --wait --pipe --collect \
        systemd-run --scope --uid=nobody --quiet /usr/bin/pathctl check --unmetered 2>&1 | tail -n1)")
    inside systemctl start pathmond-test-outside.service 2>/dev/null
    claims+=("ExecStart= as nobody: $(journal_line pathmond-test-outside.service 'not deferred')")
    inside systemctl start pathmond-test-shell.service
    claims+=("a shell in ExecCondition= as nobody: $(journal_line pathmond-test-shell.service 'not deferred')")
    inside systemctl start pathmond-test-other.service
    claims+=("uid 1000 in root's pathmond-test-other.service during its condition: $(
        journal_line pathmond-test-other.service 'not deferred')")
    local json
    json=$(deferred_json)
    if ! echo "$json" | grep -q -e scope -e pathmond-test-outside -e pathmond-test-shell -e pathmond-test-other &&
        [ "$(printf '%s\n' "${claims[@]}" | grep -c 'not deferred')" = 4 ]; then
        pass "refused, each saying why: $(printf '%s; ' "${claims[@]}")"
    else
        fail "the adversary's claims are refused" "$json" "${claims[@]}"
    fi

    # Units systemd no longer has leave the list at once: a transient unit when it is garbage-collected after its
    # skipped run (UnitRemoved), a unit whose file is deleted at the daemon-reload.
    user_unit pathmond-test-deleted "/usr/bin/pathctl check --unmetered" /bin/true
    inside systemctl daemon-reload
    inside systemctl start pathmond-test-deleted.service
    inside systemd-run --quiet --wait --unit=pathmond-test-transient --uid=nobody \
        -p ExecCondition="/usr/bin/pathctl check --unmetered" /bin/true 2>/dev/null
    local deleted_was
    deleted_was=$(is_deferred pathmond-test-deleted.service && echo deferred)
    inside rm -f /etc/systemd/system/pathmond-test-deleted.service
    inside systemctl daemon-reload
    # grep reads it all: with -q it would stop at the first match, and pipefail would see journalctl's SIGPIPE.
    dispatcher_said() { inside journalctl -u pathmond-dispatcher -o cat | grep "$1" >/dev/null; }
    if [ "$deleted_was" = deferred ] && eventually 10 not_deferred pathmond-test-deleted.service &&
        not_deferred pathmond-test-transient.service &&
        dispatcher_said 'run of pathmond-test-transient.service deferred' &&
        dispatcher_said 'dropped 1 deferred run: .*pathmond-test-transient.service'; then
        pass "a deferred transient unit leaves the list when systemd collects it, a unit whose file is deleted at the daemon-reload: $(
            inside journalctl -u pathmond-dispatcher -o cat | grep 'dropped 1 deferred run' | tail -n2 | paste -sd'|')"
    else
        fail "deferrals of units systemd no longer has are dropped" "deleted unit: ${deleted_was:-not deferred}; $(
            deferred_json)" "$(inside journalctl -u pathmond-dispatcher -n 8 --no-pager -o cat)"
    fi
    runs_once_when_cheap $unit "the User=nobody unit" "deferred without +"
    for name in $unit pathmond-test-outside pathmond-test-shell pathmond-test-other; do
        inside rm -f /etc/systemd/system/$name.service
    done
    inside rm -rf /var/lib/pathmond-test-runs
    inside systemctl daemon-reload
}

# A drop-in shipped for another package's downloader: fwupd-refresh.service runs as User=fwupd-refresh, so its
# condition has "+" to register the deferral as root. The stand-in unit (fwupd is not in the root) has the name the
# drop-in is for, and a user of its own.
check_shipped_dropin() {
    local unit=fwupd-refresh
    eventually 10 mark_expensive --auto
    discretionary_config yes
    inside sh -c "cat >/etc/systemd/system/$unit.service" <<UNIT
[Unit]
Description=Stand-in for fwupd's metadata refresh

[Service]
Type=oneshot
User=nobody
ExecStart=/bin/true
UNIT
    inside systemctl daemon-reload
    local condition
    condition=$(prop $unit.service ExecCondition | grep -o 'argv\[\]=[^;]*')
    inside systemctl start $unit.service
    # From the journal: an unreferenced unit is unloaded once inactive, and `systemctl show` then reads a fresh one.
    if journal_line $unit.service "Skipped due to 'exec-condition'" >/dev/null && is_deferred $unit.service; then
        pass "shipped drop-in for $unit.service (User=nobody): skipped and deferred on an expensive path ($condition)"
    else
        fail "shipped drop-in for $unit.service: skipped and deferred on an expensive path" \
            "$condition; $(deferred_json)" \
            "$(inside journalctl -u $unit.service -n 5 --no-pager -o cat)"
    fi
    inside pathctl deferred --forget $unit.service >/dev/null 2>&1
    inside rm -f /etc/systemd/system/$unit.service
    inside systemctl daemon-reload
    discretionary_restore
}
