#!/usr/bin/env bash
# The profile's arrivals under SimGrid SMPI, where time is exact: the
# ranks of tests/apps/arrival.c wait known (simulated) delays before each
# call (a staircase of 10 us a rank, the root 50 us late, one rank 40 us
# late, every rank but the root 25 us late, one late rank in each of two
# communicators of the same size whose schedules are 1 ms apart, no
# delay); the profile's spread (median and p90) is the delays' to within
# 1 us and its shape the one the delays make; every call sampled, or of
# 1100 calls every fourth (275: the sample of 512 halved twice); up to 16
# of the sampled calls' offsets kept as they were (offsets lines), each
# the delays to within 1 us; the next call (each pattern's own again);
# `autotune profile` shows them; a sweep with measure.arrival = "profile"
# times its reduce point (replaying its recorded calls, the root 50 us
# late) as the pattern written out does; a malformed
# arrival line is one line file:line, exit 1.
source "$(dirname "$0")/lib.sh"
for tool in smpicc smpirun; do
    command -v "$tool" >/dev/null || { echo "test_runtime_arrival_smpi: $tool not found" >&2; exit 77; }
done
app=build/tests/rt-smpi/arrival
[ -x "$app" ] || { echo "test_runtime_arrival_smpi: $app missing (run make tests)" >&2; exit 1; }
# The calls a rank keeps of n: every s-th, s the least power of two
# leaving at most 512 (the sample halves when full), counted from call 0.
kept() {
    local n=$1 s=1
    while [ $(((n + s - 1) / s)) -gt 512 ]; do s=$((2 * s)); done
    echo $(((n + s - 1) / s))
}

# Each pattern's delays (us) by rank, listed from its root's rank (the
# reduce's root is rank 2, the second bcast's rank 1); the two
# communicators of 2 ranks both have their second rank 20 us late.
declare -A offsets=(
    ["bcast 4 8"]="0 10 20 30" ["reduce 4 8"]="50 0 0 0"
    ["allreduce 4 8"]="0 40 0 0" ["bcast 4 16"]="0 25 25 25"
    ["allreduce 2 16"]="0 20" ["allgather 4 8"]="0 0 0 0")

