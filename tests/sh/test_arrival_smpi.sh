#!/usr/bin/env bash
# measure.arrival under SMPI, where time is exact: the harness's time of the
# library's bcast, reduce and allreduce with the root arriving late, and
# after a barrier, equals to the nanosecond a hand-written loop's
# (tests/mpi/arrival_probe.c); a sweep killed (kill -9) midway under each
# pattern resumes into a byte-identical measurements.csv; a resume under
# another pattern is refused in one line naming measure.arrival;
# measure.arrival = "profile" times each point as its profile point's
# pattern written out does (its recorded calls, where the profile has
# them, as a hand loop replaying them does, and with the call that came
# next behind it), and refuses a resume with another profile's.
set -u
. "$(dirname "$0")/lib.sh"
command -v smpirun >/dev/null || { echo "smpirun not found (apt-get install libsimgrid-dev)"; exit 77; }

np=8
platform=conf/platforms/grig.xml
write_cfg() { # NAME ARRIVAL [COLLECTIVES SIZES]
    local colls=${3:-'"bcast", "reduce"'}
    cat > "$tmp/$1.cfg" <<CFG
output        = "$tmp/$1";
collectives   = [$colls];
procs         = [8];
message_sizes = [${4:-1, 16384, 65536}];
segment_sizes = [0, 4096];
measure       = { warmup = 1; min_reps = 3; max_reps = 6; rse = 0.05;
                  arrival = $2; };
CFG
}
sweep() { # NAME
    smpirun -np $np -platform $platform --cfg=smpi/simulate-computation:no \
        --log=root.thres:critical build/autotune-smpi -c "$tmp/$1.cfg"
}
probe() { # COLL BYTES MODE...
    smpirun -np $np -platform $platform --cfg=smpi/simulate-computation:no \
        --log=root.thres:critical build/tests/smpi/arrival_probe "$@"
}

# The library's own collective (the default row) against the hand loop:
# every repetition of both is the same time, so the median is it.
compare_with_probe() { # NAME ARRIVAL PROBE_MODE...
    local name=$1 arrival=$2
    shift 2
    write_cfg "$name" "$arrival" '"bcast", "reduce", "allreduce"' "1, 4096, 65536"
    sweep "$name" > "$tmp/$name.out" 2>&1 || { cat "$tmp/$name.out"; fail "$name: sweep"; return; }
    for coll in bcast reduce allreduce; do
        for bytes in 1 4096 65536; do
            harness=$(awk -F, -v c=$coll -v b=$bytes \
                '$1 == c && $4 == b && $5 == "default" {print $9}' "$tmp/$name/measurements.csv")
            hand=$(probe $coll $bytes "$@" 2> "$tmp/probe.err" | grep "^time_us" | sort -u)
            [ -n "$harness" ] && [ -n "$hand" ] ||
                { cat "$tmp/probe.err"; fail "$name: $coll $bytes B: harness '$harness', hand '$hand'"; continue; }
            [ "$hand" = "time_us $harness" ] ||
                fail "$name: $coll $bytes B: harness $harness us, hand loop $hand"
        done
    done
    echo "$name: $(grep -c ',default,' "$tmp/$name/measurements.csv") default rows compared with the hand loop"
}
compare_with_probe root-last '{ spread_us = 120.0; shape = "root_last"; }' root_last 120
compare_with_probe barrier '"barrier"' barrier
# Not the same figures as a common start: the pattern changed something.
cmp -s <(cut -d, -f1-9 "$tmp/root-last/measurements.csv") \
    <(cut -d, -f1-9 "$tmp/barrier/measurements.csv") && fail "root_last and barrier times are the same"

