# SPDX-License-Identifier: Apache-2.0
# The checks of booted-systemd-test for the optional RFC 8908 check of a captive portal's API
# ([captive-portal] check-api; sourced after checks.bash and checks-network.bash, whose helpers they use): with the
# units as shipped, and no drop-in, pathmond (which may open no IP socket) asks pathmond-probe through
# pathmond-probe.socket, and the probe, a sandboxed dynamic user, sends the HTTPS request.
#
# The portal's API is an HTTPS server on the far side of eth0 (192.0.2.1, in the namespace the test made), so the
# request crosses the veth: Tests/PathmondIntegrationTests/Fixtures/captive_portal_api.py, the unit tests' server,
# run by the host's python3 with a certificate from a throwaway CA made here with openssl. The probe trusts that CA
# through the system's store: the test writes it where ca-certificates keeps the bundle libcurl reads
# (/etc/ssl/certs/ca-certificates.crt), as a real portal's CA would be there already; nothing is passed to the probe.

portal_uri=https://192.0.2.1/api
# Where ISC dhclient keeps eth0's leases on Debian (MeteredLeaseDetector reads /var/lib/dhcp/dhclient.IFACE.leases).
portal_lease=/var/lib/dhcp/dhclient.eth0.leases
# The bundle Debian's libcurl verifies with by default (curl-config --ca), which ca-certificates writes; the minimal
# root has none, a host with libcurl4 has it through libcurl4's Recommends.
portal_ca_bundle=/etc/ssl/certs/ca-certificates.crt
# pathmond's own connectivity check (checks-connectivity.bash has its own checks) would call this network limited (no
# answer from the internet): off here, so that what these checks see is NetworkManager's and the portal API's.
portal_no_connectivity_check='[connectivity]\nenabled = no\n'

# A field of the path, or of an interface, as `pathctl status --json` reports it, printed as JSON.
portal_field() { # portal_field path|INTERFACE FIELD
    inside pathctl status --json 2>/dev/null | python3 -c '
import json, sys
document = json.load(sys.stdin)
where, field = sys.argv[1], sys.argv[2]
if where == "path":
    item = document.get("path", {})
else:
    item = next((i for i in document.get("interfaces", []) if i.get("name") == where), {})
print(json.dumps(item.get(field)))' "$1" "$2" 2>/dev/null
}
portal_is() { # portal_is STATE: the path's and eth0's captivePortal are both STATE
    [ "$(portal_field path captivePortal)" = "\"$1\"" ] && [ "$(portal_field eth0 captivePortal)" = "\"$1\"" ]
}
portal_announced() { [ "$(portal_field path captivePortalURI)" = "\"$portal_uri\"" ]; }
portal_state() {
    echo "path: captivePortal $(portal_field path captivePortal), URI $(portal_field path captivePortalURI)," \
        "API $(portal_field path captivePortalAPI); eth0: $(portal_field eth0 captivePortal)"
}
# One property of a NetworkManager object, as busctl prints it (type, then value).
nm_property() { # nm_property OBJECT INTERFACE PROPERTY
    inside busctl --system get-property org.freedesktop.NetworkManager "$@" 2>/dev/null
}
# The paths the server was asked for, one a line.
portal_requests() { cat "$portal_dir/requests.log" 2>/dev/null; }
portal_request_count() { portal_requests | grep -c .; }
# What /api answers from now on (the server reads the file on every request).
portal_answer() {
    printf '%s' "$1" >"$portal_dir/answer.json.new" && mv "$portal_dir/answer.json.new" "$portal_dir/answer.json"
}
# What the probes said about the portal's API (ProbeConnection's journal line, one per request).
portal_probe_lines() { inside journalctl -u 'pathmond-probe@*' -o cat --no-pager | grep -F "portal API $portal_uri"; }
portal_details() {
    printf '%s\n' "$(portal_state)" "server asked for: $(portal_requests | paste -sd' ')" \
        "unit: $(prop pathmond.service ActiveState), MainPID $(main_pid)," \
        "drop-ins: $(prop pathmond.service DropInPaths)" \
        "$(inside journalctl -u pathmond -u 'pathmond-probe@*' -n 8 --no-pager -o cat)"
}
# systemd-analyze security's overall exposure of UNIT.
portal_exposure() { # portal_exposure UNIT
    inside systemd-analyze security "$1" --no-pager 2>&1 |
        sed -n "s/.*Overall exposure level for $1: \([0-9.]*\).*/\1/p"
}

