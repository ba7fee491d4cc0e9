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
}
