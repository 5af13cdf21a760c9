#!/usr/bin/env bash
# Node-aware methods swept (collectives/method.h) under SMPI on 8 simulated
# Grig nodes of 4 ranks: named in the config with patterns, recorded under
# their canonical names, timed only where ranks lie on several nodes with
# several ranks on one (not applicable at one rank per node or on one
# node, where they are a flat method the grid times already); a linear +
# linear bcast takes what its two phases take apart, to the nanosecond
# (the inter-node linear bcast at one rank per node plus the intra-node one
# on one node); a sweep killed midway and resumed ends with the
# uninterrupted run's records and tables (workers learn a method by its
# phases); compare --segments 0 leaves out node-aware methods of segmented
# phases; a config naming a phase's algorithm wrongly is refused in one
# line; without ranks_per_node none is timed, and a note says so.
set -u
. "$(dirname "$0")/lib.sh"
command -v smpirun >/dev/null || { echo "smpirun not found (apt-get install libsimgrid-dev)"; exit 77; }

platform=conf/platforms/grig.xml
np=32
for n in 0 1 2 3 4 5 6 7; do echo "grig-$n:4"; done > "$tmp/hosts"
write_cfg() { # NAME [BCAST_ENTRY]
    cat > "$tmp/$1.cfg" <<CFG
output         = "$tmp/$1";
collectives    = ["bcast", "reduce", "barrier"];
procs          = [2, 4, 8];
ranks_per_node = [1, 2, 4];
message_sizes  = { min = 1; max = 16384; factor = 128; };
segment_sizes  = [0, 1024];
algorithms     = { bcast = ["linear", "binomial", "${2:-node:linear+linear}",
                            "node:binomial+linear/*"];
                   reduce = ["*", "node:binomial/*+linear"];
                   barrier = ["linear", "node:linear+linear+linear"]; };
measure        = { warmup = 0; min_reps = 2; max_reps = 5; rse = 0.05; };
CFG
}
sweep() { smpi_hosts_sweep $np "$@"; }

write_cfg full
sweep full > "$tmp/full.out" 2>&1 || { cat "$tmp/full.out"; fail "sweep with node-aware methods"; }
m=$tmp/full/measurements.csv
[ -s "$m" ] || fail "no measurements.csv"
# journal records: m coll procs ppn msg alg seg applicable ...
awk '$1 == "m" && $6 ~ /^node:/ {
        composed = $4 > 1 && $3 > $4
        if ($8 != composed) { print "applicable " $8 " at P=" $3 " ppn=" $4 ": " $2 " " $6; bad++ }
        n += composed
    }
    END { if (n < 20) { print "only " n " node-aware experiments"; bad++ } exit bad > 0 }' \
    "$tmp/full/journal" || fail "node-aware methods timed where they do not compose, or not where they do"
# canonical names: the patterns expanded, unsegmented phases bare
for want in "bcast node:linear/0+linear/0" "bcast node:binomial/0+linear/1024" \
    "reduce node:binomial/1024+linear/0" "barrier node:linear+linear+linear"; do
    set -- $want
    grep -q "^m $1 8 4 [0-9]* $2 0 1 " "$tmp/full/journal" || fail "no record of $1 $2 at 8 ranks, 4 per node"
done
# the 1 KiB segment of a phase is left out where the message is shorter
# (its twin with segment 0 is the same method)
grep -q "^m bcast [0-9]* [0-9]* 1 node:binomial/0+linear/1024 " "$tmp/full/journal" &&
    fail "node:binomial/0+linear/1024 timed at 1 B beside its twin"
# composed = inter-node phase at one per node + intra-node phase on one node
awk -F, 'NR > 1 && $1 == "bcast" && $6 == 0 { t[$2, $3, $4, $5] = $8 }
    END {
        for (k in t) {
            split(k, f, SUBSEP)
            if (f[4] != "node:linear/0+linear/0" || !(f[2] > 1 && f[1] > f[2])) continue
            nodes = f[1] / f[2]
            inter = t[nodes, 1, f[3], "linear"]; intra = t[f[2], f[2], f[3], "linear"]
            if (inter == "" || intra == "") { print "no flat record for " k; bad++; continue }
            n++
            d = t[k] - (inter + intra)
            if (d > 0.0005 || d < -0.0005) {
                print "P=" f[1] " ppn=" f[2] " " f[3] " B: node-aware " t[k] " us, phases " inter " + " intra; bad++
            }
        }
        if (n < 6) { print "only " n " compositions checked"; bad++ }
        exit bad > 0
    }' "$m" || fail "a linear + linear bcast does not take what its phases take"

# compare --segments 0 replays what a sweep of segment size 0 alone would
# have timed: node-aware methods, none with a 1024-byte phase
build/autotune compare -r "$tmp/full" --segments 0 --trace exhaustive > /dev/null 2> "$tmp/seg0.err" ||
    fail "compare --segments 0: $(head -3 "$tmp/seg0.err")"
grep -q '^trace exhaustive .* node:[^ ]* ' "$tmp/seg0.err" || fail "compare --segments 0 replayed no node-aware method"
grep '^trace exhaustive .* node:[^ ]*/1024' "$tmp/seg0.err" | head -3 | grep . &&
    fail "compare --segments 0 replayed node-aware methods of 1024-byte phases"

# kill -9 midway, resume: the uninterrupted run's records and tables
write_cfg part
total=$(records "$tmp/full/journal")
killed_at=$(kill_at_records "$tmp/part/journal" $((total / 3)) "$tmp/part1.out" sweep part)
[ "$killed_at" -gt 0 ] && [ "$killed_at" -lt "$total" ] ||
    fail "the sweep was not killed midway ($killed_at of $total)"
sweep part > "$tmp/part2.out" 2>&1 || { cat "$tmp/part2.out"; fail "resumed sweep"; }
for t in optimal.csv measurements.csv speedup.csv; do
    cmp "$tmp/full/$t" "$tmp/part/$t" || fail "$t differs from the uninterrupted run"
done
cmp <(grep '^m ' "$tmp/full/journal" | sort) <(grep '^m ' "$tmp/part/journal" | sort) ||
    fail "journal records differ from the uninterrupted run"

# a wrong phase: one line naming the file, line, key and algorithm
write_cfg bad "node:nosuch+linear"
sweep bad > "$tmp/bad.out" 2>&1 && fail "a config naming bcast algorithm nosuch was accepted"
grep -q "bad.cfg:[0-9]*: algorithms.bcast: .*no bcast algorithm 'nosuch'" "$tmp/bad.out" ||
    fail "refusal does not name file:line, key and algorithm: $(cat "$tmp/bad.out")"
[ -e "$tmp/bad/journal" ] && [ "$(records "$tmp/bad/journal")" -gt 0 ] &&
    fail "a refused config recorded something"

# without ranks_per_node: one note, every node-aware record not applicable
sed '/^ranks_per_node/d; s|"'"$tmp"'/full"|"'"$tmp"'/flat"|' "$tmp/full.cfg" > "$tmp/flat.cfg"
sweep flat > "$tmp/flat.out" 2>&1 || { cat "$tmp/flat.out"; fail "sweep without ranks_per_node"; }
grep -q "^autotune: note: without ranks_per_node no node-aware method is timed" "$tmp/flat.out" ||
    fail "no note on node-aware methods without ranks_per_node"
awk '$1 == "m" && $6 ~ /^node/ && $8 != 0 { bad++ } END { exit bad > 0 }' "$tmp/flat/journal" ||
    fail "a node-aware method timed without ranks_per_node"

[ $fails -eq 0 ] && echo "test_node_sweep_smpi: ok"
exit $((fails > 0))
