#!/usr/bin/env bash
# The sweep's communicators, made when a size is first needed and at most 8
# at once (the least recently used freed): a simulated sweep over 12
# communicator sizes (so sizes are freed and made again), with the
# surrogate's pipelines on still other sizes, measures every size as a
# sweep of that size alone does, to the last digit (cost included); cut
# anywhere and resumed, it gives byte-identical tables; and a 1,024-rank
# world starts and sweeps a small point in bounded time.
set -u
. "$(dirname "$0")/lib.sh"
command -v smpirun >/dev/null || { echo "smpirun not found (./setup.sh installs simgrid)"; exit 77; }

write_cfg() { # NAME PROCS SEARCH
    cat > "$tmp/$1.cfg" <<CFG
output        = "$tmp/$1";
collectives   = ["bcast", "reduce"];
procs         = $2;
message_sizes = [64, 8192];
segment_sizes = [0, 1024];
baseline      = false;
search        = "$3";
measure       = { warmup = 0; min_reps = 1; max_reps = 1; rse = 0.5; };
CFG
}
sweep() { # NAME NP [PLATFORM]
    smpirun -np "$2" -platform "conf/platforms/${3:-grig}.xml" --cfg=smpi/simulate-computation:no \
        --log=root.thres:critical build/autotune-smpi -c "$tmp/$1.cfg" > "$tmp/$1.out" 2>&1 ||
        { cat "$tmp/$1.out"; fail "sweep $1"; }
}

all="[2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13]"
write_cfg many "$all" exhaustive
sweep many 13
# Each size alone, on a world of 13 ranks: the same rows.
for p in 3 8 13; do
    write_cfg "alone$p" "[$p]" exhaustive
    sweep "alone$p" 13
    grep "^[a-z]*,$p," "$tmp/many/measurements.csv" > "$tmp/many$p.csv"
    tail -n +2 "$tmp/alone$p/measurements.csv" > "$tmp/alone$p.csv"
    # smpirun exits 0 after a deadlock: both tables must hold bcast and
    # reduce at both sizes, at this P only, before they are compared.
    [ "$(cut -d, -f1,2,4 "$tmp/alone$p.csv" | sort -u | tr '\n' ' ')" = \
      "bcast,$p,64 bcast,$p,8192 reduce,$p,64 reduce,$p,8192 " ] ||
        fail "P=$p alone: not bcast and reduce at 64 and 8192 B: $(head -3 "$tmp/alone$p.csv")"
    diff "$tmp/many$p.csv" "$tmp/alone$p.csv" > "$tmp/diff$p" ||
        { cat "$tmp/diff$p"; fail "P=$p measured differently in a sweep of 12 sizes"; }
done

# The surrogate times pipelines on depth + 1 ranks, sizes the grid does not
# list; cut after a third of its records and resumed, the same tables.
write_cfg sur "$all" surrogate
sweep sur 13
write_cfg cut "$all" surrogate
mkdir -p "$tmp/cut"
total=$(grep -c . "$tmp/sur/journal")
head -n $((total / 3)) "$tmp/sur/journal" > "$tmp/cut/journal"
sweep cut 13
for t in optimal.csv measurements.csv; do
    cmp "$tmp/sur/$t" "$tmp/cut/$t" || fail "surrogate resumed from line $((total / 3)): $t differs"
done
pipelines=$(cut -d, -f2 "$tmp/sur/measurements.csv" | sort -un | wc -l)
echo "surrogate: $(grep -o '[0-9]* experiments run' "$tmp/sur.out") over $pipelines sizes; resumed: $(grep -o '[0-9]* experiments run' "$tmp/cut.out")"

# 1,024 simulated ranks: one point on the first 4, in bounded time (the
# sweep used to make 1,024 communicators first).
write_cfg big "[4]" exhaustive
start=$SECONDS
timeout $((120 * ${TEST_TIME_SCALE:-1})) smpirun -np 1024 -platform conf/platforms/fattree.xml \
    --cfg=smpi/simulate-computation:no --log=root.thres:critical build/autotune-smpi \
    -c "$tmp/big.cfg" > "$tmp/big.out" 2>&1 || { tail -5 "$tmp/big.out"; fail "1,024-rank sweep"; }
grep -q '^autotune: 4 points' "$tmp/big.out" || fail "1,024-rank sweep: $(grep -m1 '^autotune:' "$tmp/big.out")"
echo "1,024 ranks, one 4-rank grid: $((SECONDS - start)) s wall"

[ "$fails" -eq 0 ] || { echo "$fails failure(s)"; exit 1; }
echo "all communicator checks passed"
