#!/usr/bin/env bash
# Ctrl-C on a sweep under mpirun (issue 37, item 6): SIGINT to mpirun's
# process group, as a terminal sends it, ends the sweep with rank 0's one
# line, "autotune: interrupted: N points done; the same command resumes"
# (N the points its journal holds), and nothing of mpirun's; export works on
# the points done; the same command resumes to a whole table, measuring
# nothing twice.
set -u
. "$(dirname "$0")/lib.sh"
command -v mpirun >/dev/null || { echo "mpirun not found"; exit 77; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
at=${AUTOTUNE:-build/autotune}
np=3
points=44 # 2 collectives x 2 procs x 11 sizes
# Long enough (every experiment 10 repetitions, up to 1 MiB) that the
# interrupt at 40 records lands midway on an idle machine too.
cat > "$tmp/t.cfg" <<CFG
output        = "$tmp/run";
collectives   = ["bcast", "reduce"];
procs         = [2, 3];
message_sizes = { min = 1; max = 1048576; factor = 4; };
segment_sizes = [0, 1024];
measure       = { warmup = 1; min_reps = 10; max_reps = 10; rse = 0.5; };
search        = "exhaustive";
CFG
sweep() { mpirun --oversubscribe -np $np "$at" -c "$tmp/t.cfg"; }

interrupt_at_records "$tmp/run/journal" 40 "$tmp/part.out" sweep
done_points=$interrupted_points
echo "interrupted with $(records "$tmp/run/journal") records, $done_points of $points points"
[ "$done_points" -gt 0 ] && [ "$done_points" -lt $points ] || fail "the sweep was not interrupted midway ($done_points points)"

"$at" export -r "$tmp/run" --format csv > "$tmp/part.csv" 2> "$tmp/export.err" ||
    { cat "$tmp/export.err"; fail "export of the interrupted run"; }
grep -q "the sweep has not finished: $done_points of $points points done" "$tmp/export.err" ||
    fail "export does not say how many points are done: $(cat "$tmp/export.err")"
[ "$(($(wc -l < "$tmp/part.csv") - 1))" -eq "$done_points" ] || fail "export: not one row per point done"

sweep > "$tmp/resume.out" 2>&1 || { cat "$tmp/resume.out"; fail "resumed sweep"; }
[ "$(($(wc -l < "$tmp/run/optimal.csv") - 1))" -eq $points ] || fail "resumed: optimal.csv has not $points rows"
[ "$(grep -c '^p ' "$tmp/run/journal")" -eq $points ] || fail "resumed: the journal has not $points points"
dups=$(awk '$1 == "m" { print $2, $3, $4, $5, $6, $7 }' "$tmp/run/journal" | sort | uniq -d | head -3)
[ -z "$dups" ] || fail "measured twice: $dups"
# The points done before the interrupt keep their rows.
awk -F, 'NR > 1 { print $1, $2, $3, $4, $5 }' "$tmp/part.csv" | sort > "$tmp/part.rows"
awk -F, 'NR > 1 { print $1, $2, $3, $4, $5 }' "$tmp/run/optimal.csv" | sort > "$tmp/full.rows"
[ -s "$tmp/part.rows" ] && [ -z "$(comm -23 "$tmp/part.rows" "$tmp/full.rows")" ] ||
    fail "rows of the points done changed on resume"
exit $((fails > 0))
