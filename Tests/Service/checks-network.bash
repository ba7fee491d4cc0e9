# SPDX-License-Identifier: Apache-2.0
# The checks of booted-systemd-test that concern the system user, the system bus, NetworkManager and the network's
# identity (sourced after checks.bash, whose helpers they use).

# NetworkManager in the root manages eth0 alone from a keyfile profile (a static address, the far namespace as the
# gateway); no DNS, hostname or connectivity checks; polkit as on a host (root's nmcli needs none; the user pathmond
# gets network-control from the package's rule). /sys is read-only for
# it alone: a writable /sys makes it wait for udev, which a container does not run. Written before boot.
network_manager_configure() { # network_manager_configure ROOT
    mkdir -p "$1/etc/NetworkManager/conf.d" "$1/etc/NetworkManager/system-connections" \
        "$1/etc/systemd/system/NetworkManager.service.d"
    printf '%s\n' '[main]' dns=none rc-manager=unmanaged hostname-mode=none no-auto-default='*' \
        '[keyfile]' unmanaged-devices=except:interface-name:eth0 '[connectivity]' enabled=false \
        >"$1/etc/NetworkManager/conf.d/pathmond-test.conf"
    # NetworkManager ignores a profile others can read.
    printf '%s\n' '[connection]' id=eth0 type=ethernet interface-name=eth0 '[ipv4]' method=manual \
        address1=192.0.2.10/24,192.0.2.1 '[ipv6]' method=disabled |
        install -m 0600 /dev/stdin "$1/etc/NetworkManager/system-connections/eth0.nmconnection"
    printf '%s\n' '[Service]' ReadOnlyPaths=/sys \
        >"$1/etc/systemd/system/NetworkManager.service.d/pathmond-test.conf"
}

# eth0 as `pathctl status --json` reports it: one field, printed as JSON (true, "wired:…", null).
eth0_field() { # eth0_field FIELD
    inside pathctl status --json 2>/dev/null | python3 -c '
import json, sys
document = json.load(sys.stdin)
eth0 = next((i for i in document.get("interfaces", []) if i.get("name") == "eth0"), {})
print(json.dumps(eth0.get(sys.argv[1])))' "$1" 2>/dev/null
}
eth0_field_is() { [ "$(eth0_field "$1")" = "$2" ]; }

# A DynamicUser= unit of an older package kept its state in /var/lib/private/pathmond, with /var/lib/pathmond a
# symlink to it, owned by a uid that no longer exists. Made before install; check_migrated looks at it after.
seed_dynamic_user_state() {
    # The root may have /var/lib/private already (systemd makes it for DynamicUser= units): then it stays.
    private_made=yes
    ! inside test -d /var/lib/private || private_made=no
    inside sh -c 'mkdir -p -m 0700 /var/lib/private/pathmond &&
        echo left-by-a-DynamicUser-unit >/var/lib/private/pathmond/pathmond-test-seed &&
        chown -R 61183:61183 /var/lib/private/pathmond && ln -s private/pathmond /var/lib/pathmond'
}

