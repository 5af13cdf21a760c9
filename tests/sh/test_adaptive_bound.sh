#!/usr/bin/env bash
# `compare --grid adaptive --bound F` on a committed dense run (unseen-01,
# 380 points, with its calibration): a row per collective and a total, the
# bound's own order (must <= lower <= upper, and the same with the coarse
# grid, which is at least the coarse grid), the cover keeping every point
# within F; usage and data errors said in one line.
set -u
. "$(dirname "$0")/lib.sh"
runs=results/bench-runs
mkdir -p "$tmp/run"
cp "$runs/unseen-01/journal" "$tmp/run/journal"
model=$runs/model-unseen-01/model.csv
build/autotune compare -r "$tmp/run" --grid adaptive --model "$model" --bound 0.10 \
    > "$tmp/out" 2> "$tmp/err" || fail "compare --bound: $(cat "$tmp/err")"
[ -s "$tmp/out" ] || fail "compare --bound printed nothing"
head -1 "$tmp/out" | grep -q '^collective,points,coarse_pct,must,' || fail "header: $(head -1 "$tmp/out")"
[ "$(awk -F, '$1 == "total" { print $2 }' "$tmp/out")" = 380 ] ||
    fail "total points: $(grep '^total' "$tmp/out")"
[ "$(grep -c '^bcast,\|^reduce,' "$tmp/out")" = 2 ] || fail "rows: $(cat "$tmp/out")"
awk -F, 'NR > 1 {
    if (!($4 <= $6 && $6 <= $8)) print $1 ": must " $4 " lower " $6 " upper " $8
    if (!($12 <= $13 && $12 + 0.05 >= $3)) print $1 ": lower_coarse " $12 " upper_coarse " $13 " coarse " $3
    if ($11 > 10) print $1 ": the cover loses " $11 " % at a point"
    if ($20 > $19 || $19 <= 0) print $1 ": factor_lower " $20 " ceiling " $19 }' "$tmp/out" > "$tmp/bad"
[ -s "$tmp/bad" ] && fail "$(cat "$tmp/bad")"
# --bound without --grid: usage; a run without a calibration: data error
build/autotune compare -r "$tmp/run" --bound 0.10 > /dev/null 2> "$tmp/usage.err"
[ $? -eq 2 ] && grep -q -- '--bound: needs --grid adaptive' "$tmp/usage.err" ||
    fail "--bound without --grid: $(cat "$tmp/usage.err")"
build/autotune compare -r "$tmp/run" --grid adaptive --bound 0.10 > /dev/null 2> "$tmp/data.err"
[ $? -eq 1 ] && grep -q 'has no calibration' "$tmp/data.err" ||
    fail "--bound without a model: $(cat "$tmp/data.err")"
[ "$fails" = 0 ] && echo "adaptive bound: $(grep '^total' "$tmp/out" | cut -d, -f1-10)"
exit $((fails > 0))
