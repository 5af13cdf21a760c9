#!/usr/bin/env bash
# What each export format says about ranks per node (ppn), on a hand-made
# table (tests/export/ppn) and a real one of 1, 8 and 32 ranks per node
# (tests/export/ndr-32): formats without a ranks-per-node key (ompi,
# ompi-v2) refuse several values without --ppn in one line (exit 2) and
# with it write that value's rules, saying so in the header and on stderr;
# ompi-json marks the one-rank-per-node rules one-per-node; mpich keys on
# comm_avg_ppn (test_export_ppn_mpich.sh runs it in MPICH); csv and json
# keep every value (--ppn filters); a table of one rank per node exports
# byte for byte as before (golden files).
set -u
. "$(dirname "$0")/lib.sh"
at=build/autotune

mkdir -p "$tmp/ndr" "$tmp/one" "$tmp/legacy" "$tmp/eight"
cp tests/export/ndr-32/optimal.csv "$tmp/ndr/"
cp tests/export/optimal.csv "$tmp/legacy/"
# The same table with its ppn column written out (1 everywhere).
awk -F, 'BEGIN { OFS = "," } NR == 1 { $2 = $2 ",ppn" } NR > 1 { $2 = $2 ",1" } { print }' \
    tests/export/optimal.csv > "$tmp/one/optimal.csv"
# The NDR table's 8-ranks-per-node rows alone.
awk -F, 'NR == 1 || $3 == 8' tests/export/ndr-32/optimal.csv > "$tmp/eight/optimal.csv"

# One rank per node: the exports of before, byte for byte.
for f in mpich:optimal.mpich.json ompi-json:optimal.ompi.json; do
    for run in legacy one; do
        $at export -r "$tmp/$run" --format "${f%%:*}" -o "$tmp/$run.${f%%:*}" 2> /dev/null ||
            fail "export ${f%%:*} of $run"
        [ -s "$tmp/$run.${f%%:*}" ] || fail "empty ${f%%:*} export of $run"
        cmp -s "tests/export/golden/${f#*:}" "$tmp/$run.${f%%:*}" ||
            fail "${f%%:*} export of one rank per node ($run) differs from before"
    done
done
grep -q comm_avg_ppn "$tmp/one.mpich" && fail "mpich keys a one-ppn table on comm_avg_ppn"

expect_refusal() { # status pattern command...
    local want=$1 pattern=$2
    shift 2
    "$@" > "$tmp/out" 2> "$tmp/err"
    local got=$?
    [ "$got" -eq "$want" ] || fail "$*: exit $got, not $want"
    [ -s "$tmp/out" ] && fail "$*: wrote output"
    grep -v '^note: ' "$tmp/err" > "$tmp/err.lines"
    [ "$(wc -l < "$tmp/err.lines")" -eq 1 ] || fail "$*: not one line: $(cat "$tmp/err")"
    grep -qF -e "$pattern" "$tmp/err.lines" || fail "$*: no '$pattern' in: $(cat "$tmp/err")"
}

# Several values where the format has no key: refused, naming them.
for f in ompi ompi-v2; do
    expect_refusal 2 "has ranks per node 1, 8, 32; the $f format has no ranks-per-node key: export one with --ppn N" \
        $at export -r "$tmp/ndr" --format $f
done
# ompi-json marks one rank per node and one node apart and holds one other
# value for every communicator: 4 and 8 on several nodes are two.
mkdir -p "$tmp/spread"
cat > "$tmp/spread/optimal.csv" <<'CSV'
collective,procs,ppn,msg_bytes,algorithm,segment_bytes,time_us
allreduce,16,1,1,recursive_doubling,0,1.000
allreduce,16,4,1,ring,0,1.000
allreduce,16,8,1,rabenseifner,0,1.000
allreduce,16,16,1,recursive_doubling,0,1.000
CSV
expect_refusal 2 "has ranks per node 4, 8 on several nodes besides 1; the ompi-json format holds one of them for every communicator" \
    $at export -r "$tmp/spread" --format ompi-json
# --ppn naming a value the table lacks, for every format that takes it.
for f in ompi ompi-v2 ompi-json mpich csv json; do
    expect_refusal 2 "--ppn 4: $tmp/ndr/optimal.csv has ranks per node 1, 8, 32 only" \
        $at export -r "$tmp/ndr" --format $f --ppn 4
done
expect_refusal 2 "the dec format holds every ranks per node" \
    $at export -r "$tmp/ndr" --format dec --ppn 8

# ompi --ppn 8: the rules of the 8-ranks-per-node rows, said in the header
# and on stderr; the same rules as a table holding those rows alone (the
# comments, naming lines and the other values, aside).
$at export -r "$tmp/ndr" --format ompi --ppn 8 -o "$tmp/ndr8.conf" 2> "$tmp/ndr8.err" ||
    fail "export ompi --ppn 8: $(cat "$tmp/ndr8.err")"
