#!/usr/bin/env bash
# ranks_per_node under SMPI, on 4 simulated Grig nodes of 4 ranks (hostfile
# `grig-N:4` lines): a sweep at 2 and 4 ranks per node (2 nodes x 2 ranks,
# 2 x 4, 4 x 2, 1 x 4) killed with kill -9 midway and run again measures
# nothing twice and ends with the uninterrupted run's journal records and
# tables, for exhaustive search and for the surrogate (whose pipelines
# run on whole nodes inside the point's). Each communicator is the
# hostfile's nodes, block by block (AUTOTUNE_TRACE_COMMS says its ranks).
set -u
. "$(dirname "$0")/lib.sh"
command -v smpirun >/dev/null || { echo "smpirun not found (apt-get install libsimgrid-dev)"; exit 77; }

platform=conf/platforms/grig.xml
np=16
for n in 0 1 2 3; do echo "grig-$n:4"; done > "$tmp/hosts"
write_cfg() { # NAME SEARCH
    cat > "$tmp/$1.cfg" <<CFG
output         = "$tmp/$1";
collectives    = ["bcast", "reduce"];
procs          = [4, 8];
ranks_per_node = [2, 4];
message_sizes  = { min = 1; max = 16384; factor = 8; };
segment_sizes  = [0, 1024, 4096];
measure        = { warmup = 0; min_reps = 2; max_reps = 5; rse = 0.05; };
search         = "$2";
CFG
}
sweep() { smpi_hosts_sweep $np "$@"; }

kill_and_resume() { # NAME SEARCH [COMMUNICATOR...]: those besides the grid's
    local full=$1-full part=$1-part
    write_cfg $full $2
    write_cfg $part $2
    AUTOTUNE_TRACE_COMMS=1 sweep $full > "$tmp/$full.out" 2>&1 || { cat "$tmp/$full.out"; fail "$2: uninterrupted sweep"; return; }
    # hosts of 4 ranks each, in rank order: 2 per node takes the first 2
    # of each host, 4 per node whole hosts
    grep '^autotune: communicator' "$tmp/$full.out" | sort > "$tmp/$full.comms"
    { cat <<WANT
autotune: communicator of 4 ranks, 2 per node: 0 1 4 5
autotune: communicator of 4 ranks, 4 per node: 0 1 2 3
autotune: communicator of 8 ranks, 2 per node: 0 1 4 5 8 9 12 13
autotune: communicator of 8 ranks, 4 per node: 0 1 2 3 4 5 6 7
WANT
      for c in "${@:3}"; do echo "autotune: communicator of $c"; done
    } | sort > "$tmp/want.comms"
    cmp "$tmp/want.comms" "$tmp/$full.comms" || fail "$2: communicators: $(cat "$tmp/$full.comms")"
    total=$(records "$tmp/$full/journal")
    # every layout of the grid was swept: procs,ppn pairs in optimal.csv
    layouts=$(cut -d, -f2,3 "$tmp/$full/optimal.csv" | tail -n +2 | sort -u | tr '\n' ' ')
    [ "$layouts" = "4,2 4,4 8,2 8,4 " ] || fail "$2: layouts swept: $layouts"
    killed_at=$(kill_at_records "$tmp/$part/journal" $((total / 3)) \
        "$tmp/${part}1.out" sweep $part)
    echo "$2: killed with $killed_at of $total records on disk"
    [ "$killed_at" -gt 0 ] && [ "$killed_at" -lt "$total" ] ||
        fail "$2: the sweep was not killed midway ($killed_at of $total)"
    sweep $part > "$tmp/${part}2.out" 2>&1 || { cat "$tmp/${part}2.out"; fail "$2: resumed sweep"; return; }
    new=$(sed -n 's/.* \([0-9]*\) experiments\{0,1\} run.*/\1/p' "$tmp/${part}2.out")
    na=$(sed -n 's/.*, \([0-9]*\) not applicable.*/\1/p' "$tmp/${part}2.out")
    base=$(sed -n 's/.*baseline default\/0 ([^)]*): \([0-9]*\) measured.*/\1/p' "$tmp/${part}2.out")
    [ $((new + na + ${base:-0})) -eq $((total - killed_at)) ] ||
        fail "$2: resume ran $((new + na + ${base:-0})), expected $((total - killed_at))"
    for t in optimal.csv measurements.csv speedup.csv; do
        [ -s "$tmp/$full/$t" ] || fail "$2: no $t"
        cmp "$tmp/$full/$t" "$tmp/$part/$t" || fail "$2: $t differs from the uninterrupted run"
    done
    [ "$(grep -c '^m ' "$tmp/$full/journal")" -gt 0 ] || fail "$2: no records"
    cmp <(grep '^m ' "$tmp/$full/journal" | sort) <(grep '^m ' "$tmp/$part/journal" | sort) ||
        fail "$2: journal records differ from the uninterrupted run"
}

kill_and_resume a exhaustive
# a pipeline of 2 ranks inside 4 at 2 per node: one whole node
kill_and_resume b surrogate "2 ranks, 2 per node: 0 1"
# every record (the surrogate's pipelines too) is on whole nodes
grep '^m ' "$tmp/b-full/journal" | awk '{print $2, $3, $4}' | sort -u > "$tmp/b.layouts"
[ -s "$tmp/b.layouts" ] || fail "no records to check"
awk '$2 % $3 != 0 { print "not whole nodes: " $0; bad = 1 } END { exit bad }' "$tmp/b.layouts" ||
    fail "a record's procs is not a multiple of its ranks per node"

echo "$fails failure(s)"
[ $fails -eq 0 ]
