# SPDX-License-Identifier: Apache-2.0
# The checks of booted-systemd-test for [networkmanager] write-metered (sourced after checks.bash and
# checks-network.bash, whose helpers they use): the real NetworkManager of the booted root, managing eth0 from a
# keyfile profile, follows pathmond's verdicts in memory and gets its own value back.
metered_written_id=f969f1ad57a546c08e613dc1b9c7ac99

nm_metered() { inside nmcli -g GENERAL.METERED device show eth0 2>/dev/null; }
nm_metered_is() { [ "$(nm_metered)" = "$1" ]; }
# What Qt's NetworkManager backend, snapd and GNOME read: the manager's Metered (NMMetered: 1 yes, 4 guess no).
nm_manager_metered() {
    inside busctl --system get-property org.freedesktop.NetworkManager /org/freedesktop/NetworkManager \
        org.freedesktop.NetworkManager Metered 2>/dev/null
}
# unattended-upgrades 2.13's and snapd's own question, asked their way: the manager's Metered property read over the
# system bus (Properties.Get), metered when it is 1 (yes) or 3 (guess yes). Prints yes or no.
uu_metered() {
    inside python3 -c '
import dbus
manager = dbus.SystemBus().get_object("org.freedesktop.NetworkManager", "/org/freedesktop/NetworkManager")
metered = manager.Get("org.freedesktop.NetworkManager", "Metered", dbus_interface="org.freedesktop.DBus.Properties")
print("yes" if metered in (1, 3) else "no")' 2>&1
}
snapd_metered() {
    local value
    value=$(nm_manager_metered | awk '{ print $2 }')
    [ "$value" = 1 ] || [ "$value" = 3 ] && echo yes || echo no
}
polkit_rule=/usr/share/polkit-1/rules.d/pathmond.rules
profile_sum() { inside sha256sum /etc/NetworkManager/system-connections/eth0.nmconnection | cut -d' ' -f1; }
set_constrained() { inside pathctl set-constrained "$@" eth0 >/dev/null 2>&1; }

