#!/usr/bin/env bash
# Ctrl-C on a simulated sweep (issue 37, item 6): SIGINT to the sweep's
# process group, as a terminal sends it, ends it with one line, "autotune:
# interrupted: N points done; the same command resumes", N the points its
# journal holds, and no text of SimGrid's or smpirun's; export, report,
# tree and quadtree then work on the points done, saying how many of the
# grid's, and give those points' rows of an uninterrupted run's tables;
# running the same command again gives tables byte-identical to it.
set -u
. "$(dirname "$0")/lib.sh"
command -v smpirun >/dev/null || { echo "smpirun not found (apt-get install libsimgrid-dev)"; exit 77; }

platform=conf/platforms/grig.xml
np=8
at=${AUTOTUNE:-build/autotune}
at_smpi=${AUTOTUNE_SMPI:-build/autotune-smpi}
write_cfg() { # NAME
    cat > "$tmp/$1.cfg" <<CFG
output        = "$tmp/$1";
collectives   = ["bcast", "reduce"];
procs         = [2, 5, 8];
message_sizes = { min = 1; max = 16384; factor = 8; };
segment_sizes = [0, 512, 1024, 2048, 4096, 8192];
measure       = { warmup = 1; min_reps = 3; max_reps = 10; rse = 0.05; };
search        = "exhaustive";
CFG
}
sweep() { # NAME
    smpirun -np $np -platform $platform --cfg=smpi/simulate-computation:no \
        --log=root.thres:critical "$at_smpi" -c "$tmp/$1.cfg"
}
points=30 # 2 collectives x 3 procs x 5 sizes

write_cfg full
write_cfg part
sweep full > "$tmp/full.out" 2>&1 || { cat "$tmp/full.out"; fail "uninterrupted sweep"; }
total=$(records "$tmp/full/journal")

# Ctrl-C once a third of the records are on disk.
interrupt_at_records "$tmp/part/journal" $((total / 3)) "$tmp/part.out" sweep part
done_points=$interrupted_points
echo "interrupted with $(records "$tmp/part/journal") of $total records, $done_points of $points points"
[ "$done_points" -gt 0 ] && [ "$done_points" -lt $points ] || fail "the sweep was not interrupted midway ($done_points points)"
[ -e "$tmp/part/optimal.csv" ] && fail "an interrupted sweep wrote optimal.csv"

# The offline commands on the points done.
said="the sweep has not finished: $done_points of $points points done"
"$at" export -r "$tmp/part" --format csv > "$tmp/part.csv" 2> "$tmp/export.err" ||
    { cat "$tmp/export.err"; fail "export of the interrupted run"; }
grep -q "$said" "$tmp/export.err" || fail "export does not say '$said': $(cat "$tmp/export.err")"
[ "$(($(wc -l < "$tmp/part.csv") - 1))" -eq "$done_points" ] || fail "export: not one row per point done"
# Each row is the uninterrupted run's at that point: the same method.
awk -F, 'NR > 1 { print $1, $2, $3, $4, $5 }' "$tmp/part.csv" | sort > "$tmp/part.rows"
awk -F, 'NR > 1 { print $1, $2, $3, $4, $5 }' "$tmp/full/optimal.csv" | sort > "$tmp/full.rows"
[ -s "$tmp/part.rows" ] && [ -z "$(comm -23 "$tmp/part.rows" "$tmp/full.rows")" ] ||
    fail "export's rows are not the uninterrupted run's: $(comm -23 "$tmp/part.rows" "$tmp/full.rows" | head -3)"
for cmd in "report -r $tmp/part" "report -r $tmp/part --map bcast" "tree -r $tmp/part -o $tmp/t" \
           "quadtree -r $tmp/part --collective bcast -o $tmp/q" "report -r $tmp/part --html $tmp/r.html"; do
    # shellcheck disable=SC2086
    "$at" $cmd > "$tmp/cmd.out" 2> "$tmp/cmd.err" || { cat "$tmp/cmd.err"; fail "$cmd"; }
    [ -s "$tmp/cmd.out" ] || fail "$cmd: no output"
    grep -q "$said" "$tmp/cmd.err" || fail "$cmd does not say '$said': $(cat "$tmp/cmd.err")"
done
[ -e "$tmp/part/optimal.csv" ] && fail "an offline command wrote the run's optimal.csv"

# The same command resumes, to the uninterrupted run's tables.
sweep part > "$tmp/resume.out" 2>&1 || { cat "$tmp/resume.out"; fail "resumed sweep"; }
grep -q "taking the lock over" "$tmp/resume.out" && fail "the resume found a lock left behind"
for t in optimal.csv measurements.csv speedup.csv; do
    [ -s "$tmp/full/$t" ] && cmp "$tmp/full/$t" "$tmp/part/$t" || fail "$t differs from the uninterrupted run"
done
[ "$(records "$tmp/part/journal")" -eq "$total" ] || fail "journal record count differs"
# Read from its journal alone, a run exports what its tables export: the
# same cuts between measured sizes (not the next size's method).
cp -r "$tmp/full" "$tmp/journal-only"
rm -f "$tmp/journal-only/"{optimal,measurements,speedup}.csv
for what in full journal-only; do
    "$at" export -r "$tmp/$what" --format ompi -o "$tmp/$what.rules" 2> "$tmp/$what.err" ||
        { cat "$tmp/$what.err"; fail "export --format ompi of $what"; }
done
[ -s "$tmp/full.rules" ] && diff <(grep -v '^#' "$tmp/full.rules") <(grep -v '^#' "$tmp/journal-only.rules") > /dev/null ||
    fail "the rules of the run read from its journal differ from its tables': $(diff <(grep -v '^#' "$tmp/full.rules") <(grep -v '^#' "$tmp/journal-only.rules") | head -4)"
exit $((fails > 0))
