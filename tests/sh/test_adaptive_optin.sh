#!/usr/bin/env bash
# The corrected walk is opt-in: `compare --grid adaptive` with a model and
# no --max-penalty (a config without grid_options) replays main's walk,
# every row as main's build printed it (tests/sh/data/compare-golden/
# grid-model.out); with --max-penalty the model row is the corrected walk's
# (another count of measured points), the other strategies' rows unchanged.
set -u
. "$(dirname "$0")/lib.sh"
data=tests/sh/data/compare-golden
runs=results/bench-runs
for d in plain opt; do
    mkdir -p "$tmp/$d"
    cp "$runs/unseen-01/journal" "$tmp/$d/journal"
done
model=$runs/model-unseen-01/model.csv
build/autotune compare -r "$tmp/plain" --grid adaptive --model "$model" \
    > "$tmp/plain.out" 2> "$tmp/plain.err" || fail "compare --grid: $(cat "$tmp/plain.err")"
build/autotune compare -r "$tmp/opt" --grid adaptive --model "$model" --max-penalty 0.05 \
    > "$tmp/opt.out" 2> "$tmp/opt.err" || fail "compare --max-penalty: $(cat "$tmp/opt.err")"
for f in "$data/grid-model.out" "$tmp/plain.out" "$tmp/opt.out"; do
    [ -s "$f" ] || fail "$f is empty"
done
diff "$data/grid-model.out" "$tmp/plain.out" > "$tmp/plain.diff" ||
    fail "without --max-penalty the walk differs from main's: $(head -6 "$tmp/plain.diff")"
# the opt-in walk: the model row measures other points, the rest as before
grep -v '^model' "$tmp/plain.out" > "$tmp/plain.rest"
grep -v '^model' "$tmp/opt.out" > "$tmp/opt.rest"
cmp -s "$tmp/plain.rest" "$tmp/opt.rest" || fail "--max-penalty changed a row other than the model's"
plain=$(awk -F, '$1 == "model" { print $3 }' "$tmp/plain.out")
opt=$(awk -F, '$1 == "model" { print $3 }' "$tmp/opt.out")
[ -n "$plain" ] && [ -n "$opt" ] && [ "$plain" != "$opt" ] ||
    fail "model row measured '$plain' points without --max-penalty, '$opt' with"
# --max-penalty alone is a usage error
build/autotune compare -r "$tmp/plain" --max-penalty 0.05 > /dev/null 2> "$tmp/usage.err"
[ $? -eq 2 ] && grep -q -- '--max-penalty: needs --grid adaptive' "$tmp/usage.err" ||
    fail "--max-penalty without --grid: $(cat "$tmp/usage.err")"
[ "$fails" = 0 ] && echo "adaptive opt-in: main's walk $plain points, the corrected walk $opt"
exit $((fails > 0))
