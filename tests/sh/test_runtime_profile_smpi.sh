#!/usr/bin/env bash
# Application profiles under SimGrid SMPI: the CG mini-app (tests/apps/cg.c)
# linked with libautotune records AUTOTUNE_PROFILE; its counts are what the
# app says it called; a sweep with profile = "..." measures exactly those
# points, costliest first; report says the run covers all of the app's
# collective time; the app runs with the decision, its result unchanged and
# (simulated time being exact) never slower, no call inside the measured
# range sent to the library, every decision file recording the run's
# chain_fanout; outside the measured range per AUTOTUNE_OUTSIDE. Bad
# profile paths and files are one line each, and the application still
# runs.
source "$(dirname "$0")/lib.sh"
for tool in smpicc smpirun; do
    command -v "$tool" >/dev/null || { echo "test_runtime_profile_smpi: $tool not found" >&2; exit 77; }
done
app=build/tests/rt-smpi/cg
[ -x "$app" ] || { echo "test_runtime_profile_smpi: $app missing (run make tests)" >&2; exit 1; }
smpi() { # NP PROGRAM ARGS...: output in $tmp/out and $tmp/err
    local np=$1; shift
    timeout $((120 * ${TEST_TIME_SCALE:-1})) smpirun -np "$np" -platform conf/platforms/grig.xml \
        --cfg=smpi/simulate-computation:no --cfg=smpi/coll-selector:ompi \
        --log=root.thres:critical "$@" >"$tmp/out" 2>"$tmp/err"
}
args="-n 1024 -i 12 -k 4"

# 1. The profile's points and counts are the app's own.
AUTOTUNE_PROFILE=$tmp/cg.prof smpi 4 "$app" $args || fail "profiled run: $(cat "$tmp/err")"
grep '^cg: P=4 ' "$tmp/out" >"$tmp/default.line" || fail "profiled run printed no result"
[ "$(head -2 "$tmp/cg.prof")" = "$(printf 'autotune-profile 1\nranks 4')" ] ||
    fail "profile header: $(head -2 "$tmp/cg.prof")"
[ ! -e "$tmp/cg.prof.part" ] || fail "cg.prof.part left behind"
sed -n 's/^cg: called //p' "$tmp/out" | sort >"$tmp/called"
awk '!/^#/ && NF == 6 { print $1, $4, $5 }' "$tmp/cg.prof" | sort >"$tmp/recorded"
[ -s "$tmp/called" ] && cmp -s "$tmp/called" "$tmp/recorded" ||
    fail "profile counts differ from the app's: $(diff "$tmp/called" "$tmp/recorded" | tr '\n' ' ')"
awk '!/^#/ && NF == 6 && ($2 != 4 || $3 != 1 || $6 <= 0) { bad = 1 } END { exit bad }' "$tmp/cg.prof" ||
    fail "every point at procs 4, 1 per node, some time: $(cat "$tmp/cg.prof")"
# costliest first, and `autotune profile` says so
awk '!/^#/ && NF == 6 { if (prev != "" && $6 > prev) bad = 1; prev = $6 } END { exit bad }' "$tmp/cg.prof" ||
    fail "profile not in decreasing time"
build/autotune profile "$tmp/cg.prof" -n 2 >"$tmp/show" || fail "autotune profile exit status"
top=$(awk '!/^#/ && NF == 6 { print $1, $2, $3, $4, $5; exit }' "$tmp/cg.prof")
awk 'NR == 3 { print $1, $2, $3, $4, $5 }' "$tmp/show" | grep -qx "$top" ||
    fail "autotune profile's first point is not the costliest ($top): $(cat "$tmp/show")"
grep -q "^(6 more points)$" "$tmp/show" || fail "autotune profile -n 2: $(cat "$tmp/show")"

# 2. The sweep measures exactly the profile's points, costliest first.
cat >"$tmp/cg.cfg" <<CFG
output        = "$tmp/run";
profile       = "$tmp/cg.prof";
segment_sizes = [0, 4096];
chain_fanout  = 8;
search        = "exhaustive";
measure       = { warmup = 0; min_reps = 1; max_reps = 1; rse = 0.5; };
CFG
build/autotune plan -c "$tmp/cg.cfg" >"$tmp/plan" || fail "plan exit status"
grep -q "^profile:       $tmp/cg.prof: 8 points, costliest first$" "$tmp/plan" &&
    grep -q "^procs:         4$" "$tmp/plan" || fail "plan: $(cat "$tmp/plan")"
