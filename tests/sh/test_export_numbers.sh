#!/usr/bin/env bash
# Every algorithm the exports name is the one the installed library has
# under that number or name. Open MPI: each of our algorithms is exported
# alone (one row) and the rule's number compared with the number
# `ompi_info --param coll tuned --level 9` lists for Open MPI's algorithm of
# that name; MPICH: the algorithm MPICH would run for the call, walked in
# the exported selection file as MPICH walks it, compared with MPICH's name
# for ours, which must be a symbol name inside the installed libmpich. The
# pairs of names (ours, the library's) are written here, by hand, from each
# library's documentation; every algorithm of `autotune --list` without one
# must be reported as not exported.
set -u
. "$(dirname "$0")/lib.sh"
if ! command -v ompi_info > /dev/null; then
    echo "SKIP: Open MPI's ompi_info is not installed"
    exit 77
fi
command -v python3 > /dev/null || { echo "FAIL: python3 is needed (CI installs it)"; exit 1; }

# Our name, then Open MPI's (ompi_info's "Valid values"), per collective.
ompi_pairs() {
    cat <<'EOF'
allgather gather_bcast linear
allgather bruck bruck
allgather recursive_doubling recursive_doubling
allgather ring ring
allgather neighbor_exchange neighbor
allgather two_proc two_proc
allreduce linear basic_linear
allreduce reduce_bcast nonoverlapping
allreduce recursive_doubling recursive_doubling
allreduce ring ring
allreduce segmented_ring segmented_ring
allreduce rabenseifner rabenseifner
alltoall linear linear
alltoall pairwise pairwise
alltoall bruck modified_bruck
alltoall linear_sync linear_sync
alltoall two_proc two_proc
barrier linear linear
barrier double_ring double_ring
barrier recursive_doubling recursive_doubling
barrier bruck bruck
barrier two_proc two_proc
barrier tree tree
bcast linear basic_linear
bcast chain chain
bcast pipeline pipeline
bcast split_binary split_binary_tree
bcast binary binary_tree
bcast binomial binomial
bcast knomial knomial
bcast scatter_allgather scatter_allgather
bcast scatter_allgather_ring scatter_allgather_ring
gather linear basic_linear
gather binomial binomial
gather linear_sync linear_sync
reduce linear linear
reduce chain chain
reduce pipeline pipeline
reduce binary binary
reduce binomial binomial
reduce in_order_binary in-order_binary
reduce rabenseifner rabenseifner
scatter linear basic_linear
scatter binomial binomial
scatter linear_nb linear_nb
EOF
}
# Our name, then MPICH 4.0's algorithm (MPIR_CVAR_<COLL>_INTRA_ALGORITHM's
# function).
mpich_pairs() {
    cat <<'EOF'
allgather bruck MPIR_Allgather_intra_brucks
allgather recursive_doubling MPIR_Allgather_intra_recursive_doubling
allgather ring MPIR_Allgather_intra_ring
allreduce recursive_doubling MPIR_Allreduce_intra_recursive_doubling
allreduce rabenseifner MPIR_Allreduce_intra_reduce_scatter_allgather
alltoall bruck MPIR_Alltoall_intra_brucks
alltoall pairwise MPIR_Alltoall_intra_pairwise
barrier bruck MPIR_Barrier_intra_dissemination
bcast binomial MPIR_Bcast_intra_binomial
bcast scatter_allgather MPIR_Bcast_intra_scatter_recursive_doubling_allgather
bcast scatter_allgather_ring MPIR_Bcast_intra_scatter_ring_allgather
gather binomial MPIR_Gather_intra_binomial
reduce binomial MPIR_Reduce_intra_binomial
reduce rabenseifner MPIR_Reduce_intra_reduce_scatter_gather
scatter binomial MPIR_Scatter_intra_binomial
EOF
}

