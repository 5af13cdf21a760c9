#!/usr/bin/env bash
# Pruned search on a simulated cluster, deterministically: a live mgd, smgd
# or surrogate sweep's choices are within the penalty bound of the
# exhaustive optimum; `compare` replays mgd and smgd on the exhaustive run
# and charges what the live sweeps ran; the surrogate times pipelines on
# fewer ranks (compare says which it lacks); a resumed surrogate sweep
# reproduces the uninterrupted one exactly; compare refuses a run that is
# not exhaustive.
set -u
. "$(dirname "$0")/lib.sh"
command -v smpirun >/dev/null || { echo "smpirun not found (./setup.sh installs simgrid)"; exit 77; }

sweep() { # NAME SEARCH PROCS MESSAGE_SIZES SEGMENT_SIZES NP
    cat > "$tmp/$1.cfg" <<CFG
output        = "$tmp/$1";
collectives   = ["bcast", "reduce"];
procs         = $3;
message_sizes = $4;
segment_sizes = $5;
search        = "$2";
measure       = { warmup = 0; min_reps = 1; max_reps = 1; rse = 0.5; };
CFG
    smpirun -np "$6" -platform conf/platforms/grig.xml --cfg=smpi/simulate-computation:no \
        --log=root.thres:critical build/autotune-smpi -c "$tmp/$1.cfg" > "$tmp/$1.out" 2>&1 ||
        { cat "$tmp/$1.out"; fail "$2 sweep"; }
}

# Penalty of each choice of run NAME against the exhaustive optimum of run
# EXH (times are exact under SMPI, so the same method has the same time in
# both runs): at most 5 %, at every one of POINTS points.
check_penalty() { # NAME EXH POINTS
    worst=$(awk -F, 'NR == FNR { if (FNR > 1) best[$1 FS $2 FS $3] = $6; next }
                     FNR > 1 { p = ($6 - best[$1 FS $2 FS $3]) / best[$1 FS $2 FS $3];
                               if (p > w) w = p; n++ }
                     END { printf "%.4f %d\n", w, n }' "$tmp/$2/optimal.csv" "$tmp/$1/optimal.csv")
    echo "$1: worst penalty ${worst% *} over ${worst#* } points; $(grep -o '[0-9]* experiments run ([0-9.]* s' "$tmp/$1.out")"
    awk -v w="${worst% *}" 'BEGIN { exit !(w <= 0.05) }' || fail "$1 penalty ${worst% *} above 5 %"
    [ "${worst#* }" -eq "$3" ] || fail "$1 covered ${worst#* } points, expected $3"
}

grid=("[4, 13]" "{ min = 64; max = 262144; factor = 8; }" "[0, 1024, 4096, 16384, 65536]" 13)
sweep exh exhaustive "${grid[@]}"
for s in mgd smgd; do
    sweep "$s" "$s" "${grid[@]}"
    check_penalty "$s" exh 20
done
echo "exhaustive: $(grep -o '[0-9]* experiments run ([0-9.]* s' "$tmp/exh.out")"

build/autotune compare -r "$tmp/exh" > "$tmp/compare.out" 2> "$tmp/compare.err" ||
    { cat "$tmp/compare.err"; fail "compare"; }
cat "$tmp/compare.err"
cat "$tmp/compare.out"
cmp "$tmp/compare.out" "$tmp/exh/compare.csv" || fail "compare.csv differs from what was printed"
grep -q '^exhaustive,20,[0-9]*,[0-9.]*,1.00,0.000,0.000,100.0$' "$tmp/exh/compare.csv" ||
    fail "exhaustive row: $(grep ^exhaustive "$tmp/exh/compare.csv")"
# --misses adds one line on stderr per missed point, in agreement with the
# optimal_pct column; stdout stays the csv.
build/autotune compare -r "$tmp/exh" --misses > "$tmp/misses.out" 2> "$tmp/misses.err" ||
    fail "compare --misses"
cmp -s "$tmp/misses.out" "$tmp/compare.out" || fail "compare --misses changed the csv"
for s in mgd smgd surrogate; do
    missed=$(grep -c "^miss $s " "$tmp/misses.err")
    expect=$(awk -F, -v s=$s '$1 == s { printf "%d", $2 - $2 * $8 / 100 + 0.5 }' "$tmp/exh/compare.csv")
    [ "$missed" = "$expect" ] || fail "$s: --misses printed $missed lines, compare.csv implies $expect"
done
grep '^miss ' "$tmp/misses.err" | grep -v '^miss [a-z]* [a-z]* P=[0-9]* [0-9]* B: chose [a-z_]*/[0-9]* ([0-9.]* us), optimum [a-z_]*/[0-9]* ([0-9.]* us), penalty [0-9.]* %$' &&
    fail "--misses printed lines of another shape"
# The replay charges each strategy what the live sweep ran.
for s in mgd smgd; do
    live=$(sed -n 's/.* \([0-9]*\) experiments\{0,1\} run.*/\1/p' "$tmp/$s.out")
    replay=$(awk -F, -v s=$s '$1 == s { print $3 }' "$tmp/exh/compare.csv")
    [ "$live" = "$replay" ] || fail "$s: live sweep ran $live experiments, replay charged $replay"
done
# The surrogate where it has no neighbour to start from (the first size of
# the first procs has segments to choose): its trees' segment sizes come
# from pipelines on depth + 1 ranks, which the sweep times on
# communicators of that many ranks and journals like any record (binomial,
# binary and chain on 5 ranks have paths of 1 or 2 hops).
grid2=("[5, 8]" "[16384, 65536]" "[0, 1024, 4096, 16384]" 8)
sweep exh2 exhaustive "${grid2[@]}"
sweep surrogate surrogate "${grid2[@]}"
check_penalty surrogate exh2 8
grep -Eq '^m (bcast|reduce) [234] 1 [0-9]+ pipeline ' "$tmp/surrogate/journal" ||
    fail "the surrogate timed no pipeline on fewer ranks than the point's"
build/autotune compare -r "$tmp/exh2" > /dev/null 2> "$tmp/compare2.err" || fail "compare exh2"
grep -q "surrogate: [0-9]* pipeline experiments on fewer processes were not in the run" \
    "$tmp/compare2.err" || fail "compare did not say which pipelines it lacked: $(cat "$tmp/compare2.err")"
# Resume: the surrogate's journal cut after its first 30 records (a sweep
# killed there, pipelines included), then the same command; the tables must
# be identical.
mkdir -p "$tmp/cut"
sed "s|$tmp/surrogate\"|$tmp/cut\"|" "$tmp/surrogate.cfg" > "$tmp/cut.cfg"
head -n 32 "$tmp/surrogate/journal" > "$tmp/cut/journal"
smpirun -np 8 -platform conf/platforms/grig.xml --cfg=smpi/simulate-computation:no \
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
