#!/usr/bin/env bash
# libautotune chooses by the communicator's layout on nodes, here emulated
# on one machine (AUTOTUNE_NODE_OF_RANK=block:K puts world rank w on node
# w / K). A decision tuned at one rank per node (every decision written
# before ranks per node) runs its methods where each rank has a node of
# its own (block:1); 11 ranks on nodes of 4, 4 and 3 (irregular), 8 ranks
# 4 per node (a ppn it was not tuned for) and a communicator whose nodes'
# ranks are not consecutive go to the library, AUTOTUNE_VERBOSE saying
# why; with AUTOTUNE_OUTSIDE=nearest the 4-per-node calls run the ppn 1
# table, counted as the 1-per-node run counts them, and the other two
# still go to the library. A decision tuned at 1 and 4 ranks per node (one
# file or one per ppn) runs each ppn's methods on its layout, a real run's
# too. The programs
# check every result against values of their own, so results stay right
# whichever ran.
source "$(dirname "$0")/lib.sh"
source tests/sh/lib_runtime.sh
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
lib=$PWD/build/libautotune.so coll=build/tests/mpi/test_collectives
app=build/tests/rt/runtime_app
for f in "$lib" "$coll" "$app"; do
    [ -e "$f" ] || { echo "test_runtime_layout_mpirun: $f missing (run make tests)" >&2; exit 1; }
done
run() { # NP NODES OUTSIDE DEC PROGRAM ARGS...: output in $tmp/out, $tmp/err
    local np=$1 nodes=$2 outside=$3 dec=$4; shift 4
    timeout 120 mpirun --oversubscribe -np "$np" -x LD_PRELOAD="$lib" \
        -x AUTOTUNE_DECISION="$dec" -x AUTOTUNE_VERBOSE=1 -x AUTOTUNE_OUTSIDE="$outside" \
        -x AUTOTUNE_NODE_OF_RANK="$nodes" "$@" >"$tmp/out" 2>"$tmp/err"
}
# The per-collective count lines of $tmp/err.
counts() {
    grep -E '^libautotune: [a-z]+: [0-9]+ calls:' "$tmp/err"
}
# fail() unless the collective test ran clean on NP ranks and every
# collective's calls all went to the library for REASON, each with the
# line saying WHY.
all_library() { # WHAT NP REASON WHY
    local what=$1 np=$2 reason=$3 why=$4 n=0 coll calls rest
    grep -q "^test_collectives: P=$np: [0-9]* runs, 0 failed$" "$tmp/out" ||
        { fail "$what: results"; cat "$tmp/out" "$tmp/err"; return; }
    while read -r coll calls rest; do
        n=$((n + 1))
        coll=${coll%:}
        [ "$rest" = "calls: library $calls ($reason $calls)" ] ||
            fail "$what: $coll: $calls calls: $rest"
        grep -qxF "libautotune: $coll: $why: $calls calls to the library" "$tmp/err" ||
            fail "$what: $coll: no line saying '$why': $(grep "^libautotune: $coll" "$tmp/err")"
    done < <(counts | sed 's/^libautotune: //')
    [ "$n" -eq 8 ] || fail "$what: $n collectives counted, not 8"
}

runtime_round_dec "$tmp/r0.dec" 0 1000
# 3 nodes of 4, 4 and 3 ranks: irregular, whatever AUTOTUNE_OUTSIDE says.
for outside in library nearest; do
    run 11 block:4 "$outside" "$tmp/r0.dec" "$coll" -r -q ||
        fail "irregular, $outside: exit status"
    all_library "irregular, $outside" 11 irregular "irregular layout (4, 4, 3 ranks per node)"
