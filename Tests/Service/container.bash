# SPDX-License-Identifier: Apache-2.0
# A booted Debian under systemd-nspawn, for booted-systemd-test (sourced, not run).
#
# A root per Debian suite (bookworm, trixie) is built once by mmdebstrap from the machine's own apt sources (the
# suite's name put in place of the host's) and cached under /var/cache/pathmond-test/root-<hash of suite and package
# list>; every run boots a copy, inside a network namespace of its own whose eth0 is a veth to a second namespace
# (the "network"), so the host's interfaces are never touched.
# This machine's PID 1 is not systemd: --register=no --keep-unit keep nspawn away from machined and the host bus.

container_cache=${PATHMOND_TEST_CACHE:-/var/cache/pathmond-test}
# Set by container_boot: the container's init (systemd) in the host's PID namespace.
container_init=
container_nspawn=

# The root's packages: a booted systemd with D-Bus, ip(8), man pages, NetworkManager (a source of "metered"), and
# what the package under test depends on (the namespace has no route out, so apt inside must find every dependency
# already installed), but for one another (libpathmond-dev's libpathmond0). The .debs are built on Debian 12: a library
# renamed since (trixie's t64 packages provide the old names) is installed under its new name.
container_packages() { # container_packages SUITE DEB...
    local depends own deb
    own=$(for deb in "${@:2}"; do dpkg-deb --field "$deb" Package; done)
    depends=$(for deb in "${@:2}"; do dpkg-deb --field "$deb" Depends; done | tr ',' '\n' |
        sed 's/|.*//; s/(.*)//; s/ //g' | grep -v '^$' | grep -v -x -F "$own")
    if [ "$1" != bookworm ]; then
        depends=$(sed 's/^libglib2.0-0$/libglib2.0-0t64/' <<<"$depends")
    fi
    # libqt6network6: Qt's network module with its networkmanager backend, as a host with a Qt app has it (the
    # Qt program of checks-nm-write.bash is built elsewhere: container_qt_metered).
    # polkitd: NetworkManager asks it whether the user pathmond may write metered (the package's rule says yes);
    # python3-dbus: unattended-upgrades 2.13's own read of NetworkManager's Metered (checks-nm-write.bash);
    # python3-gi: a GLib application's Gio.NetworkMonitor (checks-connectivity.bash).
    printf '%s\n' systemd systemd-sysv dbus iproute2 man-db network-manager libqt6network6 polkitd python3-dbus \
        python3-gi $depends | sort -u
}

# Prints the Qt program of checks-nm-write.bash (Tests/Service/qt-metered) built against SUITE's own Qt, building it
# first if needed: once per suite and source, in a throwaway minbase root with g++ and qt6-base-dev (mmdebstrap's
# null format keeps nothing of it but the binary). Measured on 2 busy cores: that root takes 1-3.5 minutes, where
# the two in the booted root would add 0.5-1.5 minutes to it, but also 159 packages, about 540 MB, to every root and
# to every boot's copy of it, and the minutes again whenever pathmond's dependencies change the roots;
# libqt6network6 alone adds 11 packages, about 55 MB, and no measurable time.
container_qt_metered() { # container_qt_metered SUITE
    local source=$PWD/Tests/Service/qt-metered/main.cpp suite=$1 hash binary sources=() compile
    # pkg-config's flags for Qt6Network; -fPIC because Debian's Qt is built with reduce-relocations.
    compile='cd /tmp && g++ -fPIC -O1 -Wall -Werror -o qt-metered main.cpp $(pkg-config --cflags --libs Qt6Network)'
    hash=$(cat "$source" - <<<"$suite $compile" | sha256sum | cut -c1-16)
    binary=$container_cache/qt-metered-$suite-$hash
    mkdir -p "$container_cache"
    exec {lock}>"$container_cache/lock"
    flock "$lock"
    if [ ! -x "$binary" ]; then
        # Builds of other sources would only fill the disk.
        rm -rf "$container_cache/qt-metered-$suite-"*
        mkdir -p "$binary.sources" "$binary.out"
        mapfile -t sources < <(container_sources "$suite" "$binary.sources")
        echo "# building Tests/Service/qt-metered against Debian $suite's Qt (once)" >&2
        if mmdebstrap --quiet --variant=minbase --include=g++,qt6-base-dev,pkg-config \
            --customize-hook="copy-in $source /tmp" --customize-hook="chroot \"\$1\" sh -c '$compile'" \
            --customize-hook="copy-out /tmp/qt-metered $binary.out" \
            "$suite" /dev/null "${sources[@]}" >&2 && [ -x "$binary.out/qt-metered" ]; then
            mv "$binary.out/qt-metered" "$binary"
        fi
        rm -rf "$binary.sources" "$binary.out"
    fi
    exec {lock}>&-
    [ -x "$binary" ] && echo "$binary"
}