check_migrated() {
    local listing
    listing=$(inside sh -c 'stat -c "%N %U:%G %a" /var/lib/pathmond /var/lib/pathmond/pathmond-test-seed;
        ls -d /var/lib/private/pathmond' 2>&1)
    if inside test -d /var/lib/pathmond && ! inside test -L /var/lib/pathmond &&
        [ "$(inside stat -c %U /var/lib/pathmond/pathmond-test-seed 2>/dev/null)" = pathmond ] &&
        [ "$(inside stat -c %U /var/lib/pathmond)" = pathmond ] && ! inside test -e /var/lib/private/pathmond; then
        pass "a DynamicUser-era /var/lib/private/pathmond is moved back to /var/lib/pathmond and owned by pathmond"
    else
        fail "a DynamicUser-era /var/lib/private/pathmond is moved back to /var/lib/pathmond, owned by pathmond" \
            "$listing" "$(inside journalctl -u pathmond -o cat | grep -i -m3 -E 'private|migrat|chown')"
    fi
    # The seed is the test's to clear, and /var/lib/private if the test made it.
    inside rm -f /var/lib/pathmond/pathmond-test-seed
    [ "$private_made" = no ] || inside rmdir /var/lib/private 2>/dev/null
}

# The static user, the daemon running as it, and pathmond on the real system bus (Debian's dbus-daemon hung up on a
# DynamicUser= uid at Hello).
check_user_and_bus() {
    local entry uid user pid
    entry=$(inside getent passwd pathmond)
    uid=$(cut -d: -f3 <<<"$entry")
    pid=$(main_pid)
    user=$(inside stat -c %U "/proc/$pid" 2>/dev/null)
    if [ -n "$uid" ] && [ "$uid" -gt 0 ] && [ "$uid" -lt 1000 ] && [ "$user" = pathmond ] &&
        [ "$(prop pathmond.service User)" = pathmond ] && [ "$(prop pathmond.service DynamicUser)" = no ]; then
        pass "pathmond runs as the system user pathmond (uid $uid, from sysusers.d), not a dynamic user"
    else
        fail "pathmond runs as the system user pathmond" "passwd: '$entry'; MainPID $pid runs as '$user'"
    fi
    connected() {
        [ "$pid" -gt 0 ] 2>/dev/null &&
            inside busctl --system list --unique --no-legend 2>/dev/null | awk -v pid="$pid" '$2 == pid' | grep .
    }
    local line
    if eventually 10 connected >/dev/null; then
        line=$(connected | awk '{ print $1, $3, $4, $6 }')
        pass "pathmond is on the system bus (busctl --system list: $line)"
    else
        fail "pathmond is on the system bus (busctl --system list)" \
            "$(inside busctl --system list --no-legend 2>&1 | head -n 8)" \
            "$(inside journalctl -u pathmond -o cat | grep -m3 -i -E 'bus|hello|endpoint')"
    fi
    local refused
    refused=$(inside journalctl -o cat -u pathmond -u dbus | grep -m3 -E 'Transport endpoint|Hello|rejected')
    [ -z "$refused" ] && pass "no D-Bus refusal in the journal (dbus-daemon, pathmond)" ||
        fail "no D-Bus refusal in the journal (dbus-daemon, pathmond)" "$refused"
}

# The wired network is known by its gateway's MAC address, which the daemon learns from the kernel's neighbour
# table; nothing here sends the gateway a packet first (the daemon must get it resolved itself).
check_network_identified() { # check_network_identified SECONDS
    local start
    start=$(now_ms)
    if eventually "$1" eth0_field_is network "\"wired:$gateway_mac\""; then
        pass "eth0's network identified by its gateway's MAC (wired:$gateway_mac) in $(elapsed "$start") ms"
    else
        fail "eth0's network identified by its gateway's MAC (wired:$gateway_mac) within $1 s" \
            "network: $(eth0_field network); neighbours: $(inside ip neigh show dev eth0 2>&1 | paste -sd';')" \
            "capabilities of the daemon: $(inside grep -E '^Cap(Eff|Amb)' "/proc/$(main_pid)/status" | paste -sd' ')"
    fi
}

# NetworkManager's Metered for eth0, set the way GNOME Settings does, reaches pathctl through the system bus.
check_metered() {
    local nm_state
    connected_eth0() { inside nmcli -t -f GENERAL.STATE device show eth0 2>/dev/null | grep -q '^GENERAL.STATE:100'; }
    if eventually 30 connected_eth0; then
        pass "NetworkManager manages eth0 in the booted root ($(inside nmcli -t -f GENERAL.STATE device show eth0))"
    else
        nm_state=$(inside nmcli -t device 2>&1 | head -n 5)
        fail "NetworkManager manages eth0 in the booted root" "$nm_state" \
            "$(inside journalctl -u NetworkManager -n 10 --no-pager -o cat)"
        return
    fi
    local output start
    eth0_field_is isExpensive false || fail "eth0 not expensive before NetworkManager says metered" \
        "isExpensive $(eth0_field isExpensive), source $(eth0_field expensiveSource)"
    output=$(inside sh -c 'nmcli connection modify eth0 connection.metered yes && nmcli device reapply eth0' 2>&1)
    start=$(now_ms)
    if eventually 15 eth0_field_is expensiveSource '"networkManager"' && eth0_field_is isExpensive true; then
        pass "nmcli connection.metered yes: pathctl status --json: eth0 expensive from NetworkManager ($(
            elapsed "$start") ms after reapply)"
    else
        fail "nmcli connection.metered yes: pathctl status --json shows eth0 expensive from NetworkManager" \
            "isExpensive $(eth0_field isExpensive), source $(eth0_field expensiveSource); $output" \
            "NetworkManager: $(inside busctl --system get-property org.freedesktop.NetworkManager \
                /org/freedesktop/NetworkManager org.freedesktop.NetworkManager Metered 2>&1)" \
            "$(inside journalctl -u pathmond -n 8 --no-pager -o cat)"
    fi
    inside sh -c 'nmcli connection modify eth0 connection.metered unknown && nmcli device reapply eth0' >/dev/null 2>&1
    eventually 15 eth0_field_is isExpensive false ||
        fail "eth0 not expensive again once NetworkManager's metered is back to unknown" \
            "isExpensive $(eth0_field isExpensive), source $(eth0_field expensiveSource)"
}

