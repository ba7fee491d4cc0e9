# SPDX-License-Identifier: Apache-2.0
# The checks of booted-systemd-test for libpathmond, the C client library the package ships (docs/libpathmond.md;
# sourced after checks.bash, whose helpers they use). The example the package ships,
# /usr/share/doc/libpathmond-dev/examples/pathmond-status.c, is built with `cc ... $(pkg-config --cflags --libs
# pathmond)` against the packages' own header, .pc and library: the .debs unpacked on the host, given to pkg-config
# as its sysroot (the roots hold no compiler; the host is Debian 12, whose glibc is no newer than either root's). The
# program then runs inside, where it loads the installed libpathmond.so.0 and asks the installed pathmond.

check_libpathmond() {
    local multiarch tree flags built output expected json file example
    multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
    local library=/usr/lib/$multiarch/libpathmond.so.0
    if inside test -f "$library" && inside test -f /usr/include/pathmond.h &&
        inside test -f "/usr/lib/$multiarch/pkgconfig/pathmond.pc" &&
        inside test -f /usr/share/varlink/io.pathmond.varlink &&
        # Not `| grep -q`: under pipefail, ldconfig killed by SIGPIPE after grep's early exit fails the pipe.
        [[ $(inside ldconfig -p) == *"libpathmond.so.0 ("* ]]; then
        pass "libpathmond.so.0 is in ld.so's cache; pathmond.h, pathmond.pc and io.pathmond.varlink are installed"
    else
        fail "libpathmond.so.0 is in ld.so's cache; pathmond.h, pathmond.pc and io.pathmond.varlink are installed" \
            "$(inside ls -l "$library" /usr/include/pathmond.h "/usr/lib/$multiarch/pkgconfig" /usr/share/varlink 2>&1)" \
            "$(inside ldconfig -p | grep pathmond)"
    fi

    tree=$work/libpathmond-$boot
    rm -rf "$tree"
    for file in "${debs[@]}"; do dpkg-deb -x "$file" "$tree"; done
    # libpathmond-dev's documentation directory, or the quick .deb's (pathmond's).
    example=$(ls "$tree"/usr/share/doc/*/examples/pathmond-status.c 2>/dev/null | head -n1)
    if flags=$(PKG_CONFIG_SYSROOT_DIR=$tree PKG_CONFIG_LIBDIR=$tree/usr/lib/$multiarch/pkgconfig \
        pkg-config --cflags --libs pathmond 2>&1) &&
        # shellcheck disable=SC2086 # pkg-config's flags are a list
        built=$(cc -Wall -Wextra -Werror "$example" $flags \
            -o "$root/usr/local/bin/pathmond-status" 2>&1); then
        pass "the shipped pathmond-status.c builds with cc and pkg-config against the package ($flags)"
    else
        fail "the shipped pathmond-status.c builds with cc and pkg-config against the package" "$flags" "$built"
        return
    fi

    # What pathctl says of the same path, in the example's words.
    json=$(inside pathctl status --json 2>/dev/null)
    expected=$(python3 -c '
import json, sys
path = json.load(sys.stdin)["path"]
word = lambda flag: "yes" if path.get(flag) else "no"
print("%s expensive=%s constrained=%s" % (path["status"], word("isExpensive"), word("isConstrained")))' \
        <<<"$json" 2>&1)
    # By its path: `inside` runs with PATH=/usr/sbin:/usr/bin:/sbin:/bin.
    output=$(inside timeout 10 /usr/local/bin/pathmond-status 2>&1)
    if [[ $output == "$expected interfaces="*eth0* ]]; then
        pass "pathmond-status (libpathmond) prints the installed pathmond's path: $output"
    else
        fail "pathmond-status (libpathmond) prints the installed pathmond's path" "printed: $output" \
            "pathctl: $expected"
    fi
    # The watch: the path at once, then it waits for changes (timeout ends it: 124).
    output=$(inside timeout 2 /usr/local/bin/pathmond-status --watch 2>&1)
    if [ $? -eq 124 ] && [[ $output == "$expected interfaces="*eth0* ]]; then
        pass "pathmond-status --watch prints the path and waits for the next"
    else
        fail "pathmond-status --watch prints the path and waits for the next" "$output"
    fi
    rm -f "$root/usr/local/bin/pathmond-status"
}
