#!/usr/bin/env bash
# Exports of a run whose optimum is a node-aware method at some points
# (16 ranks, 8 per node; bcast and allreduce node-aware at 64 KiB, flat at
# 8 B and 1 MiB; allreduce's name longer than 64 characters): csv, json
# and dec keep every name whole; Open MPI's and MPICH's rules files cannot
# name one, so each such point goes to the library, one stderr line
# naming the method whole, and the flat points keep their algorithms.
source "$(dirname "$0")/lib.sh"
bin=build/autotune
[ -x "$bin" ] || { echo "test_export_node: $bin missing (run make)" >&2; exit 1; }
run=$tmp/run
mkdir -p "$run"
bnode="node:binomial/8192+binomial/0"
anode="node:in_order_binary/1024+segmented_ring/8192+scatter_allgather_ring/0"
echo "collective,procs,ppn,msg_bytes,algorithm,segment_bytes,time_us" >"$run/optimal.csv"
echo "collective,procs,ppn,msg_bytes,algorithm,segment_bytes,reps,mean_us,median_us,min_us,max_us,sd_us,cost_s" \
    >"$run/measurements.csv"
for msg in 8 65536 1048576; do
    for row in "bcast|binomial|$bnode" "allreduce|recursive_doubling|$anode"; do
        IFS='|' read -r c flat node <<<"$row"
        best=$flat other=$node
        [ "$msg" = 65536 ] && best=$node other=$flat
        echo "$c,16,8,$msg,$best,0,10" >>"$run/optimal.csv"
        echo "$c,16,8,$msg,$best,0,5,10,10,10,10,0,0.001" >>"$run/measurements.csv"
        echo "$c,16,8,$msg,$other,0,5,20,20,20,20,0,0.001" >>"$run/measurements.csv"
    done
done
[ ${#anode} -gt 64 ] || fail "the long name is not longer than 64 characters"
export_to() { # FORMAT: $tmp/out.FORMAT, stderr in $tmp/err.FORMAT
    "$bin" export -r "$run" --format "$1" -o "$tmp/out.$1" 2>"$tmp/err.$1" ||
        fail "export $1: exit status: $(cat "$tmp/err.$1")"
    [ -s "$tmp/out.$1" ] || fail "export $1: empty"
}
for f in csv json dec ompi ompi-v2 ompi-json mpich; do
    export_to "$f"
done
# csv: the rows as optimal.csv has them (its times with 3 decimals).
sed 's/,10$/,10.000/' "$run/optimal.csv" | cmp -s - "$tmp/out.csv" ||
    fail "csv: $(diff <(sed 's/,10$/,10.000/' "$run/optimal.csv") "$tmp/out.csv")"
for name in "$bnode" "$anode"; do
    grep -qF "\"algorithm\": \"$name\", \"segment_bytes\": 0, \"method\": \"$name/0\"" "$tmp/out.json" ||
        fail "json: no whole $name: $(cat "$tmp/out.json")"
    grep -qxF "$name/0" "$tmp/out.dec" || fail "dec: no method $name/0: $(cat "$tmp/out.dec")"
done
# The rules files: one line per node-aware point, naming it whole, the
# point left to the library; nothing node-aware in the file.
for f in ompi ompi-v2 ompi-json mpich; do
    case $f in
    mpich) lib="MPICH has no %s algorithm like it; MPICH's own size-based choice applies there" ;;
    *) lib="Open MPI has no %s algorithm like it; Open MPI's fixed decision applies there" ;;
    esac
    [ "$(grep -c "not exported" "$tmp/err.$f")" -eq 2 ] || fail "$f: not 2 rows unexported: $(cat "$tmp/err.$f")"
    for want in "4:bcast:$bnode" "5:allreduce:$anode"; do
        IFS=: read -r line c name <<<"$want"
        # shellcheck disable=SC2059
        grep -qxF "$run/optimal.csv:$line: $c P=16 ppn=8 m=65536: $name/0 not exported: $(printf "$lib" "$c")" \
            "$tmp/err.$f" || fail "$f: line $line: $(grep "optimal.csv:$line:" "$tmp/err.$f")"
    done
    grep -qE "node[0-9]*:[a-z_]+[/+]" "$tmp/out.$f" && fail "$f: a node-aware name in the file"
done
# Open MPI's classic file: the rules of 64 KiB (rows 4 and 5) are the
# fixed decision, those of 8 B and 1 MiB the tuned algorithms (bcast
# binomial is Open MPI's 6, allreduce recursive_doubling its 3).
for want in "3 0 0 # recursive_doubling (line 3)" "0 0 0 # Open MPI's fixed decision (line 5)" \
    "3 0 0 # recursive_doubling (line 7)" "6 0 0 # binomial (line 2)" \
    "0 0 0 # Open MPI's fixed decision (line 4)" "6 0 0 # binomial (line 6)"; do
    sed -n 's/^[0-9][0-9]* //p' "$tmp/out.ompi" | grep -qxF "$want" ||
        fail "ompi: no rule '$want': $(grep -v '^#' "$tmp/out.ompi")"
done
[ $fails -eq 0 ] || { echo "$fails failures"; exit 1; }
echo "test_export_node: ok"