grep -q "^# Ranks per node: 8\. " "$tmp/ndr8.conf" || fail "ompi header does not say 8 ranks per node"
grep -q "The run also tuned 1, 32 (--ppn)" "$tmp/ndr8.conf" || fail "ompi header does not name the other values"
grep -q "^note: ompi rules of 8 ranks per node (not 1, 32)" "$tmp/ndr8.err" ||
    fail "no note on stderr: $(cat "$tmp/ndr8.err")"
$at export -r "$tmp/eight" --format ompi -o "$tmp/eight.conf" 2> "$tmp/eight.err" ||
    fail "export ompi of the 8-ppn rows"
grep -q "^# Ranks per node: 8\. " "$tmp/eight.conf" || fail "one-value table: header does not say 8"
grep -q "^note: ompi rules of 8 ranks per node: " "$tmp/eight.err" ||
    fail "one-value table of 8 ppn: no note: $(cat "$tmp/eight.err")"
sed 's/ *#.*//' "$tmp/ndr8.conf" > "$tmp/ndr8.rules"
sed 's/ *#.*//' "$tmp/eight.conf" > "$tmp/eight.rules"
[ -s "$tmp/ndr8.rules" ] && cmp -s "$tmp/ndr8.rules" "$tmp/eight.rules" ||
    fail "--ppn 8 rules differ from those of the 8-ppn rows alone"
# By hand from the table: allgather (id 0) at 32 ranks, 8 per node,
# recursive_doubling up to 512 B a rank, neighbor_exchange above, ring
# above 32768 B; keys are bytes x 32; Open MPI's numbers (ompi_info
# --param coll tuned --level 9): 3 recursive_doubling, 4 ring,
# 5 neighbor.
for want in "^0 3 0 0 " "^16385 5 0 0 " "^1048577 4 0 0 "; do
    grep -q "$want" "$tmp/ndr8.conf" || fail "ompi --ppn 8: no allgather rule '$want'"
done
# Open MPI 4.1 reads such a file (its header's lines among it) and applies
# the chosen value's rules: tests/export/ppn's bcast on 4 ranks at 4 per
# node is scatter_allgather_ring (Open MPI's 9) above 1 B; that rule's
# number made invalid, exactly the bcast calls above 1 B fail.
if command -v mpirun > /dev/null && [ -x build/tests/mpi/export_probe ]; then
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
    $at export -r tests/export/ppn --format ompi --ppn 4 -o "$tmp/ppn4.conf" 2> /dev/null ||
        fail "export ompi --ppn 4 of tests/export/ppn"
    grep -q '^2 9 0 0 ' "$tmp/ppn4.conf" || fail "no scatter_allgather_ring rule above 1 B"
    sed 's/^2 9 0 0 /2 99 0 0 /' "$tmp/ppn4.conf" > "$tmp/ppn4.bad"
    timeout 120 mpirun -np 4 --oversubscribe --mca coll ^han,hcoll \
        --mca coll_tuned_use_dynamic_rules 1 \
        --mca coll_tuned_dynamic_rules_filename "$tmp/ppn4.bad" \
        build/tests/mpi/export_probe > "$tmp/probe" 2> "$tmp/probe.err" ||
        fail "Open MPI run with the --ppn 4 file: $(head -3 "$tmp/probe.err")"
    awk '$4 != 0 {print $2, $3, $4}' "$tmp/probe" | sort -u > "$tmp/failed"
    printf 'bcast 1024 13\nbcast 4096 13\nbcast 65536 13\n' > "$tmp/want"
    cmp -s "$tmp/want" "$tmp/failed" ||
        fail "Open MPI did not apply the --ppn 4 rule (failed calls: $(cat "$tmp/failed"))"
else
    echo "note: Open MPI or build/tests/mpi/export_probe missing: the --ppn file is not loaded"
fi
# A one-rank-per-node table says so in its header, and nothing on stderr.
$at export -r "$tmp/one" --format ompi -o "$tmp/one.conf" 2> "$tmp/one.err" || fail "export ompi of ppn 1"
grep -q "^# Ranks per node: 1\. " "$tmp/one.conf" || fail "ompi header does not say 1 rank per node"
grep -q "ranks per node" "$tmp/one.err" && fail "ppn-1 export notes ranks per node: $(cat "$tmp/one.err")"

