#!/usr/bin/env bash
# backend native forces Open MPI's own algorithms: test_native checks that a
# forced bcast has the forced algorithm's dependencies and that a forced
# algorithm that cannot run fails; a small native sweep journals the
# library's algorithms by name, with the default as default/0, speedup.csv
# and report; under SMPI, which has no MPI_T, backend native stops with one
# line before anything is written.
set -u
. "$(dirname "$0")/lib.sh"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

mpirun -np 4 --oversubscribe build/tests/mpi/test_native || fail "test_native"

cat > "$tmp/n.cfg" <<CFG
output        = "$tmp/run";
collectives   = ["bcast", "reduce"];
procs         = [4];
message_sizes = [1, 4096];
segment_sizes = [0, 1024];
algorithms    = { bcast = ["linear", "binomial", "scatter_allgather"];
                  reduce = ["binomial", "rabenseifner"]; };
backend       = "native";
measure       = { warmup = 1; min_reps = 2; max_reps = 3; rse = 0.5; };
CFG
mpirun -np 4 --oversubscribe build/autotune -c "$tmp/n.cfg" > "$tmp/out" 2>&1 ||
    { cat "$tmp/out"; fail "native sweep"; }
cat "$tmp/out" | grep -v '^\[autotune\]'
j=$tmp/run/journal
grep -q '^settings .*backend=native .*default=ompi:coll=^han,hcoll;rules=fixed ' "$j" ||
    fail "journal settings: $(grep ^settings "$j")"
# method present (1) or absent (0): COLL MSG ALG SEG APPLICABLE
has() { grep -q "^m $1 4 1 $2 $3 $4 $5 " "$j"; }
has bcast 4096 linear 0 1 || fail "bcast linear/0 not timed"
has bcast 4096 linear 1024 . && fail "linear/1024 timed: Open MPI's linear takes no segment size"
has bcast 4096 binomial 1024 1 || fail "bcast binomial/1024 not timed"
has bcast 1 scatter_allgather 0 0 || fail "scatter_allgather at 1 B on 4 ranks (Open MPI runs linear) not recorded as not applicable"
has bcast 4096 scatter_allgather 0 1 || fail "scatter_allgather at 4096 B not timed"
has reduce 1 rabenseifner 0 0 || fail "rabenseifner at 1 B (Open MPI runs linear) not recorded as not applicable"
for p in "bcast 1" "bcast 4096" "reduce 1" "reduce 4096"; do
    has ${p% *} ${p#* } default 0 1 || fail "no default/0 record at $p"
done
[ "$(wc -l < "$tmp/run/speedup.csv")" -eq 5 ] || fail "speedup.csv: $(cat "$tmp/run/speedup.csv")"
grep -q '^collective,procs,ppn,msg_bytes,algorithm,segment_bytes,time_us,default_us,speedup$' "$tmp/run/speedup.csv" ||
    fail "speedup.csv header"
grep -q "baseline default/0 (ompi:coll=^han,hcoll;rules=fixed): 4 measured" "$tmp/out" || fail "summary line"
build/autotune report -r "$tmp/run" > "$tmp/report" || fail "report"
cat "$tmp/report"
grep -q '^run .*: backend native, library Open_MPI' "$tmp/report" || fail "report header"
grep -qE '^all +4 ' "$tmp/report" || fail "report: no 'all' row over 4 points"

# SMPI has no MPI_T: one line, non-zero exit, nothing written.
if command -v smpirun >/dev/null; then
    sed "s|$tmp/run|$tmp/smpi|" "$tmp/n.cfg" > "$tmp/s.cfg"
    if smpirun -np 4 -platform conf/platforms/grig.xml --log=root.thres:critical \
        build/autotune-smpi -c "$tmp/s.cfg" > "$tmp/s.out" 2> "$tmp/s.err"; then
        fail "backend native ran under SMPI"
    fi
    cat "$tmp/s.err"
    [ "$(grep -c 'backend native: SMPI has no MPI_T control variables' "$tmp/s.err")" -eq 1 ] ||
        fail "SMPI refusal: $(cat "$tmp/s.err")"
    [ -e "$tmp/smpi" ] && fail "SMPI refusal created the run directory"
fi
echo "$fails failure(s)"
[ $fails -eq 0 ]
