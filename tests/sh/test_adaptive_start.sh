#!/usr/bin/env bash
# The walk that starts from the model (compare --grid adaptive --start
# model, search/seed.c) on a committed run: the model row measures at most
# its budget's points of each collective (floor(budget x points)), fewer
# than main's walk there, and only the model strategy is walked; the full
# row is main's; --start and --budget need what they refine (usage errors).
set -u
. "$(dirname "$0")/lib.sh"
runs=results/bench-runs
for d in plain start; do
    mkdir -p "$tmp/$d"
    cp "$runs/unseen-01/journal" "$tmp/$d/journal"
done
model=$runs/model-unseen-01/model.csv
build/autotune compare -r "$tmp/plain" --grid adaptive --model "$model" \
    > "$tmp/plain.out" 2> "$tmp/plain.err" || fail "compare --grid: $(cat "$tmp/plain.err")"
build/autotune compare -r "$tmp/start" --grid adaptive --model "$model" --start model \
    --budget 0.10 --misses > "$tmp/start.out" 2> "$tmp/start.err" ||
    fail "compare --start model: $(cat "$tmp/start.err")"
for f in "$tmp/plain.out" "$tmp/start.out"; do
    [ -s "$f" ] || fail "$f is empty"
done
grep '^full,' "$tmp/plain.out" > "$tmp/plain.full"
grep '^full,' "$tmp/start.out" > "$tmp/start.full"
[ -s "$tmp/plain.full" ] && cmp -s "$tmp/plain.full" "$tmp/start.full" ||
    fail "the full row differs: $(cat "$tmp/plain.full") / $(cat "$tmp/start.full")"
rows=$(cut -d, -f1 "$tmp/start.out" | tr '\n' ' ')
[ "$rows" = "strategy full model model@uniform " ] || fail "rows with --start model: $rows"
# unseen-01: bcast and reduce, 190 points each: floor(0.10 x 190) = 19 a collective
total=$(awk -F, '$1 == "model" { print $2 }' "$tmp/start.out")
measured=$(awk -F, '$1 == "model" { print $3 }' "$tmp/start.out")
plain=$(awk -F, '$1 == "model" { print $3 }' "$tmp/plain.out")
[ "$total" = 380 ] || fail "model row: $total points, expected 380"
[ -n "$measured" ] && [ "$measured" -le 38 ] && [ "$measured" -ge 24 ] ||
    fail "model row measured '$measured' points, expected 24 (the seeds) to 38 (the budget)"
[ -n "$plain" ] && [ "$measured" -lt "$plain" ] ||
    fail "measured $measured points, main's walk $plain"
# --misses names every point the walk loses at, measured or inferred: their
# penalties' largest and sum are the model row's max and mean x points; an
# inferred one ends with the penalty the walk predicted there
awk -F, '$1 == "model" { print $7, $8 }' "$tmp/start.out" > "$tmp/row"
grep '^miss model [a-z]* P=[0-9]* [0-9]* B: \(measured\|inferred\), chose ' "$tmp/start.err" |
    sed 's/.*, penalty \([0-9.]*\) %.*$/\1/' > "$tmp/misses"
[ -s "$tmp/misses" ] || fail "--misses printed no miss of the model walk: $(head -3 "$tmp/start.err")"
inferred=$(grep -c '^miss model .*: inferred, ' "$tmp/start.err")
predicted=$(grep -c '^miss model .*: inferred, .*, predicted \([0-9.]* %\|unbounded\)$' "$tmp/start.err")
[ "$inferred" -gt 0 ] && [ "$predicted" -eq "$inferred" ] ||
    fail "$predicted of $inferred inferred misses say what the walk predicted there"
grep '^miss model .*: measured, ' "$tmp/start.err" | grep -q predicted &&
    fail "a measured miss names a prediction"
read -r mean max < "$tmp/row"
awk -v mean="$mean" -v max="$max" -v n="$total" '
    { s += $1; if ($1 > m) m = $1 }
    END { d = m - max; e = s / n - mean
          exit !(d < 0.01 && d > -0.01 && e < 0.01 && e > -0.01) }' "$tmp/misses" ||
    fail "the misses (max $(sort -g "$tmp/misses" | tail -1)) disagree with the row: mean $mean, max $max"
build/autotune compare -r "$tmp/plain" --start model > /dev/null 2> "$tmp/usage.err"
[ $? -eq 2 ] && grep -q -- '--start: needs --grid adaptive' "$tmp/usage.err" ||
    fail "--start without --grid: $(cat "$tmp/usage.err")"
build/autotune compare -r "$tmp/plain" --grid adaptive --budget 0.1 > /dev/null 2> "$tmp/usage.err"
[ $? -eq 2 ] && grep -q -- '--budget: needs --start model' "$tmp/usage.err" ||
    fail "--budget without --start: $(cat "$tmp/usage.err")"
[ "$fails" = 0 ] && echo "adaptive start: $measured of $total points measured (main's walk $plain)"
exit $((fails > 0))
