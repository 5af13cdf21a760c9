#!/usr/bin/env bash
# Pruned search on a simulated cluster, deterministically: a live mgd, smgd
# or surrogate sweep's choices are within the penalty bound of the
# exhaustive optimum; `compare` replays the strategies on the exhaustive run
# and agrees with the live sweeps (the surrogate's pipelines on fewer ranks
# than the run's procs are not in it, so its count is not compared); a
# resumed surrogate sweep reproduces the uninterrupted one exactly; compare
# refuses a run that is not exhaustive.
set -u
cd "$(dirname "$0")/../.."
command -v smpirun >/dev/null || { echo "smpirun not found (./setup.sh installs simgrid)"; exit 1; }
tmp=$(mktemp -d)
trap '[ -n "${KEEP:-}" ] || rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

sweep() { # NAME SEARCH
    cat > "$tmp/$1.cfg" <<CFG
output        = "$tmp/$1";
collectives   = ["bcast", "reduce"];
procs         = [4, 13];
message_sizes = { min = 64; max = 262144; factor = 8; };
segment_sizes = [0, 1024, 4096, 16384, 65536];
search        = "$2";
measure       = { warmup = 0; min_reps = 1; max_reps = 1; rse = 0.5; };
CFG
    smpirun -np 13 -platform conf/platforms/grig.xml --cfg=smpi/simulate-computation:no \
        --log=root.thres:critical build/autotune-smpi -c "$tmp/$1.cfg" > "$tmp/$1.out" 2>&1 ||
        { cat "$tmp/$1.out"; fail "$2 sweep"; }
}

sweep exh exhaustive
for s in mgd smgd surrogate; do
    sweep "$s" "$s"
    # Penalty of each choice against the exhaustive optimum (times are exact
    # under SMPI, so the same method has the same time in both runs).
    worst=$(awk -F, 'NR == FNR { if (FNR > 1) best[$1 FS $2 FS $3] = $6; next }
                     FNR > 1 { p = ($6 - best[$1 FS $2 FS $3]) / best[$1 FS $2 FS $3];
                               if (p > w) w = p; n++ }
                     END { printf "%.4f %d\n", w, n }' "$tmp/exh/optimal.csv" "$tmp/$s/optimal.csv")
    echo "$s: worst penalty ${worst% *} over ${worst#* } points; $(grep -o '[0-9]* experiments run ([0-9.]* s' "$tmp/$s.out")"
    awk -v w="${worst% *}" 'BEGIN { exit !(w <= 0.05) }' || fail "$s penalty ${worst% *} above 5 %"
    [ "${worst#* }" -eq 20 ] || fail "$s covered ${worst#* } points, expected 20"
done
echo "exhaustive: $(grep -o '[0-9]* experiments run ([0-9.]* s' "$tmp/exh.out")"

build/autotune compare -r "$tmp/exh" > "$tmp/compare.out" 2>&1 || { cat "$tmp/compare.out"; fail "compare"; }
cat "$tmp/compare.out"
cmp "$tmp/compare.out" "$tmp/exh/compare.csv" || fail "compare.csv differs from what was printed"
grep -q '^exhaustive,20,[0-9]*,[0-9.]*,1.00,0.000,0.000,100.0$' "$tmp/exh/compare.csv" ||
    fail "exhaustive row: $(grep ^exhaustive "$tmp/exh/compare.csv")"
# The replay charges each strategy what the live sweep ran.
for s in mgd smgd; do
    live=$(sed -n 's/.* \([0-9]*\) experiments run.*/\1/p' "$tmp/$s.out")
    replay=$(awk -F, -v s=$s '$1 == s { print $3 }' "$tmp/exh/compare.csv")
    [ "$live" = "$replay" ] || fail "$s: live sweep ran $live experiments, replay charged $replay"
done
# Resume: the surrogate's journal cut after its first 40 records (a sweep
# killed there), then the same command; the tables must be identical.
mkdir -p "$tmp/cut"
sed "s|$tmp/surrogate\"|$tmp/cut\"|" "$tmp/surrogate.cfg" > "$tmp/cut.cfg"
head -n 42 "$tmp/surrogate/journal" > "$tmp/cut/journal"
smpirun -np 13 -platform conf/platforms/grig.xml --cfg=smpi/simulate-computation:no \
    --log=root.thres:critical build/autotune-smpi -c "$tmp/cut.cfg" > "$tmp/cut.out" 2>&1 ||
    { cat "$tmp/cut.out"; fail "resumed surrogate sweep"; }
for f in optimal.csv measurements.csv; do
    cmp -s "$tmp/surrogate/$f" "$tmp/cut/$f" || fail "resumed surrogate sweep: $f differs"
done
# A pruned run cannot be the reference.
build/autotune compare -r "$tmp/smgd" > /dev/null 2> "$tmp/err" && fail "compare accepted a pruned run"
grep -q "is not an exhaustive run (.* was searched with smgd)" "$tmp/err" || fail "refusal: $(cat "$tmp/err")"
echo "$fails failure(s)"
[ $fails -eq 0 ]
