#!/usr/bin/env bash
# A damaged line in the middle of a journal (a NUL byte, an over-long line)
# is reported with its line and skipped, and every line after it is kept: a
# resumed sweep measures only the damaged record again, and compare and
# report read the rest meanwhile. A damaged settings line (line 2) refuses
# the resume in one line, whatever the config, and leaves the run directory
# as it was; the offline commands say what they cannot know. Each damaged
# line is said once per command.
set -u
. "$(dirname "$0")/lib.sh"
. tests/sh/lib_sweep.sh

write_cfg ref
sweep ref > "$tmp/ref.out" 2>&1 || { cat "$tmp/ref.out"; fail "reference sweep"; }
build/autotune compare -r "$tmp/ref" > "$tmp/ref.compare" 2> /dev/null || fail "compare of the reference"
build/autotune report -r "$tmp/ref" > "$tmp/ref.report" 2> /dev/null || fail "report of the reference"
total=$(records "$tmp/ref/journal")
lines=$(wc -l < "$tmp/ref/journal")
# An applicable record past the middle, and a line before it.
line=$(awk -v half=$((lines / 2)) 'NR > half && /^m / && $8 == 1 { print NR; exit }' "$tmp/ref/journal")
echo "reference: $total records on $lines lines; damaging line $line"

# A NUL byte in place of line $line's first space.
copy_run ref nul
{ head -n $((line - 1)) "$tmp/ref/journal"; printf 'm\0'
  sed -n "${line}p" "$tmp/ref/journal" | cut -c3-
  tail -n +$((line + 1)) "$tmp/ref/journal"; } > "$tmp/nul/journal"
sweep nul > "$tmp/nul.out" 2>&1 || { cat "$tmp/nul.out"; fail "resume after a NUL byte"; }
grep -q "^$tmp/nul/journal:$line: damaged line (a NUL byte), skipped$" "$tmp/nul.out" ||
    fail "the NUL byte was not reported on its line: $(grep -m1 "journal:" "$tmp/nul.out")"
grep -q "torn" "$tmp/nul.out" && fail "a damaged middle line was taken for a torn last line"
[ "$(measured "$tmp/nul.out")" -eq 1 ] ||
    fail "after a NUL byte on line $line, $(measured "$tmp/nul.out") experiments measured again, not 1"
[ "$(records "$tmp/nul/journal")" -eq "$total" ] || fail "the journal lost records after the NUL byte"

# 3000 bytes of junk inserted as one line after line $line.
copy_run ref long
{ head -n "$line" "$tmp/ref/journal"; printf '%3000s\n' '' | tr ' ' x
  tail -n +$((line + 1)) "$tmp/ref/journal"; } > "$tmp/long/journal"
build/autotune compare -r "$tmp/long" > "$tmp/long.compare" 2> "$tmp/long.err" || fail "compare with an over-long line"
grep -q "^$tmp/long/journal:$((line + 1)): damaged line (longer than 1024 bytes), skipped$" "$tmp/long.err" ||
    fail "the over-long line was not reported: $(grep -m1 "journal:" "$tmp/long.err")"
cmp -s "$tmp/long.compare" "$tmp/ref.compare" || fail "compare read part of the journal only"
build/autotune report -r "$tmp/long" 2> /dev/null | sed "s|$tmp/long|$tmp/ref|" | cmp -s - "$tmp/ref.report" ||
    fail "report read part of the journal only"
sweep long > "$tmp/long.out" 2>&1 || { cat "$tmp/long.out"; fail "resume after an over-long line"; }
[ "$(measured "$tmp/long.out")" -eq 0 ] ||
    fail "after an over-long line, $(measured "$tmp/long.out") experiments measured again, not 0"

for run in nul long; do
    for t in optimal.csv measurements.csv speedup.csv; do
        cmp -s "$tmp/ref/$t" "$tmp/$run/$t" || fail "$run: $t differs from the undamaged run's"
    done
done

# A bad checksum on two lines: every offline command says each once (it
# reads the journal once), skips them and succeeds.
copy_run ref sum
line2=$(awk -v from=$((line + 1)) 'NR > from && /^m / { print NR; exit }' "$tmp/ref/journal")
for l in "$line" "$line2"; do
    sed -i "${l}s/^\(.\{19\}\)./\1Z/" "$tmp/sum/journal"
