#!/usr/bin/env bash
# Kill a simulated sweep (kill -9) midway, run the same command again, and
# check, for exhaustive and smgd search: nothing recorded is measured again,
# and the tables are byte-identical
# to an uninterrupted run's (SMPI time is deterministic). Also: a changed
# measurement setting is refused naming the key; --fresh starts over and keeps
# the old journal.
set -u
. "$(dirname "$0")/lib.sh"
command -v smpirun >/dev/null || { echo "smpirun not found (apt-get install libsimgrid-dev)"; exit 77; }

platform=conf/platforms/grig.xml
np=13
write_cfg() { # NAME RSE [SEARCH]
    cat > "$tmp/$1.cfg" <<CFG
output        = "$tmp/$1";
collectives   = ["bcast", "reduce"];
procs         = [2, 5, 8, 13];
message_sizes = { min = 1; max = 16384; factor = 8; };
segment_sizes = [0, 512, 1024, 2048, 4096, 8192];
measure       = { warmup = 1; min_reps = 3; max_reps = 10; rse = $2; };
search        = "${3:-exhaustive}";
CFG
}
sweep() { # NAME [args]
    local name=$1; shift
    smpirun -np $np -platform $platform --cfg=smpi/simulate-computation:no \
        --log=root.thres:critical build/autotune-smpi -c "$tmp/$name.cfg" "$@"
}

# One kill-and-resume cycle for a search strategy: NAME SEARCH.
kill_and_resume() {
    local full=$1-full part=$1-part
    write_cfg $full 0.05 $2
    write_cfg $part 0.05 $2
    start=$SECONDS
    sweep $full > "$tmp/$full.out" 2>&1 || { cat "$tmp/$full.out"; fail "uninterrupted sweep"; }
    total=$(records "$tmp/$full/journal")
    echo "$2 uninterrupted: $total records in $((SECONDS - start)) s"

    # Start the same sweep in its own process group; kill it with SIGKILL once
    # about a third of the records are on disk.
    killed_at=$(kill_at_records "$tmp/$part/journal" $((total / 3)) \
        "$tmp/${part}1.out" sweep $part)
    echo "$2 killed with $killed_at of $total records on disk"
    [ "$killed_at" -lt "$total" ] || fail "the sweep finished before it could be killed"
    [ -e "$tmp/$part/optimal.csv" ] && fail "a killed sweep left an optimal table"

    sweep $part > "$tmp/${part}2.out" 2>&1 || { cat "$tmp/${part}2.out"; fail "resumed sweep"; }
    new=$(sed -n 's/.* \([0-9]*\) experiments\{0,1\} run.*/\1/p' "$tmp/${part}2.out")
    na=$(sed -n 's/.*, \([0-9]*\) not applicable.*/\1/p' "$tmp/${part}2.out")
    base=$(sed -n 's/.*baseline default\/0 ([^)]*): \([0-9]*\) measured.*/\1/p' "$tmp/${part}2.out")
    echo "$2 resumed: $new experiments run, $na not applicable, ${base:-0} baseline"
    [ $((new + na + ${base:-0})) -eq $((total - killed_at)) ] ||
        fail "resume re-measured: ran $((new + na + ${base:-0})), expected $((total - killed_at))"
    [ "$(records "$tmp/$part/journal")" -eq "$total" ] || fail "journal record count differs"
    for t in optimal.csv measurements.csv speedup.csv; do
        cmp "$tmp/$full/$t" "$tmp/$part/$t" || fail "$t differs from the uninterrupted run"
    done
    cmp <(grep '^m ' "$tmp/$full/journal" | sort) <(grep '^m ' "$tmp/$part/journal" | sort) ||
        fail "journal records differ from the uninterrupted run"
}

kill_and_resume a exhaustive
kill_and_resume b smgd

# A setting the records depend on may not change under them.
write_cfg a-part 0.1
if sweep a-part > "$tmp/conflict.out" 2>&1; then
    fail "a conflicting config was accepted"
elif ! grep -q "conflicts with the recorded sweep: measure.rse (journal 0.05, config 0.1); use --fresh" "$tmp/conflict.out"; then
    fail "conflict message: $(grep -m1 conflict "$tmp/conflict.out")"
fi
# Nor may the simulated network: a Grig journal is not resumed on Frodo,
# nor under another eager model, and the refusal leaves it as it was.
before=$(md5sum < "$tmp/a-full/journal")
if platform=conf/platforms/frodo.xml sweep a-full > "$tmp/other.out" 2>&1; then
    fail "a journal swept on grig was resumed on frodo"
elif ! grep -q "conflicts with the recorded sweep: smpi.platform (journal grig, config frodo)" "$tmp/other.out"; then
    fail "platform conflict message: $(grep -m1 conflict "$tmp/other.out")"
fi
if sweep a-full --cfg=smpi/async-small-thresh:1024 > "$tmp/eager.out" 2>&1; then
    fail "a journal was resumed under another eager model"
elif ! grep -q "smpi.async_small_thresh (journal 0, config 1024)" "$tmp/eager.out"; then
    fail "eager model conflict message: $(grep -m1 conflict "$tmp/eager.out")"
fi
[ "$(md5sum < "$tmp/a-full/journal")" = "$before" ] || fail "a refused resume changed the journal"
# --fresh starts over; the old journal is kept (in old/1/).
sweep a-part --fresh > "$tmp/fresh.out" 2>&1 || fail "--fresh sweep"
[ -f "$tmp/a-part/old/1/journal" ] && [ "$(records "$tmp/a-part/old/1/journal")" -eq "$(records "$tmp/a-full/journal")" ] ||
    fail "--fresh did not keep the old journal"
grep -q " 0 taken from the journal" "$tmp/fresh.out" || fail "--fresh reused records"

echo "$fails failure(s)"
[ $fails -eq 0 ]
