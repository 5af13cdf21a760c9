#!/usr/bin/env bash
# The harness times an algorithm, not what surrounds it (SMPI, where time is
# deterministic): on both simulated clusters every own method takes the same
# time whichever collective selector the library uses; the repetitions of an
# experiment are equal (sd 0); a sweep resumed from cuts of its journal
# (between points and inside one) writes byte-identical tables; and a
# journal measured with the old harness is refused, naming the setting.
set -u
. "$(dirname "$0")/lib.sh"
command -v smpirun >/dev/null || { echo "smpirun not found (apt-get install libsimgrid-dev)"; exit 77; }

np=8
write_cfg() { # NAME [PROCS SIZES]
    cat > "$tmp/$1.cfg" <<CFG
output        = "$tmp/$1";
collectives   = ["bcast", "reduce"];
procs         = [${2:-5, 8}];
message_sizes = [${3:-1, 4096, 65536}];
segment_sizes = [0, 1024, 16384];
algorithms    = { bcast = ["linear", "binomial", "pipeline", "split_binary"];
                  reduce = ["binomial", "chain", "in_order_binary"]; };
measure       = { warmup = 1; min_reps = 3; max_reps = 6; rse = 0.05; };
CFG
}
sweep() { # PLATFORM NAME [smpirun options]
    local platform=$1 name=$2; shift 2
    smpirun -np $np -platform conf/platforms/$platform.xml \
        --cfg=smpi/simulate-computation:no "${log:---log=root.thres:critical}" "$@" \
        build/autotune-smpi -c "$tmp/$name.cfg"
}
# The own methods' rows (the library's default is another algorithm under
# each selector), without cost_s (the harness's own messages differ too).
own_times() { grep -v ',default,' "$1" | cut -d, -f1-11; }

for platform in grig frodo; do
    write_cfg $platform-default
    write_cfg $platform-ompi
    write_cfg $platform-mpich
    sweep $platform $platform-default > "$tmp/$platform-default.out" 2>&1 ||
        { cat "$tmp/$platform-default.out"; fail "$platform: sweep"; continue; }
    for sel in ompi mpich; do
        # SimGrid's own notes on its collectives shown: those the harness
        # triggered (hundreds a point) must be gone.
        log=--log=smpi_coll.thres:warning sweep $platform $platform-$sel \
            --cfg=smpi/coll-selector:$sel > "$tmp/$platform-$sel.out" 2>&1 ||
            { cat "$tmp/$platform-$sel.out"; fail "$platform: sweep with $sel"; continue; }
        if ! diff <(own_times "$tmp/$platform-default/measurements.csv") \
                  <(own_times "$tmp/$platform-$sel/measurements.csv") > "$tmp/diff"; then
            head -20 "$tmp/diff"
            fail "$platform: times differ under coll-selector:$sel"
        fi
        lines=$(grep -c 'smpi_colls/INFO' "$tmp/$platform-$sel.out")
        [ "$lines" -eq 0 ] || fail "$platform: $lines SimGrid INFO lines under coll-selector:$sel"
    done
    nonzero=$(awk -F, 'NR > 1 && $12 != "0.000"' "$tmp/$platform-default/measurements.csv" | wc -l)
    rows=$(($(wc -l < "$tmp/$platform-default/measurements.csv") - 1))
    echo "$platform: $rows rows, $nonzero with sd > 0"
    [ "$rows" -gt 60 ] || fail "$platform: only $rows rows"
    [ "$nonzero" -eq 0 ] || fail "$platform: $nonzero experiments whose repetitions differ"
done

# Resume from cuts of a Grig journal: after a few records, inside a point
# (between two of its records), right after a point's end, and just before
# the end. Each cut resumes into the same tables. 1 MiB in 1 KiB segments:
# many flows that end together, where the old harness's times moved.
write_cfg full "8" "1, 1048576"
sweep grig full > "$tmp/full.out" 2>&1 || { cat "$tmp/full.out"; fail "sweep"; }
full=$tmp/full
nonzero=$(awk -F, 'NR > 1 && $12 != "0.000"' "$full/measurements.csv" | wc -l)
[ "$nonzero" -eq 0 ] || fail "1 MiB: $nonzero experiments whose repetitions differ"
lines=$(wc -l < "$full/journal")
first_point=$(grep -n '^p ' "$full/journal" | head -1 | cut -d: -f1)
inside=$(awk '/^p /{n++} n == 3 && /^m /{print NR; exit}' "$full/journal")
for cut in 5 $((inside + 1)) $first_point $((lines / 2)) $((lines - 2)); do
    name=cut-$cut
    write_cfg $name "8" "1, 1048576"
    mkdir -p "$tmp/$name"
    head -n "$cut" "$full/journal" > "$tmp/$name/journal"
    sweep grig $name > "$tmp/$name.out" 2>&1 || { cat "$tmp/$name.out"; fail "resume from line $cut"; continue; }
    for t in measurements.csv optimal.csv speedup.csv; do
        cmp -s "$full/$t" "$tmp/$name/$t" ||
            { diff "$full/$t" "$tmp/$name/$t" | head -6; fail "resumed from line $cut of $lines: $t differs"; }
    done
    echo "resumed from line $cut of $lines: $(grep -o '[0-9]* experiments run' "$tmp/$name.out")"
done

# A journal measured with the barrier-separated harness: refused for
# resume, in one line naming the setting, and left as it was.
mkdir -p "$tmp/old"
cp tests/sh/data/old-harness.journal "$tmp/old/journal"
cat > "$tmp/old.cfg" <<CFG
output        = "$tmp/old";
collectives   = ["bcast", "reduce"];
procs         = [4, 8, 16, 32];
message_sizes = [1, 16, 256, 4096, 65536, 1048576];
segment_sizes = [0, 4096, 32768];
measure       = { warmup = 0; min_reps = 1; max_reps = 1; rse = 0.5; };
CFG
if smpirun -np 32 -platform conf/platforms/grig.xml --cfg=smpi/simulate-computation:no \
        --cfg=smpi/coll-selector:ompi --log=root.thres:critical \
        build/autotune-smpi -c "$tmp/old.cfg" > "$tmp/old.out" 2>&1; then
    fail "a journal of the old harness was resumed"
fi
grep -q "measure.start (journal (none), config window)" "$tmp/old.out" ||
    { cat "$tmp/old.out"; fail "the refusal does not name measure.start"; }
cmp -s tests/sh/data/old-harness.journal "$tmp/old/journal" || fail "the refused journal changed"
[ "$(ls "$tmp/old")" = journal ] || fail "a refused sweep wrote into the run directory: $(ls "$tmp/old")"

[ $fails -eq 0 ] && echo "ok"
exit $((fails > 0))