# Kill each pattern's sweep with a third of its records on disk, resume.
n=0
for arrival in '"together"' '"barrier"' \
    '{ spread_us = 40.0; shape = "uniform"; }' \
    '{ spread_us = 40.0; shape = "root_last"; }' \
    '{ spread_us = 40.0; shape = "root_first"; }' \
    '{ spread_us = 40.0; shape = "one_late"; }'; do
    n=$((n + 1))
    write_cfg full$n "$arrival"
    write_cfg part$n "$arrival"
    sweep full$n > "$tmp/full$n.out" 2>&1 || { cat "$tmp/full$n.out"; fail "$arrival: sweep"; continue; }
    total=$(records "$tmp/full$n/journal")
    killed_at=$(kill_at_records "$tmp/part$n/journal" $((total / 3)) "$tmp/part$n-1.out" sweep part$n)
    [ "$killed_at" -lt "$total" ] || fail "$arrival: the sweep ended before it was killed"
    sweep part$n > "$tmp/part$n-2.out" 2>&1 || { cat "$tmp/part$n-2.out"; fail "$arrival: resume"; continue; }
    [ -s "$tmp/full$n/measurements.csv" ] || fail "$arrival: no measurements"
    cmp "$tmp/full$n/measurements.csv" "$tmp/part$n/measurements.csv" ||
        fail "$arrival: resumed from $killed_at of $total records: measurements.csv differs"
    echo "$arrival: killed at $killed_at of $total records, resumed: $(grep -o '[0-9]* experiments run' "$tmp/part$n-2.out")"
done
# Only a pattern other than "together" is a setting (old journals resume).
grep -q 'measure.arrival' "$tmp/full1/journal" && fail "together is recorded"
grep -q ' measure.arrival=barrier ' "$tmp/full2/journal" || fail "barrier is not recorded"
grep -q ' measure.arrival=root_last:40us ' "$tmp/full4/journal" || fail "root_last is not recorded"
# The shapes differ from each other and from a common start.
for i in 3 4 5 6; do
    cmp -s <(cut -d, -f1-9 "$tmp/full1/measurements.csv") \
        <(cut -d, -f1-9 "$tmp/full$i/measurements.csv") && fail "pattern $i times as together"
done

# A resume under another pattern: refused in one line, the journal as it was.
before=$(md5sum < "$tmp/full4/journal")
write_cfg full4 '{ spread_us = 40.0; shape = "root_first"; }'
if sweep full4 > "$tmp/other.out" 2>&1; then
    fail "a root_last journal was resumed under root_first"
elif ! grep -q "conflicts with the recorded sweep: measure.arrival (journal root_last:40us, config root_first:40us); use --fresh" "$tmp/other.out"; then
    fail "refusal: $(grep -m1 conflict "$tmp/other.out")"
fi
write_cfg full2 '"together"'
sweep full2 > "$tmp/other2.out" 2>&1 && fail "a barrier journal was resumed under together"
grep -q "measure.arrival (journal barrier, config (none))" "$tmp/other2.out" ||
    fail "refusal: $(grep -m1 conflict "$tmp/other2.out")"
[ "$(md5sum < "$tmp/full4/journal")" = "$before" ] || fail "the refused journal changed"

# measure.arrival = "profile": each point under its own profile point's
# recorded pattern. A profile written by hand: bcast 64 KiB with the root
# 120 us late (as measured: median spread 120 us, shape root_last), and
# bcast 1 B with every rank together; each row equals the same point's
# under the pattern written out in the config.
cat > "$tmp/app.prof" <<PROF
autotune-profile 1
ranks 8
bcast 8 1 65536 10 0.5
arrival 10 120.000 90000.000 root_last
bcast 8 1 1 10 0.25
arrival 10 0.400 0.900 together
PROF
write_profile_cfg() { # NAME PROFILE
    cat > "$tmp/$1.cfg" <<CFG
output        = "$tmp/$1";
profile       = "$2";
segment_sizes = [0, 4096];
measure       = { warmup = 1; min_reps = 3; max_reps = 6; rse = 0.05;
                  arrival = "profile"; };
CFG
}
write_profile_cfg prof "$tmp/app.prof"
write_cfg prof-late '{ spread_us = 120.0; shape = "root_last"; }' '"bcast"' 65536
write_cfg prof-together '"together"' '"bcast"' 1
for name in prof prof-late prof-together; do
    sweep $name > "$tmp/$name.out" 2>&1 || { cat "$tmp/$name.out"; fail "$name: sweep"; }
done
rows() { # RUN BYTES: its measurements.csv rows at that size
    awk -F, -v b=$2 'NR > 1 && $4 == b' "$tmp/$1/measurements.csv"
}
for pair in "prof-late 65536" "prof-together 1"; do
    set -- $pair
    expected=$(rows $1 $2) got=$(rows prof $2)
    [ -n "$expected" ] && [ -n "$got" ] || fail "profile pattern at $2 B: no rows ('$got', '$expected')"
    [ "$got" = "$expected" ] ||
        fail "profile pattern at $2 B: $(diff <(echo "$got") <(echo "$expected") | head -3)"