# The CA, the server's certificate (its IP address as subjectAltName, as curl verifies it), and the server in the
# far namespace; prints nothing, fails when the server did not say "ready".
portal_server_start() {
    portal_dir=$work/portal-$boot
    mkdir -p "$portal_dir"
    local ec=(-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes)
    openssl req -x509 "${ec[@]}" -keyout "$portal_dir/ca.key" -out "$portal_dir/ca.pem" -days 1 \
        -subj "/CN=pathmond booted test CA" -addext basicConstraints=critical,CA:TRUE \
        -addext keyUsage=critical,keyCertSign 2>>"$portal_dir/openssl.log" &&
        openssl req "${ec[@]}" -keyout "$portal_dir/server.key" -out "$portal_dir/server.csr" \
            -subj /CN=192.0.2.1 2>>"$portal_dir/openssl.log" &&
        printf 'subjectAltName=IP:192.0.2.1\nextendedKeyUsage=serverAuth\n' >"$portal_dir/server.ext" &&
        openssl x509 -req -in "$portal_dir/server.csr" -CA "$portal_dir/ca.pem" -CAkey "$portal_dir/ca.key" \
            -CAcreateserial -out "$portal_dir/server.pem" -days 1 -extfile "$portal_dir/server.ext" \
            2>>"$portal_dir/openssl.log" || return 1
    portal_answer '{"captive": true, "seconds-remaining": 5}'
    ip netns exec "$ns-far" python3 Tests/PathmondIntegrationTests/Fixtures/captive_portal_api.py "$portal_dir" \
        192.0.2.1 >"$portal_dir/server.out" 2>&1 &
    portal_server=$!
    ready() { grep -q '^ready' "$portal_dir/server.out"; }
    eventually 10 ready
}

portal_server_stop() {
    [ -n "${portal_server:-}" ] || return 0
    kill "$portal_server" 2>/dev/null
    wait "$portal_server" 2>/dev/null
    portal_server=
}

# What a DHCP server announcing a portal leaves on a Debian host: ISC dhclient's lease for eth0, in the text dhclient
# writes (option 114 under ISC's name for it, default-url; times in UTC, weekday first; renew and rebind at 1/2 and
# 7/8 of the lease). The test writes it in the client's stead (eth0 was configured statically, and there is no DHCP
# server on the far side), whole and renamed into place; dhclient itself appends to the file, which it keeps open.
# The address is eth0's own (a lease for another address is ignored) and the lease runs for a day.
portal_write_lease() {
    local now renew rebind expire
    now=$(date +%s)
    renew=$(date -u -d "@$((now + 43200))" '+%w %Y/%m/%d %H:%M:%S')
    rebind=$(date -u -d "@$((now + 75600))" '+%w %Y/%m/%d %H:%M:%S')
    expire=$(date -u -d "@$((now + 86400))" '+%w %Y/%m/%d %H:%M:%S')
    inside sh -c "cat >$portal_lease.new && mv $portal_lease.new $portal_lease" <<EOF
default-duid "\\000\\001\\000\\001\\055\\221\\127\\030\\002\\000\\000\\000\\000\\012";
lease {
  interface "eth0";
  fixed-address 192.0.2.10;
  option subnet-mask 255.255.255.0;
  option routers 192.0.2.1;
  option dhcp-lease-time 86400;
  option dhcp-message-type 5;
  option dhcp-server-identifier 192.0.2.1;
  option default-url "$portal_uri";
  renew $renew;
  rebind $rebind;
  expire $expire;
}
EOF
}

