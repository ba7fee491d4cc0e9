# SPDX-License-Identifier: Apache-2.0
# The checks of booted-systemd-test that concern pathmond's structured journal records, their catalog and the
# Varlink registry (sourced after checks.bash, whose helpers they use). The IDs are those of
# Sources/pathmond/Systemd/JournalRecord.swift.
path_changed_id=b5af785cefbf499ba90b67d62c2e7983
configuration_refused_id=29ec4136c0a74b7fb05a275beda00ee2

# pathmond's records of one MESSAGE_ID from one process, as JSON lines (fields, not text).
records() { # records MESSAGE_ID PID
    inside journalctl --no-pager -o json "MESSAGE_ID=$1" "_PID=$2" 2>/dev/null
}
record_count() { records "$1" "$2" | grep -c .; }
# One field of each record, a line per record ("-" where the record lacks it).
record_fields() { # record_fields MESSAGE_ID PID FIELD...
    local id=$1 pid=$2
    shift 2
    records "$id" "$pid" | python3 -c '
import json, sys
for line in sys.stdin:
    record = json.loads(line)
    print(" ".join(str(record.get(name, "-")) for name in sys.argv[1:]))' "$@"
}

# One path change, one record: set-constrained and back, two changes, two records, each with its fields.
check_journal_records() {
    local pid before after fields expected
    pid=$(main_pid)
    eventually 10 eth0_field_is isConstrained false
    before=$(record_count $path_changed_id "$pid")
    inside pathctl set-constrained eth0 >/dev/null 2>&1
    eventually 10 eth0_field_is isConstrained true
    inside pathctl set-constrained --off eth0 >/dev/null 2>&1
    eventually 10 eth0_field_is isConstrained false
    has_two() { [ "$(record_count $path_changed_id "$pid")" -ge $((before + 2)) ]; }
    eventually 10 has_two
    after=$(record_count $path_changed_id "$pid")
    fields=$(record_fields $path_changed_id "$pid" PRIORITY PATHMOND_STATUS PATHMOND_CONSTRAINED PATHMOND_CAUSE \
        INTERFACE | tail -n 2)
    expected=$'6 satisfied yes policy eth0\n6 satisfied no policy eth0'
    if [ "$after" -eq $((before + 2)) ] && [ "$fields" = "$expected" ]; then
        pass "journalctl MESSAGE_ID=$path_changed_id: one record per path change, with fields: $(tr '\n' ';' <<<"$fields")"
        # Printed with the pass, for the report: a record as journalctl shows it.
        echo "    $(records $path_changed_id "$pid" | tail -n 1 | python3 -c '
import json, sys
r = json.loads(sys.stdin.read())
print(" ".join(f"{k}={r[k]}" for k in sorted(r) if not k.startswith("_") and not k.startswith("__")))')"
    else
        fail "journalctl MESSAGE_ID=$path_changed_id: one record per path change, with fields" \
            "records $before -> $after (expected +2); last two: $fields" \
            "$(inside journalctl -u pathmond -n 6 --no-pager -o verbose | grep -E 'MESSAGE|PATHMOND|INTERFACE')"
    fi
    # The history counts the same changes: pathctl log's last two entries are the policy's.
    local text
    text=$(inside journalctl -u pathmond -o cat "MESSAGE_ID=$path_changed_id" -n 1)
    if [[ "$text" == "path changed "* ]]; then
        pass "the record's MESSAGE reads as the stderr line did: $text"
    else
        fail "the record's MESSAGE reads as the stderr line did" "'$text'"
    fi
}

# journalctl -x: the catalog text under the record, installed by the package and compiled by systemd's trigger.
check_journal_catalog() {
    local explained
    explained=$(inside journalctl -x -u pathmond --no-pager "MESSAGE_ID=$path_changed_id" -n 1)
    if grep -q "pathmond derived a new system network path" <<<"$explained" &&
        grep -q "Subject: The network path changed" <<<"$explained"; then
        pass "journalctl -x shows the catalog text: $(grep -m1 -o 'Subject: .*' <<<"$explained")"
    else
        fail "journalctl -x shows pathmond's catalog text" "$explained" \
            "catalog: $(inside ls -l /usr/lib/systemd/catalog/pathmond.catalog 2>&1)" \
            "$(inside journalctl --list-catalog 2>&1 | grep -c pathmond) catalog entries of pathmond" \
            "trigger: $(inside grep -h catalog /var/lib/dpkg/info/systemd.triggers 2>&1)"
    fi
}