smpi 4 build/autotune-smpi -c "$tmp/cg.cfg" || fail "sweep from the profile: $(tail -3 "$tmp/err")"
awk -F, 'NR > 1 { print $1, $2, $3, $4 }' "$tmp/run/optimal.csv" >"$tmp/swept"
awk '!/^#/ && NF == 6 { print $1, $2, $3, ($1 == "barrier" ? 0 : $4) }' "$tmp/cg.prof" >"$tmp/wanted"
cmp -s "$tmp/swept" "$tmp/wanted" ||
    fail "swept points are not the profile's, costliest first: $(paste -d'|' "$tmp/swept" "$tmp/wanted" | tr '\n' ' ')"
build/autotune report -r "$tmp/run" >"$tmp/report" || fail "report exit status"
grep -q "^application profile: the run covers 8 of its 8 points, 100.0 % of its" "$tmp/report" ||
    fail "report's coverage line: $(tail -2 "$tmp/report")"
build/autotune profile "$tmp/cg.prof" -r "$tmp/run" >"$tmp/predicted" || fail "profile -r exit status"
grep -q "^predicted with $tmp/run: calls x (default - tuned) = [0-9.]* s saved" "$tmp/predicted" ||
    fail "profile -r's prediction: $(tail -1 "$tmp/predicted")"
# A communicator of one process (MPI_COMM_SELF) has nothing to tune: the
# sweep leaves it out and `autotune profile -r` says why.
{ cat "$tmp/cg.prof"; echo "allreduce 1 1 8 1000 9.5"; } >"$tmp/self.prof"
sed "s#$tmp/cg.prof#$tmp/self.prof#" "$tmp/cg.cfg" >"$tmp/self.cfg"
build/autotune plan -c "$tmp/self.cfg" >"$tmp/plan1" || fail "plan with a 1-process point"
grep -q "^profile:       $tmp/self.prof: 8 points, costliest first$" "$tmp/plan1" ||
    fail "plan of a profile with a 1-process point: $(grep '^profile' "$tmp/plan1")"
build/autotune profile "$tmp/self.prof" -r "$tmp/run" -n 1 >"$tmp/self.show" || fail "profile -r, 1-process point"
grep -q "(one process: nothing to tune)" "$tmp/self.show" || fail "profile -r: $(cat "$tmp/self.show")"

# 3. The app with the decision: same result, never slower, methods ran.
build/autotune export -r "$tmp/run" --format dec -o "$tmp/cg.dec" || fail "export dec"
AUTOTUNE_DECISION=$tmp/cg.dec AUTOTUNE_VERBOSE=1 smpi 4 "$app" $args || fail "tuned run: $(cat "$tmp/err")"
tuned=$(grep '^cg: P=4 ' "$tmp/out")
[ "${tuned% time_s=*}" = "$(sed 's/ time_s=.*//' "$tmp/default.line")" ] ||
    fail "result changed: '$tuned' against '$(cat "$tmp/default.line")'"
awk -v t="${tuned##*time_s=}" '{ sub(/.*time_s=/, ""); exit !(t <= $0) }' "$tmp/default.line" ||
    fail "tuned run slower: $tuned against $(cat "$tmp/default.line")"
grep -q "^libautotune: allgather: [0-9]* calls: [a-z_]*/[0-9]* " "$tmp/err" ||
    fail "no tuned allgather ran: $(cat "$tmp/err")"
# Every call is inside the measured range (the sweep measured the app's
# own points): none goes to the library as outside.
[ -s "$tmp/err" ] && ! grep -q "outside [0-9]" "$tmp/err" ||
    fail "calls inside the range went to the library: $(cat "$tmp/err")"
# The run's chain_fanout (8) is in every decision file written from it,
# and libautotune runs the chain methods with it.
build/autotune tree -r "$tmp/run" -o "$tmp/tree" >/dev/null || fail "tree -r exit status"
build/autotune quadtree -r "$tmp/run" --collective allreduce --accuracy 100 \
    -o "$tmp/quad" >/dev/null || fail "quadtree exit status"
for dec in cg tree quad; do
    grep -qx "chain_fanout 8" "$tmp/$dec.dec" || fail "$dec.dec does not record chain_fanout 8"
done
grep -qx "libautotune: $tmp/cg.dec: [a-z, ]*; chain_fanout 8" "$tmp/err" ||
    fail "libautotune does not run cg.dec's chain_fanout: $(cat "$tmp/err")"

