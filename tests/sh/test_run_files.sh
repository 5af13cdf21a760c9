#!/usr/bin/env bash
# No command writes over a run directory's own files (issue 37, item 3):
# export -o, report --html, tree -o, quadtree -o and predict -o aimed at
# each file of a copy of a committed run (journal, tables, calibration,
# predictions, compare table, lock, profile), by its name, through a
# symbolic link, a hard link or another spelling of the directory, and at
# a run file not yet there, each exit 2 with one line naming the path and
# change nothing. Predicted times go to predicted.csv, and every command
# reading them says they are predictions.
set -u
. "$(dirname "$0")/lib.sh"
at=${AUTOTUNE:-build/autotune}

run=$tmp/run
mkdir "$run" "$tmp/out"
cp results/bench-runs/default-grig/* "$run"/
cp results/bench-runs/model-grig/model.* "$run"/
"$at" predict -r "$run" > /dev/null 2>&1 || fail "predict -r RUN"
"$at" compare -r "$run" > /dev/null 2>&1 || fail "compare -r RUN"
printf 'host 1\n' > "$run/lock"
printf 'autotune-profile 1\n' > "$run/profile.prof"
files="journal measurements.csv optimal.csv speedup.csv compare.csv model.csv model.journal predicted.csv lock profile.prof"
for f in $files; do
    [ -s "$run/$f" ] || fail "the copied run has no $f"
done
sums() { (cd "$run" && md5sum $files; ls -a); }
before=$(sums)

# Tries one command that should be refused: exit 2, one line naming PATH,
# and nothing in the run changed.
refused() { # PATH COMMAND...
    local path=$1 rc
    shift
    "$@" > "$tmp/out.txt" 2> "$tmp/err.txt"
    rc=$?
    [ "$rc" -eq 2 ] || fail "$*: exit $rc, not 2"
    [ "$(wc -l < "$tmp/err.txt")" -eq 1 ] && grep -qF "$path: it is " "$tmp/err.txt" ||
        fail "$*: stderr is not one line naming $path: $(cat "$tmp/err.txt")"
    [ "$(sums)" = "$before" ] || { fail "$*: the run changed"; before=$(sums); }
}

for f in $files; do
    ln -sf "$run/$f" "$tmp/out/sym-$f"
    ln -f "$run/$f" "$tmp/out/hard-$f"
    for p in "$run/$f" "$tmp/../${tmp##*/}/run/$f" "$tmp/out/sym-$f" "$tmp/out/hard-$f"; do
        refused "$p" "$at" export -r "$run" --format csv -o "$p"
        refused "$p" "$at" report -r "$run" --html "$p"
    done
    # -o STEM and -o DIR add their own endings: a link with that name.
    ln -sf "$run/$f" "$tmp/out/stem.dec"
    refused "$tmp/out/stem.dec" "$at" tree -r "$run" -o "$tmp/out/stem"
    refused "$tmp/out/stem.dec" "$at" quadtree -r "$run" --collective bcast -o "$tmp/out/stem"
    mkdir -p "$tmp/out/dir"
    ln -sf "$run/$f" "$tmp/out/dir/predicted.csv"
    refused "$tmp/out/dir/predicted.csv" "$at" predict -r "$run" --procs 8 --sizes 1024 -o "$tmp/out/dir"
done
refused "$run/predicted.csv" "$at" predict -r "$run" --procs 8 --sizes 1024 -o "$run"
# A run file not there yet: its name in the run directory.
refused "$run/grid.csv" "$at" export -r "$run" --format csv -o "$run/grid.csv"
[ -e "$run/grid.csv" ] && fail "export created RUN/grid.csv"
# Another run directory's files too (it holds a journal).
mkdir "$tmp/other"
cp "$run/journal" "$tmp/other/"
refused "$tmp/other/optimal.csv" "$at" export -r "$run" --format csv -o "$tmp/other/optimal.csv"
[ -e "$tmp/other/optimal.csv" ] && fail "export created another run's optimal.csv"
# A link, by another name, to another run directory's file.
cp "$run/optimal.csv" "$tmp/other/"
for f in journal optimal.csv; do
    cp "$tmp/other/$f" "$tmp/other-$f.orig"
    ln -s "$tmp/other/$f" "$tmp/out/link-to-other-$f"
    refused "$tmp/out/link-to-other-$f" "$at" export -r "$run" --format json -o "$tmp/out/link-to-other-$f"
    refused "$tmp/out/link-to-other-$f" "$at" report -r "$run" --html "$tmp/out/link-to-other-$f"
    grep -qF "$tmp/other's" "$tmp/err.txt" || fail "the refusal does not name the other run: $(cat "$tmp/err.txt")"
    cmp -s "$tmp/other/$f" "$tmp/other-$f.orig" || fail "another run's $f changed through a link"