# A field's value is data: a configuration path holding newlines and "PRIORITY=0" / "MESSAGE_ID=…" lines stays in
# CONFIG_FILE=, and forges neither a priority nor a record.
check_journal_hostile_field() {
    local unit=pathmond-hostile-field forged=00000000000000000000000000000001 result
    inside sh -c "name=\$(printf '/tmp/evil\\nPRIORITY=0\\nMESSAGE_ID=$forged\\nx'); \
        printf '[interface eth0]\\nbroken line\\n' >\"\$name\"; \
        systemd-run --quiet --wait --unit $unit -p User=pathmond /usr/sbin/pathmond --config \"\$name\" \
            --socket /tmp/hostile.sock --state-dir /tmp/hostile-state" >/dev/null 2>&1
    result=$(inside journalctl --no-pager -o json -u $unit "MESSAGE_ID=$configuration_refused_id" | python3 -c '
import json, sys
records = [json.loads(line) for line in sys.stdin if line.strip()]
def text(value):
    return bytes(value).decode() if isinstance(value, list) else value
if len(records) != 1:
    print(f"{len(records)} records"); sys.exit(1)
r = records[0]
if text(r.get("CONFIG_FILE")) != "/tmp/evil\nPRIORITY=0\nMESSAGE_ID='$forged'\nx":
    print("CONFIG_FILE", repr(r.get("CONFIG_FILE"))); sys.exit(1)
if r.get("PRIORITY") != "3" or r.get("CONFIG_LINE") != "2":
    print("PRIORITY", r.get("PRIORITY"), "CONFIG_LINE", r.get("CONFIG_LINE")); sys.exit(1)
print("CONFIG_FILE=" + repr(text(r["CONFIG_FILE"])), "PRIORITY=3 CONFIG_LINE=2")')
    local status=$?
    local forged_count
    forged_count=$(inside journalctl --no-pager -o json -u $unit "MESSAGE_ID=$forged" | grep -c .)
    forged_count=$((forged_count + $(inside journalctl --no-pager -o json -u $unit PRIORITY=0 | grep -c .)))
    if [ $status -eq 0 ] && [ "$forged_count" -eq 0 ]; then
        pass "a field holding newlines stays one field (configuration refused): $result; nothing forged"
    else
        fail "a field holding newlines stays one field, forging no PRIORITY= or MESSAGE_ID=" \
            "$result; forged records: $forged_count" \
            "$(inside journalctl -u $unit -n 5 --no-pager -o verbose)"
    fi
    inside systemctl reset-failed $unit >/dev/null 2>&1
}

# The Varlink registry: the socket unit links io.pathmond there (systemd 260 lists it; older ones keep the link).
check_registry() {
    local target systemd_version
    systemd_version=$(inside dpkg-query -W -f '${Version}' systemd)
    target=$(inside readlink /run/varlink/registry/io.pathmond)
    if [ "$target" = /run/pathmond/io.pathmond ] && inside pathctl --socket /run/varlink/registry/io.pathmond status \
        >/dev/null 2>&1; then
        pass "/run/varlink/registry/io.pathmond links to the socket, and pathctl reaches pathmond through it"
    else
        fail "/run/varlink/registry/io.pathmond links to pathmond's socket" "readlink: '$target'" \
            "$(inside ls -la /run/varlink/registry 2>&1)"
    fi
    if inside test -x /usr/bin/varlinkctl; then
        local info
        info=$(inside varlinkctl info /run/varlink/registry/io.pathmond 2>&1)
        if grep -q "io.pathmond" <<<"$info"; then
            pass "varlinkctl info /run/varlink/registry/io.pathmond (systemd $systemd_version): $(grep -m1 -i product <<<"$info" | xargs)"
        else
            fail "varlinkctl info /run/varlink/registry/io.pathmond" "$info"
        fi
        if inside varlinkctl --help 2>&1 | grep -q list-registry; then
            if inside varlinkctl list-registry 2>&1 | grep -q io.pathmond; then
                pass "varlinkctl list-registry lists io.pathmond"
            else
                fail "varlinkctl list-registry lists io.pathmond" "$(inside varlinkctl list-registry 2>&1)"
            fi
        else
            echo "# [$boot] varlinkctl of systemd $systemd_version has no list-registry (systemd 260 and later)"
        fi
    else
        echo "# [$boot] no varlinkctl in systemd $systemd_version (255 and later); the link alone is checked"
    fi
}

run_journal_checks() {
    check_journal_records
    check_journal_catalog
    check_journal_hostile_field
    check_registry
    check_data_limit
}

# A data limit on eth0's network (issue 43), as a user sets one: its warning at 10 %, so that what the network used
# this cycle is already inside the band where pathmond reads the counters every second (from a tenth of the limit
# below the warning: docs/usage.md), and the limit 10 times what the warning leaves room for. Datagrams to the
# gateway's discard port carry the usage past the warning (constrained, the warning's record), then past the limit
# (expensive too, the limit's record, `pathctl status` saying why); `set-limit --off` gives the path back. Each
# 1,000-byte datagram counts 1,042 bytes sent on eth0 and at most 590 received (the ICMP error), so the first batch
# stays under the limit. Sent from inside the root: only eth0's counters move.
data_limit_warning_id=b6c92994abf64e6ea94b63d20b3cccce
data_limit_reached_id=16e6fc98f819400ebd61d6e73931b28b
eth0_cycle_bytes() {
    inside pathctl usage --json 2>/dev/null | python3 -c '
import json, sys
document = json.load(sys.stdin)
networks = document.get("networks", []) if isinstance(document, dict) else document
eth0 = next((n for n in networks if "eth0" in n.get("interfaces", [])), None)
print(eth0["cycle"]["sent"] + eth0["cycle"]["received"] if eth0 else "")'
}
send_to_gateway() { # send_to_gateway DATAGRAMS: 1,000 bytes each, to 192.0.2.1's discard port
    inside bash -c "for i in \$(seq $1); do printf '%01000d' 0 >/dev/udp/192.0.2.1/9; done" 2>/dev/null || true
}
check_data_limit() {
    local pid used limit warning warned reached status
    pid=$(main_pid)
    used=$(eth0_cycle_bytes)
    if [ -z "$used" ]; then
        fail "a data limit on eth0's network" "pathctl usage --json counts no network on eth0: $(inside pathctl usage 2>&1)"
        return
    fi
    limit=$((10 * used + 100000 > 300000 ? 10 * used + 100000 : 300000))
    warning=10
    warned=$(record_count $data_limit_warning_id "$pid")
    reached=$(record_count $data_limit_reached_id "$pid")
    if ! inside pathctl set-limit eth0 "$limit" --warning "$warning" >/dev/null 2>&1; then
        fail "pathctl set-limit eth0 $limit --warning $warning" \
            "$(inside pathctl set-limit eth0 "$limit" --warning "$warning" 2>&1)"
        return
    fi
    send_to_gateway $(((limit / 10 - used + 2000 + 1041) / 1042))
    if eventually 5 eth0_field_is isConstrained true && eth0_field_is isExpensive false &&
        [ "$(record_count $data_limit_warning_id "$pid")" -gt "$warned" ]; then
        pass "past a $limit-byte limit's $warning % warning: constrained, not yet expensive, MESSAGE_ID=$data_limit_warning_id"
    else
        fail "past a $limit-byte limit's $warning % warning: constrained, not yet expensive, the warning's record" \
            "constrained $(eth0_field isConstrained), expensive $(eth0_field isExpensive), records" \
            "$(record_count $data_limit_warning_id "$pid") (before $warned); used $used -> $(eth0_cycle_bytes)"
    fi
    send_to_gateway $(((limit - used + 1041) / 1042))
    if eventually 5 eth0_field_is isExpensive true && [ "$(record_count $data_limit_reached_id "$pid")" -gt "$reached" ]; then
        status=$(inside pathctl status 2>&1)
        if grep -q "data limit" <<<"$status"; then
            pass "past the limit: expensive too, MESSAGE_ID=$data_limit_reached_id; $(grep -m1 'data limit' <<<"$status")"
        else
            fail "past the limit, pathctl status says why" "$status"
        fi
    else
        fail "past the limit: expensive too, the limit's record" \
            "expensive $(eth0_field isExpensive), records $(record_count $data_limit_reached_id "$pid") (before" \
            "$reached); used $used -> $(eth0_cycle_bytes)"
    fi
    inside pathctl set-limit eth0 --off >/dev/null 2>&1
    if eventually 5 eth0_field_is isExpensive false && eth0_field_is isConstrained false; then
        pass "set-limit --off: neither expensive nor constrained again"
    else
        fail "set-limit --off gives the path back" "expensive $(eth0_field isExpensive), constrained $(eth0_field isConstrained)"
    fi
}
