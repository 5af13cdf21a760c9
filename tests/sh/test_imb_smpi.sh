#!/usr/bin/env bash
# tests/apps/imb.c, make bench-truth's IMB-style benchmark, under SimGrid
# SMPI: without libautotune every (collective, size) line of 1 B to 16 KiB
# checks its result against the sums written out (check=ok, exit 0) on 4
# and 5 ranks; linked with libautotune, under decisions that between them
# name every algorithm of bcast, reduce, allreduce and allgather
# (lib_runtime.sh's rounds), the same lines, every one checked ok; with a
# decision for none of its collectives (gather only), its times are
# those without libautotune to the nanosecond (the library's collectives,
# nothing added to the simulated time); bad options exit 2 in one line.
source "$(dirname "$0")/lib.sh"
source tests/sh/lib_runtime.sh
for tool in smpicc smpirun; do
    command -v "$tool" >/dev/null || { echo "test_imb_smpi: $tool not found" >&2; exit 77; }
done
with=build/tests/rt-smpi/imb without=build/tests/smpi-plain/imb
for b in "$with" "$without"; do
    [ -x "$b" ] || { echo "test_imb_smpi: $b missing (run make tests)" >&2; exit 1; }
done
args="-m 1 -M 16384 -i 2 -w 1"
smpi() { # NP PROGRAM ARGS...: output in $tmp/out and $tmp/err
    local np=$1; shift
    timeout $((120 * ${TEST_TIME_SCALE:-1})) smpirun -np "$np" -platform conf/platforms/grig.xml \
        --cfg=smpi/simulate-computation:no --cfg=smpi/coll-selector:ompi \
        --log=root.thres:critical "$@" >"$tmp/out" 2>"$tmp/err"
}
# The lines a run must print: each collective at 1, 4, ..., 16384 bytes.
expect() { # NP
    for c in bcast reduce allreduce allgather; do
        for m in 1 4 16 64 256 1024 4096 16384; do echo "$c $1 $m ok"; done
    done
}
lines() { sed -n 's/^imb: \([a-z]*\) \([0-9]*\) \([0-9]*\) time_us=[0-9.]* check=\(.*\)$/\1 \2 \3 \4/p' "$tmp/out"; }

for np in 4 5; do
    smpi "$np" "$without" $args || fail "np=$np without libautotune: exit $?: $(tail -2 "$tmp/err")"
    [ "$(lines)" = "$(expect "$np")" ] || fail "np=$np without libautotune: $(cat "$tmp/out")"
    cp "$tmp/out" "$tmp/without-$np"
    rounds=$(runtime_rounds)
    for k in $(seq 0 $((rounds - 1))); do
        runtime_round_dec "$tmp/r$k.dec" "$k" 1024
        AUTOTUNE_DECISION=$tmp/r$k.dec smpi "$np" "$with" $args ||
            fail "np=$np round $k: exit $?: $(tr '\n' ' ' <"$tmp/r$k.dec") $(tail -2 "$tmp/err")"
        [ "$(lines)" = "$(expect "$np")" ] || fail "np=$np round $k ($(tr '\n' ' ' <"$tmp/r$k.dec")): $(cat "$tmp/out")"
    done
    echo "np=$np: $rounds rounds"
done

# A decision for gather only: imb's collectives and barriers are the
# library's, their simulated times unchanged.
printf 'autotune-decision 1\nkind flat\nmethods 1\nbinomial/0\ncollectives 1\ngather 0\nnodes 1\nleaf 0\n' >"$tmp/gather.dec"
AUTOTUNE_DECISION=$tmp/gather.dec smpi 5 "$with" $args || fail "gather decision: exit $?: $(tail -2 "$tmp/err")"
[ -s "$tmp/without-5" ] && [ -s "$tmp/out" ] && cmp -s "$tmp/without-5" "$tmp/out" ||
    fail "times with a decision for none of imb's collectives differ: $(diff "$tmp/without-5" "$tmp/out" | head -4 | tr '\n' ' ')"

# Bad options: one line, exit 2.
for bad in "-c scan" "-m 0" "-f 1" "-i x" "-M"; do
    smpi 2 "$without" $bad
    rc=$?
    [ $rc = 2 ] || fail "imb $bad: exit $rc, want 2"
    [ "$(grep -c . "$tmp/err")" -ge 1 ] && grep -q '^\(imb: \|usage: imb\)' "$tmp/err" ||
        fail "imb $bad: no message: $(cat "$tmp/err")"
done
[ $fails = 0 ] && echo "test_imb_smpi: ok"
exit $((fails > 0))