# 4. Outside the measured range (the dec export records it: procs 4
# here): on 3 ranks the library runs (AUTOTUNE_OUTSIDE=library, the
# default), or the nearest measured point's method (nearest); the result
# is the library's either way.
grep -q "^range 0 4 4 " "$tmp/cg.dec" || fail "the dec export records no range: $(tail -3 "$tmp/cg.dec")"
smpi 3 "$app" $args || fail "3 ranks without a decision"
plain=$(grep '^cg: P=3 ' "$tmp/out" | sed 's/ time_s=.*//')
# smpirun exits 0 after a deadlock: two empty outputs would compare equal.
echo "$plain" | grep -qx 'cg: P=3 rows=3072 iterations=12 residual=[0-9.]*e[-+][0-9]*' ||
    fail "3 ranks without a decision: no result line: '$plain' $(tail -3 "$tmp/err")"
for outside in library nearest; do
    AUTOTUNE_OUTSIDE=$outside AUTOTUNE_DECISION=$tmp/cg.dec AUTOTUNE_VERBOSE=1 smpi 3 "$app" $args ||
        fail "outside=$outside: exit status"
    [ "$(grep '^cg: P=3 ' "$tmp/out" | sed 's/ time_s=.*//')" = "$plain" ] ||
        fail "outside=$outside: result changed: $(grep '^cg: P=3 ' "$tmp/out")"
    grep -q "AUTOTUNE_OUTSIDE=$outside; calls summed over ranks$" "$tmp/err" || fail "outside=$outside: header"
done
case $(grep '^libautotune: allgather: ' "$tmp/err") in
*"library"*) fail "outside=nearest: the library ran: $(cat "$tmp/err")" ;;
esac
AUTOTUNE_DECISION=$tmp/cg.dec AUTOTUNE_VERBOSE=1 smpi 3 "$app" $args
grep -q "^libautotune: allgather: [0-9]* calls: library [0-9]* (outside [0-9]*)$" "$tmp/err" ||
    fail "outside=library: allgather's line: $(cat "$tmp/err")"
sed 's/^range 0 4 4 /range 0 4 2 /' "$tmp/cg.dec" >"$tmp/bad-range.dec"
AUTOTUNE_DECISION=$tmp/bad-range.dec smpi 3 "$app" -n 64 -i 2
grep -q '^cg: P=3 ' "$tmp/out" && [ "$(grep -c libautotune "$tmp/err")" = 1 ] &&
    grep -q "^libautotune: AUTOTUNE_DECISION=$tmp/bad-range.dec: .*:[0-9]*: 'range 0 4 2 .*expected 'range COLLECTIVE_INDEX" "$tmp/err" ||
    fail "a damaged range line: $(cat "$tmp/err")"

# 5. A profile that cannot be written: one line, the app runs.
AUTOTUNE_PROFILE=/proc/autotune-test/cg.prof smpi 2 "$app" -n 64 -i 2 || fail "unwritable profile: exit status"
grep -q '^cg: P=2 ' "$tmp/out" || fail "the app did not finish with an unwritable profile"
[ "$(grep -c libautotune "$tmp/err")" = 1 ] &&
    grep -q "^libautotune: AUTOTUNE_PROFILE=/proc/autotune-test/cg.prof: cannot write .*; no profile is recorded$" "$tmp/err" ||
    fail "unwritable profile's line: $(cat "$tmp/err")"

# A profile that cannot be put in place (its path is a directory): one
# line, and the half-written .part removed.
mkdir "$tmp/isdir"
AUTOTUNE_PROFILE=$tmp/isdir smpi 2 "$app" -n 64 -i 2 || fail "profile path a directory: exit status"
grep -q '^cg: P=2 ' "$tmp/out" || fail "the app did not finish with a profile path that is a directory"
grep -qx "libautotune: AUTOTUNE_PROFILE=$tmp/isdir: could not write the profile (Is a directory)" "$tmp/err" ||
    fail "profile path a directory: $(cat "$tmp/err")"
[ ! -e "$tmp/isdir.part" ] || fail "isdir.part left behind"

# 6. A damaged profile: autotune profile names file:line, exit 1.
sed '4s/ [0-9]* / x /' "$tmp/cg.prof" >"$tmp/bad.prof"
build/autotune profile "$tmp/bad.prof" >/dev/null 2>"$tmp/err"
[ $? -eq 1 ] && grep -qx "$tmp/bad.prof:4: expected 'collective procs per_node msg_bytes calls seconds'" "$tmp/err" ||
    fail "damaged profile: $(cat "$tmp/err")"

[ $fails -eq 0 ] || { echo "$fails failures"; exit 1; }
echo "test_runtime_profile_smpi: ok"