check_nm_write_through() {
    local profile initial output
    profile=$(profile_sum)
    initial=$(nm_metered)
    # On by default: an empty /etc/pathmond.conf, polkitd deciding for NetworkManager from the package's rule.
    : | write_config
    output=$(inside systemctl reload pathmond 2>&1) || fail "systemctl reload with an empty configuration" "$output"

    set_constrained
    if eventually 15 nm_metered_is yes; then
        pass "write-metered by default (polkitd and the package's rule): pathctl set-constrained eth0: nmcli GENERAL.METERED '$initial' -> yes; manager Metered: $(nm_manager_metered)"
    else
        fail "write-metered by default: pathctl set-constrained eth0 makes nmcli GENERAL.METERED say yes" \
            "GENERAL.METERED '$(nm_metered)' (was '$initial'); polkitd: $(inside systemctl is-active polkit)" \
            "$(inside journalctl -u pathmond -n 8 --no-pager -o cat)"
    fi
    local uu snapd
    uu=$(uu_metered)
    snapd=$(snapd_metered)
    if [ "$uu" = yes ] && [ "$snapd" = yes ]; then
        pass "unattended-upgrades 2.13's and snapd's read of NetworkManager's Metered say metered ($(nm_manager_metered))"
    else
        fail "unattended-upgrades 2.13's and snapd's read of NetworkManager's Metered say metered" \
            "u-u: $uu; snapd: $snapd; manager Metered: $(nm_manager_metered)"
    fi
    # pathmond does not read its own write back: eth0 constrained, not expensive from NetworkManager.
    if eth0_field_is isConstrained true && eth0_field_is isExpensive false; then
        pass "pathmond does not take its own write for NetworkManager's verdict (eth0 constrained, not expensive)"
    else
        fail "pathmond does not take its own write for NetworkManager's verdict" \
            "isExpensive $(eth0_field isExpensive), source $(eth0_field expensiveSource)"
    fi
    local record
    # Waited for: journald stores the record on its own time, after the write it tells of.
    written() {
        record=$(inside journalctl --no-pager -o cat -u pathmond "MESSAGE_ID=$metered_written_id" INTERFACE=eth0 -n 1)
        [ -n "$record" ]
    }
    eventually 10 written && pass "journal: $record" ||
        fail "journalctl MESSAGE_ID=$metered_written_id INTERFACE=eth0 finds the write"
    if [ "$(inside nmcli -g connection.metered connection show eth0)" = unknown ] && [ "$(profile_sum)" = "$profile" ]
    then
        pass "the profile is untouched: connection.metered unknown in NetworkManager, the keyfile unchanged"
    else
        fail "the profile is untouched" "connection.metered '$(inside nmcli -g connection.metered connection show eth0)'" \
            "$(inside cat /etc/NetworkManager/system-connections/eth0.nmconnection)"
    fi

    set_constrained --off
    if eventually 15 nm_metered_is "$initial"; then
        pass "pathctl set-constrained --off eth0: GENERAL.METERED back to '$initial'"
    else
        fail "pathctl set-constrained --off eth0 gives NetworkManager its value back" "'$(nm_metered)', was '$initial'"
    fi

    # Stopping pathmond gives it back.
    set_constrained
    eventually 15 nm_metered_is yes
    inside systemctl stop pathmond.service
    if nm_metered_is "$initial"; then
        pass "systemctl stop pathmond: GENERAL.METERED back to '$initial' by the time stop returns"
    else
        fail "systemctl stop pathmond gives NetworkManager its value back" "'$(nm_metered)', was '$initial'" \
            "$(inside journalctl -u pathmond -n 8 --no-pager -o cat)"
    fi
    inside systemctl start pathmond.service
    # Started again with eth0 still constrained: written again.
    if eventually 20 nm_metered_is yes; then
        pass "pathmond started with eth0 constrained: GENERAL.METERED yes again"
    else
        fail "pathmond started with eth0 constrained writes NetworkManager's metered again" "'$(nm_metered)'" \
            "$(inside journalctl -u pathmond -n 8 --no-pager -o cat)"
    fi

    # Turning it off gives it back.
    printf '[networkmanager]\nwrite-metered = no\n' | write_config
    inside systemctl reload pathmond >/dev/null 2>&1
    if eventually 15 nm_metered_is "$initial"; then
        pass "write-metered turned off (reload): GENERAL.METERED back to '$initial'"
    else
        fail "write-metered turned off gives NetworkManager its value back" "'$(nm_metered)'" \
            "$(inside journalctl -u pathmond -n 8 --no-pager -o cat)"
    fi
    set_constrained --off

    # A value set in NetworkManager itself stays.
    printf '[networkmanager]\nwrite-metered = yes\n' | write_config
    inside systemctl reload pathmond >/dev/null 2>&1
    inside nmcli device modify eth0 connection.metered no >/dev/null 2>&1
    eventually 10 nm_metered_is no
    set_constrained
    eventually 10 eth0_field_is isConstrained true
    local left
    left() { inside journalctl --no-pager -o cat -u pathmond "MESSAGE_ID=$metered_written_id" -n 1 | grep 'left alone'; }
    if eventually 10 left >/dev/null && nm_metered_is no; then
        pass "a 'no' set with nmcli device modify stays: $(left)"
    else
        fail "a metered value set in NetworkManager is left alone" "'$(nm_metered)'" \
            "$(inside journalctl -u pathmond -n 5 --no-pager -o cat)"
    fi
    set_constrained --off
    inside nmcli device reapply eth0 >/dev/null 2>&1
    : | write_config
    inside systemctl reload pathmond >/dev/null 2>&1
    eventually 10 nm_metered_is "$initial"
    check_nm_write_retried "$initial"
    if [ "$(profile_sum)" = "$profile" ]; then
        pass "after all of it the keyfile profile on disk is unchanged"
    else
        fail "the keyfile profile on disk is unchanged" "$(inside cat /etc/NetworkManager/system-connections/eth0.nmconnection)"
    fi
}

# Without the rule polkit refuses the user pathmond and the write fails; once the rule is back (polkitd rereads its
# rules directory by itself), the write goes through within the retry's wait, with no new reason or path change.
check_nm_write_retried() { # check_nm_write_retried INITIAL
    local initial=$1 refused
    inside mv "$polkit_rule" /root/pathmond.rules
    sleep 1
    set_constrained
    refused() { inside journalctl --no-pager -o cat -u pathmond -n 20 | grep -m1 'cannot set NetworkManager'; }
    if eventually 10 refused >/dev/null && nm_metered_is "$initial"; then
        pass "without the polkit rule the write is refused and said: $(refused)"
    else
        fail "without the polkit rule the write is refused and said" "GENERAL.METERED '$(nm_metered)'" \
            "$(inside journalctl -u pathmond -n 5 --no-pager -o cat)"
    fi
    local start
    start=$(now_ms)
    inside mv /root/pathmond.rules "$polkit_rule"
    if eventually 70 nm_metered_is yes; then
        pass "the rule back: the refused write goes through by itself ($(elapsed "$start") ms, no new path change)"
    else
        fail "the rule back: the refused write goes through by itself" "GENERAL.METERED '$(nm_metered)'" \
            "$(inside journalctl -u pathmond -n 8 --no-pager -o cat)"
    fi
    set_constrained --off
    eventually 15 nm_metered_is "$initial"
}