# ompi_info's enumerations: "collective name number" per line.
ompi_info --param coll tuned --level 9 | awk '
    /parameter "coll_tuned_[a-z]*_algorithm"/ {
        coll = $0; sub(/.*"coll_tuned_/, "", coll); sub(/_algorithm".*/, "", coll)
    }
    coll != "" && /Valid values:/ {
        line = $0; sub(/.*Valid values: */, "", line)
        n = split(line, items, /, */)
        for (i = 1; i <= n; i++) {
            split(items[i], kv, ":"); gsub(/"/, "", kv[2]); print coll, kv[2], kv[1]
        }
        coll = ""
    }' > "$tmp/ompi_info"
[ "$(grep -c '^reduce ' "$tmp/ompi_info")" -ge 8 ] || fail "ompi_info lists no reduce algorithms: $(head -3 "$tmp/ompi_info")"

# Every algorithm of ours, one row at a time: P=2 for the two-rank ones.
build/autotune --list | awk '/^[a-z]+:$/ { coll = $1; sub(/:/, "", coll); next }
    /^[a-z]/ { coll = "" } coll != "" && /^  [a-z]/ { print coll, $1 }' > "$tmp/ours"
[ "$(wc -l < "$tmp/ours")" -ge 40 ] || fail "autotune --list: $(wc -l < "$tmp/ours") algorithms"
export_one() { # collective algorithm procs format out
    mkdir -p "$tmp/one"
    printf 'collective,procs,msg_bytes,algorithm,segment_bytes,time_us\n%s,%s,1024,%s,0,1.000\n' \
        "$1" "$3" "$2" > "$tmp/one/optimal.csv"
    build/autotune export -r "$tmp/one" --format "$4" --assume-commutative \
        -o "$5" 2> "$5.warn"
}
checked=0
while read -r coll alg; do
    procs=4
    [ "$alg" = two_proc ] && procs=2
    export_one "$coll" "$alg" $procs ompi-v2 "$tmp/rules" || { fail "$coll $alg: export ompi-v2"; continue; }
    # The tuned block's rule: "0 ALG FANINOUT SEGSIZE REQS # name (line 2)".
    got=$(awk '/\(line 2\)/ { print $2; exit }' "$tmp/rules")
    theirs=$(awk -v c="$coll" -v a="$alg" '$1 == c && $2 == a { print $3 }' <(ompi_pairs))
    if [ -z "$theirs" ]; then
        grep -q "$coll P=$procs m=1024: $alg/0 not exported" "$tmp/rules.warn" ||
            fail "$coll $alg: no Open MPI counterpart here, but exported as $got"
        continue
    fi
    want=$(awk -v c="$coll" -v n="$theirs" '$1 == c && $2 == n { print $3 }' "$tmp/ompi_info")
    [ -n "$want" ] || { fail "$coll: ompi_info lists no algorithm $theirs"; continue; }
    [ "$got" = "$want" ] || fail "$coll $alg: exported as Open MPI's $got, ompi_info numbers $theirs $want"
    checked=$((checked + 1))
done < "$tmp/ours"
echo "Open MPI: $checked algorithm numbers as ompi_info lists them"
[ $checked -eq "$(ompi_pairs | wc -l)" ] || fail "only $checked of $(ompi_pairs | wc -l) Open MPI pairs checked"

# MPICH: the names inside the installed library.
if ! command -v mpichversion > /dev/null; then
    fail "MPICH is not installed (CI installs it)"
else
    lib=$(ldconfig -p | awk '/libmpich\.so/ { print $NF; exit }')
    [ -f "$lib" ] || fail "libmpich not found"
    strings -n 8 "$lib" | grep -o 'MPIR_[A-Za-z_]*' | sort -u > "$tmp/mpich_names"
    # MPICH's walk of the file for one call (comm_size 4, 1024 B and 1024
    # elements, a predefined commutative operation, no MPI_IN_PLACE, no
    # node hierarchy).
    cat > "$tmp/walk.py" <<'EOF'
import json, sys
node = json.load(open(sys.argv[1]))["collective=" + sys.argv[2]]["comm_type=intra"]
call = {"comm_size": 4, "avg_msg_size": 1024, "total_msg_size": 4096, "count": 1024}
def holds(key):
    if key.endswith("=any"):
        return True
    if key == "count<pow2":
        return call["count"] < 4
    for name in call:
        for op in ("<=", "<"):
            if key.startswith(name + op):
                v = int(key[len(name) + len(op):])
                return call[name] <= v if op == "<=" else call[name] < v
    return key in ("comm_size=pow2", "is_op_built_in=yes", "is_commutative=yes",
                   "is_sendbuf_inplace=no")
while True:
    key = next(k for k in node if k.startswith("algorithm=") or holds(k))
    if key.startswith("algorithm="):
        print(key[len("algorithm="):])
        break
    node = node[key]
EOF
    checked=0
    while read -r coll alg; do
        export_one "$coll" "$alg" 4 mpich "$tmp/sel.json" || { fail "$coll $alg: export mpich"; continue; }
        got=$(python3 "$tmp/walk.py" "$tmp/sel.json" "$coll") || { fail "$coll $alg: the walk failed"; continue; }
        want=$(awk -v c="$coll" -v a="$alg" '$1 == c && $2 == a { print $3 }' <(mpich_pairs))
        if [ -z "$want" ]; then
            grep -q "$coll P=4 m=1024: $alg/0 not exported" "$tmp/sel.json.warn" ||
                fail "$coll $alg: no MPICH counterpart here, but exported as $got"
            continue
        fi
        grep -qx "$want" "$tmp/mpich_names" || fail "$want is not a name in $lib"
        [ "$got" = "$want" ] || fail "$coll $alg: MPICH would run $got, not $want"
        checked=$((checked + 1))
    done < "$tmp/ours"
    echo "MPICH: $checked algorithm names as in $lib"
    [ $checked -eq "$(mpich_pairs | wc -l)" ] || fail "only $checked of $(mpich_pairs | wc -l) MPICH pairs checked"
fi

[ $fails -eq 0 ] && echo "all export-numbers checks passed"
[ $fails -eq 0 ]