# The host's apt sources with SUITE in place of the host's own suite (bookworm-updates becomes trixie-updates),
# written into DIR; prints the files' paths.
container_sources() { # container_sources SUITE DIR
    local file host n=0
    host=$(. /etc/os-release && echo "$VERSION_CODENAME")
    for file in /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources; do
        [ -s "$file" ] || continue
        n=$((n + 1))
        sed "s/\b$host\b/$1/g" "$file" >"$2/$n.${file##*.}"
        echo "$2/$n.${file##*.}"
    done
}

# Prints the cached root for this package list, building it first if needed (a lock keeps parallel runs from
# building it twice; a half-built root is never left under the final name).
container_root() { # container_root SUITE DEB...
    local packages hash root suite=$1 sources=()
    packages=$(container_packages "$suite" "${@:2}")
    hash=$(printf '%s\n%s\n' "$suite" "$packages" | sha256sum | cut -c1-16)
    root=$container_cache/root-$hash
    mkdir -p "$container_cache"
    exec {lock}>"$container_cache/lock"
    flock "$lock"
    if [ ! -d "$root" ]; then
        rm -rf "$root.tmp" "$root.sources"
        mkdir -p "$root.sources"
        mapfile -t sources < <(container_sources "$suite" "$root.sources")
        echo "# building the Debian $suite root (once): $(echo $packages)" >&2
        if ! mmdebstrap --quiet --variant=minbase --include="$(echo $packages | tr ' ' ,)" \
            --customize-hook='echo pathmond-test >"$1/etc/hostname"' \
            "$suite" "$root.tmp" "${sources[@]}" >&2; then
            rm -rf "$root.tmp" "$root.sources"
            exec {lock}>&-
            return 1
        fi
        rm -rf "$root.sources"
        mv "$root.tmp" "$root"
        echo "$suite" >"$root.suite"
        # Roots of this suite for other package lists (an older package's dependencies), and roots from before roots
        # were per suite (no .suite file), would only fill the disk.
        for other in "$container_cache"/root-*; do
            case $other in *.suite | *.tmp | *.sources | "$root") continue ;; esac
            if [ ! -e "$other.suite" ] || [ "$(cat "$other.suite")" = "$suite" ]; then
                rm -rf "$other" "$other.suite"
            fi
        done
    fi
    exec {lock}>&-
    echo "$root"
}

# Runs a command inside the booted container: all its namespaces, a clean environment.
inside() {
    nsenter -t "$container_init" -a -- env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 TERM=dumb \
        SYSTEMD_PAGER= MANPAGER=cat PAGER=cat DEBIAN_FRONTEND=noninteractive "$@"
}