done
echo "profile pattern: $(rows prof 65536 | wc -l) rows at 64 KiB as root_last 120 us, $(rows prof 1 | wc -l) at 1 B as together"
grep -q ' measure.arrival=profile ' "$tmp/prof/journal" || fail "profile is not recorded"
# Killed with a third of its records on disk and resumed: the same
# measurements.csv, byte for byte.
write_profile_cfg prof-part "$tmp/app.prof"
total=$(records "$tmp/prof/journal")
killed_at=$(kill_at_records "$tmp/prof-part/journal" $((total / 3)) "$tmp/prof-part-1.out" sweep prof-part)
[ "$killed_at" -lt "$total" ] || fail "profile: the sweep ended before it was killed"
sweep prof-part > "$tmp/prof-part-2.out" 2>&1 || { cat "$tmp/prof-part-2.out"; fail "profile: resume"; }
cmp "$tmp/prof/measurements.csv" "$tmp/prof-part/measurements.csv" ||
    fail "profile: resumed from $killed_at of $total records: measurements.csv differs"
# Resumed with the profile's pattern changed (spread 60 us): refused in one
# line, the journal as it was.
before=$(md5sum < "$tmp/prof/journal")
sed 's/^arrival 10 120.000/arrival 10 60.000/' "$tmp/app.prof" > "$tmp/app2.prof"
write_profile_cfg prof "$tmp/app2.prof"
if sweep prof > "$tmp/prof2.out" 2>&1; then
    fail "a profile-pattern journal was resumed under another profile's pattern"
elif [ "$(grep -c "conflicts with the recorded sweep: measure.arrival.patterns (journal [0-9a-f]*, config [0-9a-f]*); use --fresh" "$tmp/prof2.out")" != 1 ]; then
    fail "profile refusal: $(grep -m1 conflict "$tmp/prof2.out")"
fi
[ "$(md5sum < "$tmp/prof/journal")" = "$before" ] || fail "the refused profile journal changed"

# A profile with recorded calls (offsets lines): each is replayed as it
# was, call i of an experiment the (i mod 2)-th, rather than its point's
# shape; the library's reduce (the root first in the staircase, then
# last) and allreduce each take what the hand loop replaying the same
# offsets takes, call for call (the smallest and largest of the two).
stair="0 30 60 90 120 150 180 210"
turned="210 0 30 60 90 120 150 180"
cat > "$tmp/calls.prof" <<PROF
autotune-profile 1
ranks 8
reduce 8 1 65536 10 0.5
arrival 10 210.000 210.000 uniform
offsets $stair
offsets $turned
allreduce 8 1 8 10 0.1
arrival 10 210.000 210.000 uniform
offsets $stair
offsets $turned
PROF
cat > "$tmp/calls.cfg" <<CFG
output        = "$tmp/calls";
profile       = "$tmp/calls.prof";
segment_sizes = [0];
measure       = { warmup = 0; min_reps = 2; max_reps = 2; rse = 0.5;
                  arrival = "profile"; };
CFG
sweep calls > "$tmp/calls.out" 2>&1 || { cat "$tmp/calls.out"; fail "calls: sweep"; }
for point in "reduce 65536" "allreduce 8"; do
    set -- $point
    harness=$(awk -F, -v c=$1 -v b=$2 '$1 == c && $4 == b && $5 == "default" {print $10, $11}' \
        "$tmp/calls/measurements.csv" 2>/dev/null)
    hand=$(probe $1 $2 offsets "${stair// /,}/${turned// /,}" 2 2>"$tmp/probe.err" |
        sed -n 's/^time_us //p' | sort -n | tr '\n' ' ')
    [ -n "$harness" ] && [ -n "$hand" ] && [ "$harness " = "$hand" ] ||
        fail "recorded calls: $1 $2 B: harness (least, most) '$harness', hand loop '$hand'"
done
# Not the staircase's shape (uniform, 210 us) drawn at random: the
# recorded calls changed something.
write_cfg calls-shape '{ spread_us = 210.0; shape = "uniform"; }' '"reduce"' 65536
sed -i 's/warmup = 1; min_reps = 3; max_reps = 6; rse = 0.05;/warmup = 0; min_reps = 2; max_reps = 2; rse = 0.5;/; s/^segment_sizes .*/segment_sizes = [0];/' \
    "$tmp/calls-shape.cfg"
