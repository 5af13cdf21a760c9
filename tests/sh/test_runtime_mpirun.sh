#!/usr/bin/env bash
# libautotune under mpirun: the collective test as an application of the
# preloaded library, a decision forcing each algorithm in turn (rounds of
# tests/sh/lib_runtime.sh), on 3, 4, 5 and 7 ranks; then an application
# linked with it (split/dup/free cycles, MPI_COMM_SELF, size-1 and
# inter-communicators, a non-commutative op): AUTOTUNE_VERBOSE's lines,
# two decision files, and bad inputs (one printable line from rank 0,
# right results, exit 0); MPI_BOTTOM through every collective with a
# buffer (each algorithm in turn, the reductions on the library);
# AUTOTUNE_PROFILE on the CG mini-app. The decisions here are tuned at one
# rank per node (as every decision written before ranks per node), so the
# runs give each rank an emulated node of its own
# (AUTOTUNE_NODE_OF_RANK=block:1), the layout they were tuned for; the
# profile counts the real nodes (all ranks on this one).
source "$(dirname "$0")/lib.sh"
source tests/sh/lib_runtime.sh
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
lib=$PWD/build/libautotune.so coll=build/tests/mpi/test_collectives
app=build/tests/rt/runtime_app bottom=build/tests/rt/runtime_bottom
for f in "$lib" "$coll" "$app" "$bottom"; do
    [ -e "$f" ] || { echo "test_runtime_mpirun: $f missing (run make tests)" >&2; exit 1; }
done
run() { # NP DEC PROGRAM ARGS...: stdout and stderr in $tmp/out, $tmp/err
    local np=$1 dec=$2; shift 2
    timeout 120 mpirun --oversubscribe -np "$np" -x LD_PRELOAD="$lib" \
        -x AUTOTUNE_DECISION="$dec" -x AUTOTUNE_VERBOSE="${VERBOSE:-0}" \
        -x AUTOTUNE_NODE_OF_RANK=block:1 "$@" >"$tmp/out" 2>"$tmp/err"
}

for np in 3 4 5 7; do
    runtime_check_rounds "$np" "$coll"
done

# AUTOTUNE_VERBOSE: a header, then per collective called "COLL: N calls:"
# with each method's and the library's counts, which add up to N.
cat >"$tmp/ne.dec" <<'DEC'
autotune-decision 1
kind flat
methods 3
binomial/0
ring/0
neighbor_exchange/0
collectives 3
bcast 0
allreduce 1
allgather 2
nodes 3
leaf 0
leaf 1
leaf 2
DEC
VERBOSE=1 run 3 "$tmp/ne.dec" "$app" || fail "runtime_app with a decision"
grep -q "^runtime_app: ok$" "$tmp/out" || fail "runtime_app's results"
grep -q "^libautotune: 3 ranks, AUTOTUNE_DECISION=$tmp/ne.dec, AUTOTUNE_OUTSIDE=library; calls summed over ranks$" \
    "$tmp/err" || fail "verbose header"
for want in "bcast: [0-9]* calls: binomial/0 [0-9]*, library 3 (intercomm 3)" \
    "allreduce: [0-9]* calls: ring/0 [0-9]*, library 3 (noncommutative 3)" \
    "allgather: [0-9]* calls: neighbor_exchange/0 [0-9]*, library [0-9]* (procs [0-9]*)" \
    "barrier: [0-9]* calls: library [0-9]* (not-tuned [0-9]*)"; do
    grep -q "^libautotune: $want$" "$tmp/err" || fail "verbose line '$want'"
done
awk '/^libautotune: [a-z]+: [0-9]+ calls:/ {
        n = $3; s = 0; line = $0; sub(/^[^:]*:[^:]*:[^:]*: /, "", line); sub(/ \(.*/, "", line)
        k = split(line, parts, ", "); for (i = 1; i <= k; i++) { split(parts[i], w, " "); s += w[2] }
        if (s != n) { print "counts do not add up: " $0; bad = 1 } }
     END { exit bad }' "$tmp/err" || fail "verbose counts"
[ "$(grep -vc '^libautotune: ' "$tmp/err")" -eq 0 ] || fail "other lines on stderr"