# The first line of UNIT's journal that matches PATTERN, waiting up to 10 s for it: journald stores a line on its own
# time, after the process that wrote it (and `systemctl start`) returned. Without the line it prints UNIT's newest
# lines instead, so that a failing check shows what was said, and fails (callers test its status, not the text).
journal_line() { # journal_line UNIT PATTERN
    local line deadline=$((SECONDS + 10))
    # grep reads it all: with -m1 it would stop early, and pipefail would see journalctl's SIGPIPE.
    until line=$(inside journalctl -u "$1" -o cat | grep -e "$2" | head -n1) && [ -n "$line" ]; do
        if [ $SECONDS -ge $deadline ]; then
            echo "(not in $1's journal, whose last lines are: $(inside journalctl -u "$1" -n 4 --no-pager -o cat | paste -sd'|'))"
            return 1
        fi
        sleep 0.1
    done
    echo "$line"
}

# The container's systemd: the descendant of systemd-nspawn that is PID 1 in its own PID namespace (nspawn forks
# an intermediate child first, so "the first child" may not be it yet).
container_find_init() {
    local pid children=$container_nspawn
    while [ -n "$children" ]; do
        for pid in $children; do
            if [ "$(awk '/^NSpid:/ { print $NF }' "/proc/$pid/status" 2>/dev/null)" = 1 ] &&
                [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = systemd ]; then
                echo "$pid"
                return
            fi
        done
        children=$(for pid in $children; do cat /proc/"$pid"/task/*/children 2>/dev/null; done)
    done
}

# Boots ROOT in network namespace NS; returns once systemd reports the system up (running or degraded).
# Extra systemd-nspawn options (e.g. --capability=CAP_NET_ADMIN) come after the three arguments.
container_boot() { # container_boot ROOT NS CONSOLE_LOG [NSPAWN OPTION...]
    systemd-nspawn -D "$1" -b --network-namespace-path="/run/netns/$2" --register=no --keep-unit \
        --console=pipe -M "pmst$$" "${@:4}" >"$3" 2>&1 &
    container_nspawn=$!
    # Generous: a loaded 2-core CI machine once needed more than 30 s. Why a boot failed goes to the console log,
    # which the caller prints.
    local deadline=$((SECONDS + 90))
    while [ -z "$container_init" ]; do
        container_init=$(container_find_init)
        if ! kill -0 "$container_nspawn" 2>/dev/null; then
            wait "$container_nspawn"
            echo "container_boot: systemd-nspawn exited ($?) before the container's systemd started" >>"$3"
            return 1
        fi
        if [ $SECONDS -ge $deadline ]; then
            echo "container_boot: no systemd as the container's PID 1 after 90 s" >>"$3"
            return 1
        fi
        [ -n "$container_init" ] || sleep 0.1
    done
    # Until systemd has opened its private bus socket, systemctl cannot even ask: it then prints nothing, or (systemd
    # 252) "offline" with "Failed to connect to bus" (CI saw that once). Retry both, then wait on the answer.
    local state
    while :; do
        state=$(inside timeout 60 systemctl is-system-running --wait 2>/dev/null)
        case $state in
            running | degraded) return 0 ;;
            "" | offline)
                if [ $SECONDS -ge $deadline ] || ! kill -0 "$container_nspawn" 2>/dev/null; then
                    echo "container_boot: systemctl is-system-running never answered (last: '$state')" >>"$3"
                    return 1
                fi
                sleep 0.1
                ;;
            *)
                echo "container_boot: systemd reports '$state'" >>"$3"
                inside systemctl --failed --no-legend >>"$3" 2>&1
                return 1
                ;;
        esac
    done
}

# Powers the container off (SIGRTMIN+3 asks systemd for a clean halt), killing it if it does not go in 30 s.
container_halt() {
    [ -n "$container_nspawn" ] || return 0
    [ -n "$container_init" ] && kill -RTMIN+3 "$container_init" 2>/dev/null
    local deadline=$((SECONDS + 30))
    while kill -0 "$container_nspawn" 2>/dev/null && [ $SECONDS -lt $deadline ]; do sleep 0.2; done
    kill -KILL "$container_nspawn" 2>/dev/null
    wait "$container_nspawn" 2>/dev/null
    container_nspawn=
    container_init=
}