sweep calls-shape > "$tmp/calls-shape.out" 2>&1 || fail "calls-shape: sweep"
cmp -s <(awk -F, '$1 == "reduce" {print $5, $8}' "$tmp/calls/measurements.csv") \
    <(awk -F, '$1 == "reduce" {print $5, $8}' "$tmp/calls-shape/measurements.csv") &&
    fail "recorded calls time as the uniform shape"
echo "recorded calls: reduce and allreduce as the hand loop replays them"

# A profile naming the call that came next ("next" line): each rank runs
# the library's allgather of 64 KiB as soon as it leaves each timed
# reduce, as the application's ranks did, and the reduce's time is what
# the hand loop doing the same takes (the ranks the library's reduce lets
# go early load the network its root still receives on); without the next
# call it is less.
sed '/^allreduce/,$d' "$tmp/calls.prof" > "$tmp/next.prof"
echo "next allgather 65536 0.000" >> "$tmp/next.prof"
sed "s#$tmp/calls#$tmp/next#g" "$tmp/calls.cfg" > "$tmp/next.cfg"
sweep next > "$tmp/next.out" 2>&1 || { cat "$tmp/next.out"; fail "next: sweep"; }
harness=$(awk -F, '$1 == "reduce" && $5 == "default" {print $10, $11}' "$tmp/next/measurements.csv" 2>/dev/null)
hand=$(probe reduce 65536 offsets "${stair// /,}/${turned// /,}" 2 allgather 65536 2>"$tmp/probe.err" |
    sed -n 's/^time_us //p' | sort -n | tr '\n' ' ')
alone=$(awk -F, '$1 == "reduce" && $5 == "default" {print $10, $11}' "$tmp/calls/measurements.csv" 2>/dev/null)
[ -n "$harness" ] && [ -n "$hand" ] && [ "$harness " = "$hand" ] ||
    fail "next call: reduce 65536 B: harness (least, most) '$harness', hand loop '$hand'"
[ -n "$alone" ] && [ "$alone" != "$harness" ] || fail "next call: the same times without it ('$alone')"
echo "next call: the library's reduce $harness us with the allgather behind it, $alone us alone"

# The text report says the pattern the speedups hold under, "together"
# too.
build/autotune report -r "$tmp/full2" > "$tmp/report.out" 2>&1 || fail "report"
grep -q "^run .*, arrival barrier$" "$tmp/report.out" || fail "report: $(head -1 "$tmp/report.out")"
build/autotune report -r "$tmp/full1" > "$tmp/report1.out" 2>&1 || fail "report"
grep -q "^run .*, arrival together$" "$tmp/report1.out" || fail "report of together: $(head -1 "$tmp/report1.out")"
# profile -r says it too, and warns in one line where a run timed with a
# common start meets a profile whose ranks arrive further apart (p90 90 ms
# at bcast 64 KiB) than the tuned method takes (about 40 ms on grig).
build/autotune profile "$tmp/app.prof" -r "$tmp/full1" > "$tmp/prof-r1.out" 2>&1 || fail "profile -r together"
grep -q "^predicted with $tmp/full1: .*timed with arrival together)$" "$tmp/prof-r1.out" ||
    fail "profile -r together: $(grep predicted "$tmp/prof-r1.out")"
[ "$(grep -c "^warning: $tmp/full1 was timed with every rank arriving together, but at 1 point the profile's p90 arrival spread exceeds the tuned method's time (most: bcast on 8 ranks, 65536 bytes, 90000.000 us against [0-9.]* us)" "$tmp/prof-r1.out")" = 1 ] ||
    fail "profile -r together: no warning: $(cat "$tmp/prof-r1.out")"
build/autotune profile "$tmp/app.prof" -r "$tmp/prof" > "$tmp/prof-r2.out" 2>&1 || fail "profile -r profile"
grep -q "^predicted with $tmp/prof: .*timed with arrival profile)$" "$tmp/prof-r2.out" ||
    fail "profile -r profile: $(grep predicted "$tmp/prof-r2.out")"
grep -q "warning" "$tmp/prof-r2.out" && fail "profile -r profile warns: $(grep warning "$tmp/prof-r2.out")"

[ $fails -eq 0 ] && echo "ok"
exit $((fails > 0))