# What a Qt 6 app reads: Tests/Service/qt-metered, QNetworkInformation's networkmanager backend (which follows the
# manager's Metered), built against the root's own Qt and run in the root as a transient service. It prints
# metered=true|false at start and on each change; the last line is what the app believes now.
qt_metered_log=/run/qt-metered.log
qt_metered_last() { inside tail -n 1 "$qt_metered_log" 2>/dev/null; }
qt_metered_is() { [ "$(qt_metered_last)" = "metered=$1" ]; }
qt_metered_details() {
    printf '%s\n' "qt-metered printed: $(inside cat "$qt_metered_log" 2>&1 | paste -sd' ')" \
        "qt-metered: $(inside systemctl show -p ActiveState -p Result -p ExecMainStatus --value qt-metered | paste -sd' ')" \
        "$(inside journalctl -u qt-metered --no-pager -o cat -n 5)" \
        "GENERAL.METERED '$(nm_metered)', manager Metered $(nm_manager_metered)" \
        "$(inside journalctl -u pathmond -n 5 --no-pager -o cat)"
}

check_qt_metered() {
    local binary qt start
    start=$(now_ms)
    # ${suite}: run_boot's, the Debian release this boot runs.
    if ! binary=$(container_qt_metered "$suite"); then
        fail "Tests/Service/qt-metered builds against Debian $suite's Qt (g++, qt6-base-dev)"
        return
    fi
    echo "# [$boot] qt-metered: $binary, ready in $(elapsed "$start") ms"
    start=$(now_ms)
    install -m 0755 "$binary" "$root/usr/local/bin/qt-metered"
    qt="Qt $(inside dpkg-query -W -f '${Version}' libqt6network6 | cut -d+ -f1) QNetworkInformation (networkmanager)"
    printf '[networkmanager]\nwrite-metered = yes\n' | write_config
    inside systemctl reload pathmond >/dev/null 2>&1
    set_constrained --off
    inside systemctl reset-failed qt-metered.service 2>/dev/null
    inside systemd-run --quiet --unit qt-metered -p StandardOutput="truncate:$qt_metered_log" \
        /usr/local/bin/qt-metered 300
    if eventually 20 qt_metered_is false; then
        pass "$qt: isMetered false at start (GENERAL.METERED '$(nm_metered)')"
    else
        fail "$qt starts and reports isMetered false" "$(qt_metered_details)"
    fi

    set_constrained
    if eventually 15 qt_metered_is true; then
        pass "$qt: isMetered true after pathctl set-constrained eth0 (write-metered on)"
    else
        fail "$qt reports isMetered true after pathctl set-constrained eth0 (write-metered on)" "$(qt_metered_details)"
    fi
    # The two below count only from true: a program that never saw true would pass them without a change.
    if qt_metered_is true && set_constrained --off && eventually 15 qt_metered_is false; then
        pass "$qt: isMetered false again after pathctl set-constrained --off eth0"
    else
        fail "$qt turns isMetered from true to false after pathctl set-constrained --off eth0" "$(qt_metered_details)"
    fi

    # Stopping pathmond gives NetworkManager its value back, and Qt sees it.
    set_constrained
    if eventually 15 qt_metered_is true && inside systemctl stop pathmond.service 2>/dev/null &&
        eventually 15 qt_metered_is false; then
        pass "$qt: isMetered false again after systemctl stop pathmond (eth0 still constrained)"
    else
        fail "$qt turns isMetered from true to false after systemctl stop pathmond" "$(qt_metered_details)"
    fi
    inside systemctl start pathmond.service
    set_constrained --off
    inside systemctl stop qt-metered.service 2>/dev/null
    # The root after purge is compared with the root before install (check_purge).
    rm -f "$root/usr/local/bin/qt-metered"
    : | write_config
    inside systemctl reload pathmond >/dev/null 2>&1
    echo "# [$boot] qt-metered checks: $(elapsed "$start") ms"
}