done
# 2 nodes of 4 ranks: tuned at 1 rank per node only.
run 8 block:4 library "$tmp/r0.dec" "$coll" -r -q || fail "ppn 4: exit status"
all_library "ppn 4" 8 ppn "ppn 4 not tuned (tuned: 1)"
# ... with nearest, the ppn 1 table: the same counts as on 8 nodes of one
# rank (where it was tuned), and a line saying so.
run 8 block:1 library "$tmp/r0.dec" "$coll" -r -q || fail "ppn 1: exit status"
grep -q "^test_collectives: P=8: [0-9]* runs, 0 failed$" "$tmp/out" || fail "ppn 1: results"
counts >"$tmp/ppn1.counts"
grep -qE 'ppn|irregular|consecutive' "$tmp/err" && fail "ppn 1: a layout fallback: $(cat "$tmp/err")"
run 8 block:4 nearest "$tmp/r0.dec" "$coll" -r -q || fail "ppn 4, nearest: exit status"
grep -q "^test_collectives: P=8: [0-9]* runs, 0 failed$" "$tmp/out" || fail "ppn 4, nearest: results"
counts >"$tmp/nearest.counts"
[ "$(wc -l <"$tmp/ppn1.counts")" -eq 8 ] && cmp -s "$tmp/ppn1.counts" "$tmp/nearest.counts" ||
    fail "ppn 4, nearest: counts differ from ppn 1's: $(diff "$tmp/ppn1.counts" "$tmp/nearest.counts")"
grep -q '^libautotune: bcast: [0-9]* calls: linear/1000 [0-9]*' "$tmp/nearest.counts" ||
    fail "ppn 4, nearest: bcast's method did not run: $(cat "$tmp/nearest.counts")"
while read -r c calls rest; do
    c=${c%:}
    grep -qxF "libautotune: $c: ppn 4 not tuned (tuned: 1): $calls calls took ppn 1's table (AUTOTUNE_OUTSIDE=nearest)" "$tmp/err" ||
        fail "ppn 4, nearest: $c: no line saying so: $(grep "^libautotune: $c" "$tmp/err")"
done < <(sed 's/^libautotune: //' "$tmp/nearest.counts")
# The world's ranks interleaved on 2 nodes of 4: each node's ranks are
# not consecutive (the last allreduce, on the world, is ppn 4's).
for outside in library nearest; do
    run 8 block:4 "$outside" "$tmp/r0.dec" "$app" -i || fail "not consecutive, $outside: exit status"
    grep -q "^runtime_app: ok$" "$tmp/out" || fail "not consecutive, $outside: results"
    for c in bcast allgather barrier; do
        grep -qx "libautotune: $c: 8 calls: library 8 (not-consecutive 8)" "$tmp/err" &&
            grep -qx "libautotune: $c: ranks not consecutive on their nodes: 8 calls to the library" "$tmp/err" ||
            fail "not consecutive, $outside: $c: $(grep "^libautotune: $c" "$tmp/err")"
    done
done
# A decision tuned at 1 and 4 ranks per node (export --format dec of a run
# whose optimum is binomial bcast and ring allgather at ppn 1, linear and
# recursive_doubling at ppn 4, 8 ranks, 0 B to 4 MiB) runs each ppn's
# methods on its layout; ppn 2 goes to the library, or with nearest to ppn
# 1's (2 is as near 1 as 4 in log2: the smaller wins). The same tables
# from two files, one per ppn, choose alike; a (collective, ppn) in two
# files is one line.
layout_run() { # DIR PPN...: optimal.csv and measurements.csv
    mkdir -p "$1"
    local dir=$1; shift
    echo "collective,procs,ppn,msg_bytes,algorithm,segment_bytes,time_us" >"$dir/optimal.csv"
    echo "collective,procs,ppn,msg_bytes,algorithm,segment_bytes,reps,mean_us,median_us,min_us,max_us,sd_us,cost_s" \
        >"$dir/measurements.csv"
    for ppn in "$@"; do
        for msg in 0 4194304; do
            for row in "bcast binomial linear" "allgather ring recursive_doubling"; do
                set -- $row
                local best=$2 other=$3
                [ "$ppn" = 4 ] && best=$3 other=$2
                echo "$1,8,$ppn,$msg,$best,0,10" >>"$dir/optimal.csv"
                echo "$1,8,$ppn,$msg,$best,0,5,10,10,10,10,0,0.001" >>"$dir/measurements.csv"
                echo "$1,8,$ppn,$msg,$other,0,5,20,20,20,20,0,0.001" >>"$dir/measurements.csv"
            done
        done
    done
}
layout_run "$tmp/run14" 1 4
layout_run "$tmp/run1" 1
layout_run "$tmp/run4" 4
for r in run14 run1 run4; do
    build/autotune export -r "$tmp/$r" --format dec -o "$tmp/$r.dec" 2>/dev/null || fail "export $r"