# ompi-json: the 1-rank-per-node rules first, marked one-per-node (Open MPI
# 6.0 takes the first rule whose distribution and size match), then the
# rows on one node (32 ranks at 32 per node) marked single-node, then the
# 8-per-node ones for every other communicator: 8 is the only value on
# several nodes besides 1, so no --ppn is needed; --ppn 8 says the same.
check_json() { # file
    python3 - "$1" <<'PY'
import json, sys
rules = json.load(open(sys.argv[1]))["collectives"]
ok = True
# allgather at 32 ranks (Open MPI's numbers, ompi_info: 2 bruck,
# 3 recursive_doubling, 4 ring, 5 neighbor): one per node bruck
# everywhere; 32 per node (one node) bruck; 8 per node recursive_doubling,
# neighbor_exchange, ring.
blocks = rules["allgather"]
dist = [b.get("comm_rank_distribution", "any") for b in blocks]
order = {"one-per-node": 0, "single-node": 1, "any": 2}
if [order[d] for d in dist] != sorted(order[d] for d in dist) or set(dist) != set(order):
    print("chains missing or out of order:", dist); ok = False
def at32(d):
    return [b for b in blocks if b.get("comm_rank_distribution", "any") == d and
            b["comm_size_min"] <= 32 and
            (b["comm_size_max"] == "inf" or b["comm_size_max"] >= 32)][0]
for d, want in (("one-per-node", [2]), ("single-node", [2]), ("any", [3, 5, 4])):
    got = [r["alg"] for r in at32(d)["rules"]]
    if got != want:
        print(d, "at 32:", got, "not", want); ok = False
sys.exit(0 if ok else 1)
PY
}
$at export -r "$tmp/ndr" --format ompi-json -o "$tmp/ndr.json" 2> "$tmp/j.err" ||
    fail "export ompi-json: $(cat "$tmp/j.err")"
check_json "$tmp/ndr.json" || fail "ompi-json: wrong rules"
grep -q "^note: ompi-json rules of 8 ranks per node for every communicator, of 1 rank per node marked one-per-node, of the rows on one node marked single-node" \
    "$tmp/j.err" || fail "ompi-json: no note: $(cat "$tmp/j.err")"
# Its notes said once for the three sets of rules.
[ "$(grep -c '^note: Open MPI chooses and splits' "$tmp/j.err")" -eq 1 ] ||
    fail "ompi-json: the splitting note not said once: $(cat "$tmp/j.err")"
$at export -r "$tmp/ndr" --format ompi-json --ppn 8 -o "$tmp/ndr8.json" 2> /dev/null ||
    fail "export ompi-json --ppn 8"
cmp -s "$tmp/ndr.json" "$tmp/ndr8.json" || fail "ompi-json --ppn 8 differs from the choice it makes alone"
# --ppn 32: the rows on one node for every communicator, and as
# single-node: their warnings said once.
$at export -r "$tmp/ndr" --format ompi-json --ppn 32 -o "$tmp/ndr32.json" 2> "$tmp/j32.err" ||
    fail "export ompi-json --ppn 32"
[ "$(grep -c 'optimal.csv:74: ' "$tmp/j32.err")" -eq 1 ] ||
    fail "ompi-json --ppn 32: line 74's warning not said once: $(grep -c 'optimal.csv:74: ' "$tmp/j32.err")"
# --ppn 1: the one-rank-per-node rules for every communicator, unmarked.
$at export -r "$tmp/ndr" --format ompi-json --ppn 1 -o "$tmp/ndr1.json" 2> /dev/null || fail "ompi-json --ppn 1"
grep -q '"one-per-node"' "$tmp/ndr1.json" && fail "ompi-json --ppn 1 marks one-per-node rules"

# mpich --ppn 8: 8's rules at every ranks per node, no key, said on stderr.
$at export -r "$tmp/ndr" --format mpich --ppn 8 -o "$tmp/ndr8.mpich" 2> "$tmp/m.err" ||
    fail "export mpich --ppn 8: $(cat "$tmp/m.err")"
grep -q comm_avg_ppn "$tmp/ndr8.mpich" && fail "mpich --ppn 8 keys on comm_avg_ppn"
grep -q "^note: mpich rules of 8 ranks per node (--ppn): MPICH applies them at every ranks per node" \
    "$tmp/m.err" || fail "mpich --ppn 8: no note: $(cat "$tmp/m.err")"
$at export -r "$tmp/ndr" --format mpich -o "$tmp/ndr.mpich" 2> "$tmp/m.err" || fail "export mpich"
grep -q '"comm_avg_ppn<=1"' "$tmp/ndr.mpich" || fail "mpich of 1, 8, 32 ranks per node: no comm_avg_ppn case"
grep -q "^note: mpich rules" "$tmp/m.err" && fail "mpich of every ranks per node notes one"

# csv and json: every ranks per node, or --ppn's.
$at export -r "$tmp/ndr" --format csv -o "$tmp/all.csv" 2> /dev/null || fail "export csv"
cmp -s tests/export/ndr-32/optimal.csv "$tmp/all.csv" || fail "csv export differs from the table"
$at export -r "$tmp/ndr" --format csv --ppn 8 -o "$tmp/8.csv" 2> /dev/null || fail "export csv --ppn 8"
cmp -s "$tmp/eight/optimal.csv" "$tmp/8.csv" || fail "csv --ppn 8 is not the 8-ppn rows"
$at export -r "$tmp/ndr" --format json --ppn 32 -o "$tmp/32.json" 2> /dev/null || fail "export json --ppn 32"
python3 -c 'import json, sys; r = json.load(open(sys.argv[1])); sys.exit(not (len(r) == 32 and all(x["ppn"] == 32 for x in r)))' \
    "$tmp/32.json" || fail "json --ppn 32: not the 32 rows of 32 ranks per node"

[ $fails -eq 0 ] && echo "all export-ppn checks passed"
[ $fails -eq 0 ]