for run in "none 20" "binomial 20" "none 1100"; do
    read -r decision iterations <<<"$run"
    dec_env=()
    if [ "$decision" = binomial ]; then
        # Algorithms of collectives/ run: the arrivals are the application's
        # whichever method runs the call.
        printf 'autotune-decision 1\nkind flat\nmethods 1\nbinomial/0\ncollectives 1\nbcast 0\nnodes 1\nleaf 0\n' >"$tmp/binomial.dec"
        dec_env=(AUTOTUNE_DECISION="$tmp/binomial.dec")
    fi
    env "${dec_env[@]}" AUTOTUNE_PROFILE="$tmp/a.prof" \
        timeout $((120 * ${TEST_TIME_SCALE:-1})) smpirun -np 4 -platform conf/platforms/grig.xml \
        --cfg=smpi/simulate-computation:no --log=root.thres:critical \
        "$app" -i $iterations >"$tmp/out" 2>"$tmp/err" || fail "$run: run: $(tail -3 "$tmp/err")"
    [ "$(grep -c '^arrival: ' "$tmp/out")" = 6 ] || fail "$run: the app's patterns: $(cat "$tmp/out")"
    # Each pattern's point in the profile, then its arrival line.
    while read -r _ coll procs msg spread shape; do
        want_sampled=$(kept $iterations)
        [ "$procs" = 2 ] && want_sampled=$((2 * want_sampled)) # two communicators
        got=$(awk -v c="$coll" -v p="$procs" -v m="$msg" '
            found { print; exit }
            $1 == c && $2 == p && $4 == m && NF == 6 { found = 1 }' "$tmp/a.prof")
        read -r tag sampled p50 p90 got_shape <<<"$got"
        [ "$tag" = arrival ] || { fail "$run: $coll $procs $msg: no arrival line: $(cat "$tmp/a.prof")"; continue; }
        [ "$sampled" = "$want_sampled" ] || fail "$run: $coll $procs $msg: $sampled calls sampled, want $want_sampled"
        awk -v a="$p50" -v b="$p90" -v s="$spread" 'BEGIN {
            d1 = a - s; d2 = b - s; exit !(d1 <= 1 && d1 >= -1 && d2 <= 1 && d2 >= -1) }' ||
            fail "$run: $coll $procs $msg: spread $p50 / $p90 us, want $spread"
        [ "$got_shape" = "$shape" ] || fail "$run: $coll $procs $msg: shape $got_shape, want $shape"
        # The calls kept as recorded: min(16, sampled) offsets lines, each
        # the delays (from the root's rank round) to within 1 us.
        want_offsets=${offsets["$coll $procs $msg"]}
        want_lines=$((want_sampled < 16 ? want_sampled : 16))
        awk -v c="$coll" -v p="$procs" -v m="$msg" '
            $1 == c && $2 == p && $4 == m && NF == 6 { at = NR + 1; next }
            at && NR > at && $1 == "offsets" { print; at++; next }
            at && NR > at { exit }' "$tmp/a.prof" >"$tmp/offsets"
        [ "$(wc -l <"$tmp/offsets")" = "$want_lines" ] ||
            fail "$run: $coll $procs $msg: $(wc -l <"$tmp/offsets") offsets lines, want $want_lines"
        awk -v want="$want_offsets" '{
            n = split(want, w, " ")
            if (NF != n + 1) exit 1
            for (i = 1; i <= n; i++) { d = $(i + 1) - w[i]; if (d > 1 || d < -1) exit 1 } }' "$tmp/offsets" ||
            fail "$run: $coll $procs $msg: offsets $(head -1 "$tmp/offsets"), want $want_offsets"
        # The call that came next: the pattern's own (each calls it again,
        # a period later: the mean gap between 0 and the period, 5 ms).
        read -r tag next_coll next_msg gap < <(awk -v c="$coll" -v p="$procs" -v m="$msg" '
            $1 == c && $2 == p && $4 == m && NF == 6 { at = 1; next }
            at && $1 == "next" { print; exit }
            at && $1 != "offsets" && $1 != "arrival" { exit }' "$tmp/a.prof")
        [ "$tag $next_coll $next_msg" = "next $coll $msg" ] &&
            awk -v g="$gap" 'BEGIN { exit !(g > 0 && g < 5000) }' ||
            fail "$run: $coll $procs $msg: next line '$tag $next_coll $next_msg $gap'"
    done < <(grep '^arrival: ' "$tmp/out")
done

# autotune profile shows them beside calls and time.
build/autotune profile "$tmp/a.prof" >"$tmp/show" || fail "autotune profile exit status"
grep -q "^collective .* spread_p50 spread_p90 arrival" "$tmp/show" || fail "header: $(sed -n 2p "$tmp/show")"
awk '$1 == "reduce" && $2 == 4 && $4 == 8 && $8 == "50.000" && $9 == "50.000" && $10 == "root_last" { ok = 1 }
     END { exit !ok }' "$tmp/show" || fail "autotune profile's reduce line: $(cat "$tmp/show")"

# The recorded profile tunes under its own arrivals (measure.arrival =
# "profile"): its reduce at 4 ranks, 8 B (the root 50 us late) is timed
# as a sweep with that pattern written out times it.
tune() { # NAME ARRIVAL [GRID]
    printf 'output = "%s/%s";\ncollectives = ["reduce"];\n%s\nsegment_sizes = [0];\nmeasure = { warmup = 1; min_reps = 3; max_reps = 5; rse = 0.05; arrival = %s; };\n' \
        "$tmp" "$1" "${3:-profile = \"$tmp/a.prof\";}" "$2" >"$tmp/$1.cfg"
    smpirun -np 4 -platform conf/platforms/grig.xml --cfg=smpi/simulate-computation:no \
        --log=root.thres:critical build/autotune-smpi -c "$tmp/$1.cfg" >"$tmp/$1.out" 2>&1 ||
        fail "$1: sweep: $(tail -3 "$tmp/$1.out")"
}
tune from-profile '"profile"'
tune written-out '{ spread_us = 50.0; shape = "root_last"; }' 'procs = [4];
message_sizes = [8];'
# (The times, not cost_s: the recorded calls are sent to the ranks first.)
got=$(awk -F, '$1 == "reduce" && $2 == 4 && $4 == 8 { NF--; print }' OFS=, "$tmp/from-profile/measurements.csv" 2>/dev/null)
want=$(awk -F, 'NR > 1 { NF--; print }' OFS=, "$tmp/written-out/measurements.csv" 2>/dev/null)
[ -n "$got" ] && [ "$got" = "$want" ] || fail "reduce 4 x 8 B under the profile's pattern: '$got', written out: '$want'"
grep -q ' measure.arrival=profile ' "$tmp/from-profile/journal" || fail "the journal does not record measure.arrival=profile"

# A malformed arrival field: one line, file:line, exit 1.
line=$(grep -n '^arrival ' "$tmp/a.prof" | head -1 | cut -d: -f1)
sed "${line}s/^arrival \([0-9]*\) [0-9.]* /arrival \1 -3 /" "$tmp/a.prof" >"$tmp/bad.prof"
build/autotune profile "$tmp/bad.prof" >/dev/null 2>"$tmp/err"
rc=$?
[ $rc -eq 1 ] && [ "$(cat "$tmp/err")" = "$tmp/bad.prof:$line: spread_median_us is not a time >= 0" ] ||
    fail "malformed arrival: exit $rc: $(cat "$tmp/err")"

[ $fails -eq 0 ] || { echo "$fails failures"; exit 1; }
echo "test_runtime_arrival_smpi: ok"