done

# Outputs beside the run's files are written.
"$at" export -r "$run" --format csv -o "$run/rules.csv" > /dev/null 2>&1 || fail "export -o RUN/rules.csv"
# (the committed run's optimal.csv predates the ppn column: one rank per node)
awk -F, -v OFS=, 'NR == 1 { sub(/^collective,procs,/, "collective,procs,ppn,") } NR > 1 { $2 = $2 ",1" } 1' \
    "$run/optimal.csv" > "$tmp/optimal-ppn.csv"
cmp -s "$run/rules.csv" "$tmp/optimal-ppn.csv" || fail "export -o RUN/rules.csv: not the optimal table"
rm -f "$run/lock"
"$at" tree -r "$run" > /dev/null 2>&1 && [ -s "$run/tree.dec" ] || fail "tree -r RUN (default stem)"

# Predictions go to predicted.csv, never to optimal.csv or
# measurements.csv, and whoever reads them says they are predictions.
"$at" predict -r "$run" --procs 8,64 --sizes 1,1024 -o "$tmp/pred" > "$tmp/pred.out" 2>&1 ||
    { cat "$tmp/pred.out"; fail "predict --procs -o DIR"; }
[ -s "$tmp/pred/predicted.csv" ] || fail "predict -o DIR wrote no predicted.csv"
[ -e "$tmp/pred/optimal.csv" ] || [ -e "$tmp/pred/measurements.csv" ] &&
    fail "predict -o DIR wrote tables named as measured ones: $(ls "$tmp/pred")"
points=$(awk -F, 'NR > 1 { print $1, $2, $3, $4 }' "$tmp/pred/predicted.csv" | sort -u | wc -l)
[ "$points" -eq 8 ] || fail "predicted.csv: $points points, not 8 (bcast and reduce at 2 x 2)"
for cmd in "export -r $tmp/pred --format csv" "tree -r $tmp/pred -o $tmp/pt" "report -r $tmp/pred --map bcast"; do
    $at $cmd > "$tmp/p.out" 2> "$tmp/p.err" || { cat "$tmp/p.err"; fail "$cmd"; }
    [ -s "$tmp/p.out" ] || fail "$cmd: no output"
    grep -q "predicted times (autotune predict), not measurements" "$tmp/p.err" ||
        fail "$cmd does not say the times are predicted: $(cat "$tmp/p.err")"
done
# The page says plainly that nothing was measured; tree -r and the map
# call the points predicted (the adaptive grid's wording is for adaptive
# runs: test_adaptive_smpi.sh); a measured run's page says neither.
"$at" report -r "$tmp/pred" --html "$tmp/pred.html" > /dev/null 2> "$tmp/p.err" || fail "report --html of predictions: $(cat "$tmp/p.err")"
"$at" report -r "$run" --html "$tmp/run.html" > /dev/null 2> "$tmp/p.err" || fail "report --html of the run: $(cat "$tmp/p.err")"
[ -s "$tmp/pred.html" ] && [ -s "$tmp/run.html" ] || fail "report --html wrote an empty page"
grep -q "<title>[^<]*(predicted times, nothing measured)</title>" "$tmp/pred.html" ||
    fail "the page of predictions: its title does not say they are predicted"
grep -q "<strong>Nothing here was measured.</strong> These are the model's predicted times" "$tmp/pred.html" ||
    fail "the page of predictions does not say nothing was measured"
grep -q "Nothing here was measured\|nothing measured" "$tmp/run.html" &&
    fail "a measured run's page says nothing was measured"
# Predictions held against themselves are no accuracy of the model.
grep -q "predicted against measured" "$tmp/pred.html" &&
    fail "the page of predictions shows the model's accuracy against predictions"
grep -q "predicted against measured" "$tmp/run.html" ||
    fail "the run's page (it has predicted.csv) lost the model's accuracy"
"$at" tree -r "$tmp/pred" -o "$tmp/pt2" > "$tmp/p.out" 2> "$tmp/p.err" || fail "tree -r of predictions: $(cat "$tmp/p.err")"
grep -q "^  ([0-9]* more points were predicted by the model, not timed: not scored)" "$tmp/p.out" ||
    fail "tree -r of predictions does not call the points predicted: $(grep 'more points' "$tmp/p.out")"
grep -q "adaptive" "$tmp/p.out" && fail "tree -r of predictions speaks of the adaptive grid: $(grep adaptive "$tmp/p.out")"
"$at" report -r "$tmp/pred" --map bcast > "$tmp/p.out" 2> /dev/null || fail "report --map of predictions"
grep -q "^'~' first: predicted by the model (autotune predict), not measured" "$tmp/p.out" ||
    fail "the map of predictions does not call '~' predicted: $(grep "'~'" "$tmp/p.out")"
