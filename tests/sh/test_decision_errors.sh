#!/usr/bin/env bash
# Bad input to `autotune tree -r` and `autotune quadtree`: one line naming
# what is wrong (file, option, value), a non-zero exit, nothing written.
set -u
. "$(dirname "$0")/lib.sh"
bin=build/autotune
run=tests/decision/run
fail=0
expect() { # expect 'message part' args...
    local want=$1; shift
    if "$bin" "$@" -o "$tmp/out" > "$tmp/stdout" 2> "$tmp/stderr"; then
        echo "FAIL autotune $*: exit status 0"; fail=1; return
    fi
    if ! grep -qF -- "$want" "$tmp/stderr"; then
        echo "FAIL autotune $*: expected '$want' in:"; cat "$tmp/stderr"; fail=1
    fi
    if ls "$tmp"/out* > /dev/null 2>&1; then
        echo "FAIL autotune $*: wrote $(ls "$tmp"/out*)"; fail=1; rm -f "$tmp"/out*
    fi
}
expect "optimal.csv: no point of collective 'allreduce'" tree -r $run --collectives allreduce
expect "/nonexistent/optimal.csv: No such file" tree -r /nonexistent
expect "--holdout: '1' is neither 'sizes', 'procs' nor a number of folds" tree -r $run --holdout 1
expect "--emit: 'pdf' has 'pdf', which is not an output (valid: names, c, c-table, c-tree)" tree -r $run --emit pdf
expect "--combined needs two collectives or more" tree -r $run --collectives bcast --combined
expect "--between: 'near' is not one of cross|pair|next" tree -r $run --between near
expect "--collective C is required" quadtree -r $run --depth 3
expect "--depth: '2.5' is not a whole number in 0..30" quadtree -r $run --collective bcast --depth 2.5
expect "--accuracy: '0' is not a number in 0.001..100" quadtree -r $run --collective bcast --accuracy 0
expect "unknown option '--bogus'" tree -r $run --bogus 1
expect "--near: '-1' is not a number in 0..100" tree -r $run --near -1
expect "--leaf: 'best' is not one of penalty|majority" quadtree -r $run --collective bcast --depth 2 --leaf best
# A damaged table names its line.
mkdir -p "$tmp/run"
cp $run/optimal.csv "$tmp/run/"
sed '5s/.*/bcast,2,16,linear/' $run/measurements.csv > "$tmp/run/measurements.csv"
expect "$tmp/run/measurements.csv:5: malformed row" tree -r "$tmp/run"
# An optimum whose method was never measured.
head -1 $run/measurements.csv > "$tmp/run/measurements.csv"
expect "optimal.csv:2: bcast P=2 m=1: method linear/0 is not in measurements.csv" tree -r "$tmp/run"
exit $fail