done
cmp -s "$tmp/ref/journal" "$tmp/sum/journal" && fail "the checksums were not damaged"
for cmd in "export -r $tmp/sum --format csv -o $tmp/sum.csv" "report -r $tmp/sum" \
    "report -r $tmp/sum --map bcast --html $tmp/sum.html" "tree -r $tmp/sum" \
    "quadtree -r $tmp/sum --collective bcast --depth 2" "compare -r $tmp/sum"; do
    # shellcheck disable=SC2086
    build/autotune $cmd > /dev/null 2> "$tmp/sum.err" || fail "autotune $cmd: $(cat "$tmp/sum.err")"
    for l in "$line" "$line2"; do
        n=$(grep -c "^$tmp/sum/journal:$l: damaged line (bad checksum), skipped$" "$tmp/sum.err")
        [ "$n" -eq 1 ] || fail "autotune $cmd: line $l reported $n times, not once"
    done
    [ "$(grep -c "damaged line" "$tmp/sum.err")" -eq 2 ] ||
        fail "autotune $cmd: not 2 damaged lines in all: $(cat "$tmp/sum.err")"
done

# A damaged settings line: a resume with other measure settings, on another
# platform, or with the very same config is refused, and nothing changes.
copy_run ref set
sed -i '2s/measure\.rse=0\.5/measure.rse=0.1/' "$tmp/set/journal"
cp "$tmp/set/journal" "$tmp/set.journal"
before=$(dir_sum "$tmp/set")
write_cfg set exhaustive 0.1
for p in conf/platforms/frodo.xml conf/platforms/grig.xml; do
    if platform=$p sweep set > "$tmp/set.out" 2>&1; then
        fail "a journal with a damaged settings line was resumed on $p"
    fi
    grep -q "^$tmp/set/journal:2: damaged settings line (bad checksum), so the config cannot be checked" "$tmp/set.out" ||
        fail "refusal: $(cat "$tmp/set.out")"
    # (smpirun adds its command and "Execution failed")
    [ "$(grep -cv '^build/autotune-smpi \|^Execution failed' "$tmp/set.out")" -eq 1 ] ||
        fail "the refusal is not one line: $(cat "$tmp/set.out")"
    [ "$(dir_sum "$tmp/set")" = "$before" ] || fail "a refused resume changed the run directory"
done
copy_run ref same
sed -i '2s/measure\.rse=0\.5/measure.rse=0.1/' "$tmp/same/journal"
sweep same > "$tmp/same.out" 2>&1 && fail "a damaged settings line was resumed with the same config"
# Offline commands read the records, and say what they cannot know.
build/autotune compare -r "$tmp/set" > "$tmp/set.compare" 2> "$tmp/set.err" || fail "compare with damaged settings"
grep -q "journal:2: damaged settings line (bad checksum): how the run was measured is unknown" "$tmp/set.err" ||
    fail "compare did not say the settings are unknown: $(cat "$tmp/set.err")"
grep -q "chain_fanout 4, as the journal's settings are unknown" "$tmp/set.err" || fail "compare: $(cat "$tmp/set.err")"
cmp -s "$tmp/ref.compare" "$tmp/set.compare" || fail "compare with damaged settings differs"
build/autotune export -r "$tmp/set" --format csv > /dev/null 2> "$tmp/set.err" || fail "export with damaged settings"
grep -q "assuming backend own, chain_fanout 4 and an unknown MPI library" "$tmp/set.err" || fail "export: $(cat "$tmp/set.err")"
build/autotune report -r "$tmp/set" > /dev/null 2>&1 || fail "report with damaged settings"
# --fresh starts over and keeps the damaged journal.
write_cfg set
sweep set --fresh > "$tmp/fresh.out" 2>&1 || { cat "$tmp/fresh.out"; fail "--fresh after damaged settings"; }
cmp -s "$tmp/set.journal" "$tmp/set/old/1/journal" || fail "--fresh did not keep the damaged journal"
cmp -s "$tmp/ref/optimal.csv" "$tmp/set/optimal.csv" || fail "--fresh: optimal.csv differs"

echo "$fails failure(s)"
[ $fails -eq 0 ]