# Restarts pathmond on the unit as it now is; prints the new MainPID. systemd refuses a sixth start within 10 s
# (the default StartLimitBurst=5, StartLimitIntervalSec=10s: "start-limit-hit"), and the checks before these start
# pathmond too (a full run on Debian 13 hit it): the counter is reset first, as the limit is not what is checked.
portal_restart() {
    inside systemctl daemon-reload
    inside systemctl reset-failed pathmond.service
    inside systemctl restart pathmond.service
    main_pid
}

check_portal() {
    local start made_dhcp=no made_certs=no made_ssl=no had_bundle=no pid dropins_before families_before
    start=$(now_ms)
    dropins_before=$(prop pathmond.service DropInPaths)
    families_before=$(prop pathmond.service RestrictAddressFamilies)
    if ! portal_server_start; then
        fail "an RFC 8908 API on https://192.0.2.1 (test CA, far side of eth0)" \
            "$(cat "$portal_dir/openssl.log" "$portal_dir/server.out" 2>/dev/null | tail -n 5)"
        portal_server_stop
        return
    fi
    # NetworkManager with its connectivity check off (as here, and as Debian ships it without
    # network-manager-config-connectivity-debian) reports FULL for every activated device with a default route (its
    # "fake" result): pathmond must not take it for "open". The lease file read below is ifupdown's dhclient's, on a
    # host without NetworkManager: NetworkManager is stopped for those checks (it leaves eth0 configured as it is)
    # and started again after.
    local portal_before device nm_view
    printf "$portal_no_connectivity_check" | write_config
    inside systemctl reload pathmond.service
    eventually 5 portal_is unknown
    portal_before=$(portal_field path captivePortal)
    device=$(inside busctl --system call org.freedesktop.NetworkManager /org/freedesktop/NetworkManager \
        org.freedesktop.NetworkManager GetDeviceByIpIface s eth0 2>/dev/null | sed -n 's/^o "\(.*\)"$/\1/p')
    nm_view="ConnectivityCheckEnabled $(nm_property /org/freedesktop/NetworkManager org.freedesktop.NetworkManager \
        ConnectivityCheckEnabled), eth0 Ip4Connectivity $(nm_property "$device" org.freedesktop.NetworkManager.Device \
        Ip4Connectivity) (4 is FULL)"
    echo "# [$boot] portal: before: pathmond's captivePortal $portal_before; NetworkManager: $nm_view"
    if eventually 10 portal_is unknown; then
        pass "portal: NetworkManager's made-up FULL with its check off is not taken for open (unknown; $nm_view)"
    else
        fail "portal: NetworkManager's made-up FULL with its check off is not taken for open" \
            "captivePortal $(portal_field path captivePortal); $nm_view"
    fi
    inside systemctl stop NetworkManager.service
    nm_forgotten() { portal_is unknown; }
    if ! eventually 15 nm_forgotten || ! inside ip -4 address show dev eth0 | grep -q 'inet 192.0.2.10/24'; then
        fail "portal: with NetworkManager stopped eth0 keeps its address and pathmond's captivePortal is unknown" \
            "$(inside ip -4 address show dev eth0 2>&1 | paste -sd' ')" "$(portal_details)"
    fi
    inside test -d /var/lib/dhcp || made_dhcp=yes
    inside test -d /etc/ssl || made_ssl=yes
    inside test -d /etc/ssl/certs || made_certs=yes
    ! inside test -e "$portal_ca_bundle" || had_bundle=yes
    inside mkdir -p /var/lib/dhcp /etc/ssl/certs
    # The test CA in the system's store, beside whatever ca-certificates put there (kept aside, put back after).
    [ "$had_bundle" = no ] || inside cp -p "$portal_ca_bundle" "$portal_ca_bundle.pathmond-test"
    inside sh -c "cat >>$portal_ca_bundle && chmod 0644 $portal_ca_bundle" <"$portal_dir/ca.pem"
    printf "[captive-portal]\ncheck-api = true\n$portal_no_connectivity_check" | write_config

    # The units as shipped: a reload turns the check on, no drop-in and no restart.
    pid=$(main_pid)
    inside systemctl reload pathmond.service
    portal_write_lease
    local t0
    t0=$(now_ms)
    if eventually 20 portal_announced; then
        pass "portal: dhclient's lease (option default-url) read: the path's captivePortalURI is $portal_uri ($(
            elapsed "$t0") ms after the write)"
    else
        fail "portal: the path's captivePortalURI is the one in dhclient's lease ($portal_uri) within 20 s" \
            "$(portal_details)"
    fi
    if eventually 30 portal_is captive; then
        pass "portal, units as shipped, check-api = true after a reload: path and eth0 captivePortal \"captive\" ($(
            elapsed "$t0") ms after the lease; API $(portal_field path captivePortalAPI))"
    else
        fail "portal, units as shipped: pathctl status --json shows path and eth0 captive within 30 s" \
            "$(portal_details)"
    fi
    # Who asked: a pathmond-probe@ instance (a dynamic user) said so in the journal; pathmond kept its sandbox.
    local families exposure probe_exposure probe_line
    families=$(prop pathmond.service RestrictAddressFamilies)
    exposure=$(portal_exposure pathmond.service)
    probe_exposure=$(portal_exposure pathmond-probe@0.service)
    probe_line=$(portal_probe_lines | tail -n 1)
    if grep -qF 'captive true' <<<"$probe_line" &&
        [ "$(tr ' ' '\n' <<<"$families" | sort | paste -sd' ')" = "AF_NETLINK AF_UNIX" ] &&
        [ "$(prop pathmond.service DropInPaths)" = "$dropins_before" ] && [ "$(main_pid)" = "$pid" ] &&
        [ -n "$exposure" ] && awk "BEGIN { exit !($exposure <= 2.0) }"; then
        pass "portal: the request was pathmond-probe@.service's ($probe_line); pathmond keeps $(
            )RestrictAddressFamilies=$families and no drop-in (exposure: pathmond.service $exposure, $(
            )pathmond-probe@0.service ${probe_exposure:-not reported})"
    else
        fail "portal: the probe made the request; pathmond.service: AF_UNIX AF_NETLINK, no drop-in, exposure <= 2.0" \
            "probe: '$probe_line'; pathmond: $families, drop-ins '$(prop pathmond.service DropInPaths)'," \
            "exposure '${exposure:-not reported}', probe's '${probe_exposure:-not reported}'" "$(portal_details)"
    fi
    local status
    inside pathctl check --unmetered >/dev/null 2>&1
    status=$?
    if [ "$status" = 4 ] && portal_is captive; then
        pass "portal: pathctl check --unmetered exits 4 while captive"
    else
        fail "portal: pathctl check --unmetered exits 4 while captive" "exit $status" "$(portal_state)"
    fi
    # The user signed in at the portal: nothing tells pathmond but the end of the session, when it asks again.
    local asked
    asked=$(portal_request_count)
    # seconds-remaining again, so that pathmond keeps asking (the check without the CA below needs a next request).
    portal_answer '{"captive": false, "seconds-remaining": 2}'
    t0=$(now_ms)
    if portal_is captive && eventually 30 portal_is open && [ "$(portal_request_count)" -gt "$asked" ]; then
        pass "portal: the answer turns to {\"captive\": false, …}: open $(elapsed "$t0") ms later, at the $(
            )seconds-remaining re-check ($(portal_request_count) requests in all, each $(portal_requests | sort -u |
                paste -sd' '))"
    else
        fail "portal: after {\"captive\": false} pathmond asks again when seconds-remaining runs out and says open" \
            "$(portal_details)"
    fi
    if portal_is open && [ "$(main_pid)" = "$pid" ] && active && inside pathctl check --unmetered >/dev/null 2>&1
    then
        pass "portal: open: pathctl check --unmetered exits 0; MainPID $pid kept throughout"
    else
        fail "portal: open: pathctl check --unmetered exits 0 and pathmond runs on" "MainPID $pid -> $(main_pid)" \
            "$(portal_details)"
    fi

    # A store that does not vouch for the portal (the test's CA taken out; where the root has no store of its own,
    # another throwaway CA in its place): the probe refuses the answer, pathmond says why at warning, keeps the last
    # answer and runs on.
    if [ "$had_bundle" = yes ]; then
        inside cp -p "$portal_ca_bundle.pathmond-test" "$portal_ca_bundle"
    else
        openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout "$portal_dir/other.key" \
            -out "$portal_dir/other.pem" -days 1 -subj "/CN=pathmond booted test, another CA" \
            -addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign 2>>"$portal_dir/openssl.log"
        inside sh -c "cat >$portal_ca_bundle" <"$portal_dir/other.pem"
    fi
    portal_answer '{"captive": true, "seconds-remaining": 2}'
    unverified() {
        inside journalctl -u pathmond -p warning -o cat --no-pager "_PID=$pid" | grep -F 'captive portal API' |
            grep -F "$portal_uri" | grep -iF 'certificate problem'
    }
    t0=$(now_ms)
    if eventually 30 unverified >/dev/null && portal_is open && [ "$(main_pid)" = "$pid" ]; then
        pass "portal: a certificate the system's store does not vouch for gives no answer ($(elapsed "$t0") ms): $(
            unverified | tail -n 1 | cut -c1-160); the path keeps open"
    else
        fail "portal: without the CA the probe refuses the answer, pathmond warns and keeps the last answer" \
            "$(portal_details)"
    fi

    # As before: no configuration, CA or lease of the test's (check_purge compares the whole root).
    portal_server_stop
    if [ "$had_bundle" = yes ]; then
        inside mv "$portal_ca_bundle.pathmond-test" "$portal_ca_bundle"
    else
        inside rm -f "$portal_ca_bundle"
    fi
    inside rm -f "$portal_lease"
    [ "$made_certs" = no ] || inside rmdir /etc/ssl/certs
    [ "$made_ssl" = no ] || inside rmdir /etc/ssl
    [ "$made_dhcp" = no ] || inside rmdir /var/lib/dhcp
    printf "$portal_no_connectivity_check" | write_config
    pid=$(portal_restart)
    inside systemctl start NetworkManager.service
    connected_eth0() { inside nmcli -t -f GENERAL.STATE device show eth0 2>/dev/null | grep -q '^GENERAL.STATE:100'; }
    gone() {
        [ "$(portal_field path captivePortalURI)" = null ] &&
            [ "$(portal_field path captivePortal)" = "$portal_before" ]
    }
    if eventually 30 connected_eth0 && eventually 15 gone &&
        [ "$(prop pathmond.service DropInPaths)" = "$dropins_before" ] &&
        [ "$(prop pathmond.service RestrictAddressFamilies)" = "$families_before" ]; then
        pass "portal: cleaned up: the unit as shipped runs on (RestrictAddressFamilies=$families_before), $(
            )no URI, NetworkManager manages eth0 again, captivePortal $portal_before as before"
    else
        fail "portal: cleaned up: the shipped unit alone, no URI, NetworkManager back, captivePortal as before" \
            "NetworkManager: $(inside nmcli -t -f GENERAL.STATE device show eth0 2>&1)" \
            "RestrictAddressFamilies: $(prop pathmond.service RestrictAddressFamilies)" "$(portal_details)"
    fi
    echo "# [$boot] portal checks: $(elapsed "$start") ms"
}