done
grep -qx "ranks_per_node 1 4" "$tmp/run14.dec" || fail "run14.dec: no ranks_per_node line"
for decs in "$tmp/run14.dec" "$tmp/run4.dec:$tmp/run1.dec"; do
    for c in "block:1 library binomial/0 ring/0" "block:4 library linear/0 recursive_doubling/0" \
        "block:2 library library library" "block:2 nearest binomial/0 ring/0"; do
        set -- $c
        what="$decs: $1, $2"
        run 8 "$1" "$2" "$decs" "$coll" -r -q || fail "$what: exit status"
        grep -q "^test_collectives: P=8: [0-9]* runs, 0 failed$" "$tmp/out" || fail "$what: results"
        for want in "bcast $3" "allgather $4"; do
            set -- $want
            if [ "$2" = library ]; then
                want="$1: \([0-9]*\) calls: library \1 (ppn \1)"
            else
                want="$1: \([0-9]*\) calls: $2 \1"
            fi
            grep -q "^libautotune: $want$" "$tmp/err" ||
                fail "$what: want '$want': $(grep "^libautotune: $1:" "$tmp/err")"
        done
    done
    grep -q "^libautotune: bcast: ppn 2 not tuned (tuned: 1, 4): [0-9]* calls took ppn 1's table (AUTOTUNE_OUTSIDE=nearest)$" "$tmp/err" ||
        fail "$decs: nearest's line: $(cat "$tmp/err")"
done
run 8 block:1 library "$tmp/run14.dec:$tmp/run1.dec" "$coll" -r -q
[ "$(grep -c "collectives run$" "$tmp/err")" -eq 1 ] &&
    grep -qxF "libautotune: AUTOTUNE_DECISION=$tmp/run14.dec:$tmp/run1.dec: $tmp/run1.dec: collective bcast is also in $tmp/run14.dec (ppn 1); the MPI library's collectives run" "$tmp/err" ||
    fail "a (collective, ppn) in two files: $(cat "$tmp/err")"
# A real run's tables (tests/decision/ppn-run: SMPI sweeps on grig, 16
# ranks, 1 and 8 ranks per node): on 16 ranks of 1 and of 8 per node every
# method that ran is one the run found optimal at that ppn for that
# collective (from its optimal.csv), and some ran for each collective.
build/autotune export -r tests/decision/ppn-run --format dec -o "$tmp/grig.dec" 2>/dev/null ||
    fail "export tests/decision/ppn-run"
for ppn in 1 8; do
    run 16 "block:$ppn" library "$tmp/grig.dec" "$coll" -r -q || fail "grig, ppn $ppn: exit status"
    grep -q "^test_collectives: P=16: [0-9]* runs, 0 failed$" "$tmp/out" || fail "grig, ppn $ppn: results"
    for c in bcast reduce allreduce allgather; do
        optimal=" $(awk -F, -v c="$c" -v p="$ppn" '$1 == c && $3 == p { print $5 "/" $6 }' \
            tests/decision/ppn-run/optimal.csv | sort -u | tr '\n' ' ')"
        ran=$(sed -n "s/^libautotune: $c: [0-9]* calls: \([^(]*\).*/\1/p" "$tmp/err" | tr ',' '\n' |
            awk '$1 != "library" { print $1 }')
        [ -n "$ran" ] || fail "grig, ppn $ppn: $c: no method ran: $(grep "^libautotune: $c:" "$tmp/err")"
        for m in $ran; do
            case $optimal in
            *" $m "*) ;;
            *) fail "grig, ppn $ppn: $c ran $m, not one of ppn $ppn's optima:$optimal" ;;
            esac
        done
    done
done
# A bad AUTOTUNE_NODE_OF_RANK: one line, the real nodes (all 4 ranks on
# this one: ppn 4), right results.
run 4 block:0 library "$tmp/r0.dec" "$app" || fail "block:0: exit status"
grep -q "^runtime_app: ok$" "$tmp/out" || fail "block:0: results"
[ "$(grep -c AUTOTUNE_NODE_OF_RANK "$tmp/err")" -eq 1 ] &&
    grep -qx "libautotune: AUTOTUNE_NODE_OF_RANK=block:0: expected block:K (K >= 1); the real nodes count" "$tmp/err" &&
    grep -q "^libautotune: bcast: ppn 4 not tuned (tuned: 1): [0-9]* calls to the library$" "$tmp/err" ||
    fail "block:0: $(cat "$tmp/err")"

[ $fails -eq 0 ] || { echo "$fails failures"; exit 1; }
echo "test_runtime_layout_mpirun: ok"