# Bad inputs: one line from rank 0, the library's collectives, exit 0.
printf 'autotune-decision 1\nkind flat\nmethods 1\n' >"$tmp/short.dec"
sed 's#^ring/0#ringo/0#' "$tmp/ne.dec" >"$tmp/unknown.dec"
for case in "missing:$tmp/none.dec:No such file" "damaged:$tmp/short.dec:ends before" \
    "unknown:$tmp/unknown.dec:unknown method 'ringo/0'" "multiple:$tmp/ne.dec:MPI_THREAD_MULTIPLE"; do
    IFS=: read -r name dec want <<<"$case"
    args=()
    [ "$name" = multiple ] && args=(-t)
    run 4 "$dec" "$app" "${args[@]}"; rc=$?
    [ $rc -eq 0 ] || fail "$name: exit $rc"
    grep -q "^runtime_app: ok$" "$tmp/out" || fail "$name: results"
    [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q "^libautotune: .*$want" "$tmp/err" ||
        { fail "$name: stderr is not one line saying '$want'"; cat "$tmp/err"; }
done
# Several files (AUTOTUNE_DECISION=a.dec:b.dec, as PATH): ne.dec's
# collectives split over two files run as ne.dec does, each file said
# once with its chain_fanout.
head -9 "$tmp/ne.dec" | sed 's/^methods 3$/methods 2/; /^neighbor_exchange/d; s/^collectives 3$/collectives 2/; /^allgather 2$/d' \
    >"$tmp/a.dec"
printf 'nodes 2\nleaf 0\nleaf 1\nchain_fanout 8\n' >>"$tmp/a.dec"
printf 'autotune-decision 1\nkind flat\nmethods 1\nneighbor_exchange/0\ncollectives 1\nallgather 0\nnodes 1\nleaf 0\n' \
    >"$tmp/b.dec"
VERBOSE=1 run 3 "$tmp/ne.dec" "$app" || fail "one file: exit status"
grep '^libautotune: [a-z]*: [0-9]* calls:' "$tmp/err" >"$tmp/one.lines"
VERBOSE=1 run 3 "$tmp/a.dec:$tmp/b.dec" "$app" || fail "two files: exit status"
grep '^libautotune: [a-z]*: [0-9]* calls:' "$tmp/err" >"$tmp/two.lines"
grep -q "^runtime_app: ok$" "$tmp/out" && [ -s "$tmp/one.lines" ] && cmp -s "$tmp/one.lines" "$tmp/two.lines" ||
    fail "two files: counts differ from one file's: $(cat "$tmp/err")"
grep -qx "libautotune: $tmp/a.dec: bcast, allreduce; chain_fanout 8" "$tmp/err" &&
    grep -qx "libautotune: $tmp/b.dec: allgather; chain_fanout 4 (not recorded)" "$tmp/err" ||
    fail "two files: the files' lines: $(cat "$tmp/err")"
# Bad files and combinations: one line (escaped, whatever the file
# holds), the library's collectives, exit 0.
head -c 600 /dev/urandom >"$tmp/random.dec"
printf '\033[2J\001\377\n' >>"$tmp/random.dec"
sed 's/^allgather 2$/bcast 2/' "$tmp/ne.dec" >"$tmp/twice.dec"
sed 's/^nodes 3$/nodes 100000000/' "$tmp/ne.dec" >"$tmp/huge.dec"
for case in "both|$tmp/ne.dec:$tmp/b.dec|$tmp/b.dec: collective allgather is also in $tmp/ne.dec" \
    "twice|$tmp/twice.dec|$tmp/twice.dec:10: 'bcast 2': expected each collective once (bcast is on line 8 too)" \
    "huge|$tmp/huge.dec|$tmp/huge.dec:11: 'nodes 100000000': expected at most 3 nodes" \
    "random|$tmp/random.dec|$tmp/random.dec:1: '" \
    "missing|$tmp/b.dec:$tmp/none.dec|$tmp/none.dec: No such file"; do
    IFS='|' read -r name dec want <<<"$case"
    run 3 "$dec" "$app"; rc=$?
    [ $rc -eq 0 ] && grep -q "^runtime_app: ok$" "$tmp/out" || fail "$name: exit $rc or results"
    [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -qF "libautotune: AUTOTUNE_DECISION=$dec: $want" "$tmp/err" &&
        grep -q "; the MPI library's collectives run$" "$tmp/err" && ! LC_ALL=C grep -q '[^ -~]' "$tmp/err" ||
        { fail "$name: stderr is not one printable line saying '$want'"; cat -v "$tmp/err"; }
done
# No decision: nothing on stderr.
run 2 "" "$app" && grep -q "^runtime_app: ok$" "$tmp/out" && [ ! -s "$tmp/err" ] ||
    fail "without a decision"
# Linked rather than preloaded (-lautotune), on 5 ranks.
AUTOTUNE_DECISION=$tmp/ne.dec AUTOTUNE_NODE_OF_RANK=block:1 timeout 120 mpirun --oversubscribe -np 5 \
    -x AUTOTUNE_DECISION -x AUTOTUNE_NODE_OF_RANK build/tests/rt/runtime_app >"$tmp/out" 2>&1 &&
    grep -q "^runtime_app: ok$" "$tmp/out" || fail "runtime_app linked with -lautotune"
# MPI_BOTTOM (datatypes of absolute addresses, on some ranks or all):
# right results under each algorithm in turn; the block collectives run the
# decision's method on every call, the reductions passing it go to the
# library, AUTOTUNE_VERBOSE's `bottom` counting them as the program did.
for np in 3 4; do
    for k in $(seq 0 $(($(runtime_rounds) - 1))); do
        run "$np" "$tmp/r$k.dec" "$bottom" && grep -q "^runtime_bottom: ok$" "$tmp/out" ||
            { fail "MPI_BOTTOM: np=$np round $k"; cat "$tmp/out" "$tmp/err"; }
    done
done
cat >"$tmp/bottom.dec" <<'DEC'
autotune-decision 1
kind flat
methods 7
binomial/0
binomial/1000
recursive_doubling/0
binomial/0
linear/0
ring/0
pairwise/0
collectives 7
bcast 0
reduce 1
allreduce 2
gather 3
scatter 4
allgather 5
alltoall 6
nodes 7
leaf 0
leaf 1
leaf 2
leaf 3
leaf 4
leaf 5
leaf 6
DEC
declare -A bottom_method=([bcast]=binomial/0 [reduce]=binomial/1000 [allreduce]=recursive_doubling/0
    [gather]=binomial/0 [scatter]=linear/0 [allgather]=ring/0 [alltoall]=pairwise/0)
for np in 3 5; do
    VERBOSE=1 run "$np" "$tmp/bottom.dec" "$bottom" && grep -q "^runtime_bottom: ok$" "$tmp/out" ||
        { fail "MPI_BOTTOM: np=$np: results"; cat "$tmp/out" "$tmp/err"; }
    n=0
    while read -r coll calls at_bottom; do
        n=$((n + 1))
        want="$coll: $calls calls: ${bottom_method[$coll]} $((calls - at_bottom))"
        [ "$at_bottom" -gt 0 ] && want="$want, library $at_bottom (bottom $at_bottom)"
        grep -qx "libautotune: $want" "$tmp/err" ||
            fail "MPI_BOTTOM: np=$np: want '$want': $(grep "^libautotune: $coll:" "$tmp/err")"
    done < <(sed -n 's/^runtime_bottom: \([a-z]*\) \([0-9]*\) \([0-9]*\)$/\1 \2 \3/p' "$tmp/out")
    [ "$n" -eq 7 ] || fail "MPI_BOTTOM: np=$np: $n collectives counted by the program, not 7"
done
# AUTOTUNE_PROFILE with the decision, linked (-lautotune): the CG
# mini-app's calls, at procs 3, all 3 ranks on this node.
AUTOTUNE_PROFILE=$tmp/cg.prof AUTOTUNE_DECISION=$tmp/ne.dec timeout 120 mpirun --oversubscribe \
    -np 3 -x AUTOTUNE_PROFILE -x AUTOTUNE_DECISION build/tests/rt/cg -n 300 -i 6 -k 3 >"$tmp/out" 2>"$tmp/err" ||
    fail "cg with a profile: $(cat "$tmp/err")"
sed -n 's/^cg: called //p' "$tmp/out" | sort >"$tmp/called"
awk '!/^#/ && NF == 6 && $1 != "offsets" { print $1, $4, $5 }' "$tmp/cg.prof" | sort >"$tmp/recorded"
[ -s "$tmp/called" ] && cmp -s "$tmp/called" "$tmp/recorded" &&
    [ "$(awk '!/^#/ && NF == 6 && $1 != "offsets" && ($2 != 3 || $3 != 3)' "$tmp/cg.prof")" = "" ] ||
    fail "cg's profile: $(cat "$tmp/cg.prof")"
# Open MPI's clocks are not global (MPI_WTIME_IS_GLOBAL false): the
# ranks' offsets are measured, and every call (fewer than 512 a point) is
# compared: each point's arrival line follows it, sampling all its calls,
# then its recorded calls' offsets lines and the next call.
awk 'NR <= 2 || /^#/ { next }
     NF == 6 && $1 != "offsets" { calls = $5; want = 1; tail = 0; next }
     want && $1 == "arrival" && $2 == calls { want = 0; tail = 1; next }
     tail && ($1 == "offsets" || $1 == "next") { next }
     { bad = 1 } END { exit bad || want }' "$tmp/cg.prof" ||
    fail "cg's profile: a point without the arrivals of all its calls: $(cat "$tmp/cg.prof")"
build/autotune profile "$tmp/cg.prof" >/dev/null || fail "autotune profile of cg's profile"

[ $fails -eq 0 ] || { echo "$fails failures"; exit 1; }
echo "test_runtime_mpirun: ok"