# The history's entries carry the boot ID (systemd's sd_id128_get_boot(); ProcSubset=pid hides /proc/sys).
check_boot_id() {
    local entry recorded kernel
    entry=$(inside pathctl log --json -n 1 2>&1 | tail -n 1)
    recorded=$(python3 -c 'import json, sys; print(json.loads(sys.argv[1]).get("bootID", ""))' "$entry" 2>/dev/null)
    kernel=$(inside cat /proc/sys/kernel/random/boot_id)
    if [ -n "$recorded" ] && [ "${recorded//-/}" = "${kernel//-/}" ]; then
        pass "pathctl log: the newest entry's bootID is this boot's ($recorded)"
    else
        fail "pathctl log: the newest entry's bootID is this boot's ($kernel)" "entry: $entry"
    fi
}

# Metrics for node_exporter: the administrator gives pathmond the textfile directory (as pathmond.conf says) and
# names the file; pathmond writes it. The test made the directory before install, as prometheus-node-exporter would.
metrics_dir=/var/lib/prometheus/node-exporter
metrics_file=$metrics_dir/pathmond.prom
check_metrics() {
    inside sh -c "chgrp pathmond $metrics_dir && chmod 0775 $metrics_dir"
    printf '[metrics]\ntextfile = %s\n' "$metrics_file" | write_config
    inside systemctl reload pathmond >/dev/null 2>&1
    written() { inside grep -q '^pathmond_path_status{' "$metrics_file" 2>/dev/null; }
    if eventually 10 written; then
        pass "[metrics] textfile: pathmond writes $metrics_file ($(inside grep -c '^pathmond_' "$metrics_file") series)"
    else
        fail "[metrics] textfile: pathmond writes $metrics_file" "$(inside ls -la $metrics_dir 2>&1)" \
            "$(inside journalctl -u pathmond -n 5 --no-pager -o cat)"
    fi
}

# After a clean stop the file must not claim a running pathmond: gone, or saying pathmond_up 0.
metrics_say_stopped() {
    ! inside test -e "$metrics_file" || inside grep -qx 'pathmond_up 0' "$metrics_file"
}
check_metrics_after_stop() { # check_metrics_after_stop WHAT
    if metrics_say_stopped; then
        pass "after $1 the metrics file is gone or says pathmond_up 0"
    else
        fail "after $1 the metrics file is gone or says pathmond_up 0" \
            "$(inside sh -c "ls -la $metrics_file; grep -m3 '^pathmond_' $metrics_file" 2>&1)"
    fi
}

# The boot without CAP_NET_ADMIN: what a container without it can show.
run_nocap_checks() {
    local start
    start=$(now_ms)
    check_install
    check_user_and_bus
    check_status
    local capabilities
    capabilities=$(inside grep -E '^CapAmb' "/proc/$(main_pid)/status")
    [ "${capabilities##*[[:space:]]}" = 0000000000000000 ] &&
        pass "without CAP_NET_ADMIN in the container the daemon runs with no ambient capability ($capabilities)" ||
        fail "without CAP_NET_ADMIN in the container the daemon runs with no ambient capability" "$capabilities"
    # Without CAP_NET_ADMIN the kernel refuses pathmond's request to resolve the gateway (RTM_NEWNEIGH): pathmond
    # says so once, at warning, and identifies the network as soon as the kernel learns the gateway from any
    # traffic (here a datagram from a shell in the container, as any program's first packet would be).
    local said
    # Once it is in the journal (journald stores a line on its own time), it must be there once.
    warned() { said=$(inside journalctl -o cat -p warning -u pathmond | grep -c 'runs without CAP_NET_ADMIN'); [ "$said" -ge 1 ]; }
    eventually 10 warned
    [ "$said" = 1 ] && pass "without CAP_NET_ADMIN pathmond says once, at warning, what it cannot do and what it costs" ||
        fail "without CAP_NET_ADMIN pathmond says once, at warning, what it cannot do" "said $said times" \
            "$(inside journalctl -o cat -u pathmond | tail -n 5)"
    inside bash -c 'echo >/dev/udp/192.0.2.1/9' 2>/dev/null
    check_network_identified 20
    check_boot_id
    check_purge
    echo "# [$boot] checks: $(elapsed "$start") ms"
}