grep -q "adaptive" "$tmp/p.out" "$tmp/pred.html" && fail "the map or page of predictions speaks of the adaptive grid"

# The rows export gives are the least predicted time at each point.
"$at" export -r "$tmp/pred" --format csv 2> /dev/null | tail -n +2 | sort > "$tmp/exp.csv"
awk -F, 'NR > 1 { k = $1 "," $2 "," $3 "," $4; if (!(k in t) || $7 < t[k]) t[k] = $7 }
    END { for (k in t) print k, t[k] }' "$tmp/pred/predicted.csv" | sort > "$tmp/least.txt"
awk -F, '{ print $1 "," $2 "," $3 "," $4, $7 }' "$tmp/exp.csv" | sort > "$tmp/exp.txt"
[ -s "$tmp/least.txt" ] && cmp -s "$tmp/least.txt" "$tmp/exp.txt" ||
    fail "export of predictions: not the least predicted time per point"
# Headers and warnings name the file read: predicted.csv, or the journal
# of an unfinished sweep (no optimal.csv), with no line number (their
# lines are not the exported rows); an optimal table's warnings name its
# lines, each the row the warning is about.
mkdir "$tmp/part"
cp "$run/journal" "$tmp/part/"
for d in "$tmp/pred:predicted.csv" "$tmp/part:journal" "$run:optimal.csv"; do
    dir=${d%%:*} src=${d#*:}
    for format in ompi mpich; do
        "$at" export -r "$dir" --format $format > "$tmp/src.out" 2> "$tmp/src.err" ||
            { cat "$tmp/src.err"; fail "export -r $dir --format $format"; }
        [ -s "$tmp/src.out" ] || fail "export -r $dir --format $format: no output"
        grep -q "^$dir/$src" "$tmp/src.err" || fail "export -r $dir --format $format: no warning names $src: $(cat "$tmp/src.err")"
        [ $format = mpich ] || grep -q "^# .* written by autotune from $dir/$src\.\$" "$tmp/src.out" ||
            fail "export -r $dir --format ompi: the header does not name $dir/$src: $(head -2 "$tmp/src.out")"
        if [ "$src" != optimal.csv ]; then
            grep -q "optimal\.csv" "$tmp/src.out" "$tmp/src.err" &&
                fail "export -r $dir --format $format names an optimal.csv it did not read: $(grep -h optimal.csv "$tmp/src.out" "$tmp/src.err")"
            grep -q "^$dir/$src:[0-9]" "$tmp/src.err" &&
                fail "export -r $dir --format $format: a line number of $src: $(grep "^$dir/$src:[0-9]" "$tmp/src.err" | head -1)"
        else
            # "RUN/optimal.csv:N: coll P=p m=b: ...": line N is the row of
            # that collective and P whose size is b, or the next measured
            # one above b (a method between measured sizes goes with it),
            # or past the largest measured size (a method the corrected
            # model places there: run has model.csv) the largest's.
            sed -n "s#^$dir/optimal\.csv:\([0-9]*\): \([a-z_]*\) P=\([0-9]*\) m=\([0-9]*\):.*#\1 \2 \3 \4#p" "$tmp/src.err" > "$tmp/lines.txt"
            [ -s "$tmp/lines.txt" ] || fail "export -r RUN --format $format: no line-numbered warning"
            while read -r n coll p m; do
                awk -F, -v n="$n" -v c="$coll" -v p="$p" -v m="$m" '
                    $1 == c && $2 == p && $3 + 0 > most { most = $3 + 0; last = NR }
                    NR == n { ok = $1 == c && $2 == p; at = $3 + 0 }
                    NR < n && $1 == c && $2 == p && $3 + 0 >= m + 0 { before = 1 }
                    END { exit !(ok && !before && (at >= m + 0 || (n == last && m + 0 > most))) }' "$dir/optimal.csv" ||
                    fail "optimal.csv:$n is not the row of $coll P=$p m=$m: $(sed -n "${n}p" "$dir/optimal.csv")"
            done < "$tmp/lines.txt"
        fi
    done
done

# Tables an older predict -o wrote (reps 0, no journal) are told too.
mkdir "$tmp/old"
awk -F, -v OFS=, 'NR > 1 { $6 = 0 } 1' "$run/measurements.csv" > "$tmp/old/measurements.csv"
cp "$run/optimal.csv" "$tmp/old/"
"$at" export -r "$tmp/old" --format csv > /dev/null 2> "$tmp/old.err" || fail "export of old predicted tables"
grep -q "not measurements" "$tmp/old.err" || fail "old predicted tables not told: $(cat "$tmp/old.err")"
exit $((fails > 0))
