#!/usr/bin/env bash
# libautotune from Fortran under mpirun: the collective test of
# tests/mpi/fortran_collectives.F90 through the mpi module and mpi_f08, as
# an application of the preloaded library, a decision forcing each
# algorithm in turn (rounds of tests/sh/lib_runtime.sh), on 3, 4 and 5
# ranks; through mpif.h and linked with -lautotune on the first round.
# Every result is checked in Fortran against values computed there, and
# AUTOTUNE_VERBOSE's count of each collective equals the calls the program
# made: its Fortran calls were intercepted (MPI_BOTTOM's too, on every
# rank or the root only); and AUTOTUNE_PROFILE records them. Each rank has
# an emulated node of its own (AUTOTUNE_NODE_OF_RANK=block:1): the layout
# the decisions are tuned for (one rank per node).
source "$(dirname "$0")/lib.sh"
source tests/sh/lib_runtime.sh
source tests/sh/lib_fortran.sh
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
command -v mpif90 >/dev/null || { echo "test_runtime_fortran_mpirun: no mpif90: skipped"; exit 77; }
lib=$PWD/build/libautotune.so
for f in "$lib" build/tests/fortran/{mpif,mpi,f08,linked}/fortran_collectives; do
    [ -e "$f" ] || { echo "test_runtime_fortran_mpirun: $f missing (run make tests)" >&2; exit 1; }
done

check() { # BINDING NP DEC
    local preload=$lib
    [ "$1" = linked ] && preload=
    timeout 120 mpirun --oversubscribe -np "$2" -x LD_PRELOAD="$preload" \
        -x AUTOTUNE_DECISION="$3" -x AUTOTUNE_VERBOSE=1 -x AUTOTUNE_NODE_OF_RANK=block:1 \
        "build/tests/fortran/$1/fortran_collectives" >"$tmp/out" 2>"$tmp/err"
    fortran_check "$1 np=$2 $(basename "$3")" "$2" $?
}

rounds=$(runtime_rounds)
for np in 3 4 5; do
    start=$SECONDS
    for k in $(seq 0 $((rounds - 1))); do
        runtime_round_dec "$tmp/r$k.dec" "$k" 1000
        check mpi "$np" "$tmp/r$k.dec"
        check f08 "$np" "$tmp/r$k.dec"
    done
    check mpif "$np" "$tmp/r0.dec"
    check linked "$np" "$tmp/r0.dec"
    echo "np=$np: $rounds rounds ($((SECONDS - start))s)"
done

# AUTOTUNE_PROFILE from Fortran (mpi_f08, no decision): each collective's
# calls per rank over its entries, times 3 ranks, are the calls made.
timeout 120 mpirun --oversubscribe -np 3 -x LD_PRELOAD="$lib" -x AUTOTUNE_PROFILE="$tmp/f.prof" \
    build/tests/fortran/f08/fortran_collectives >"$tmp/out" 2>"$tmp/err" ||
    fail "f08 with a profile: $(cat "$tmp/err")"
sed -n 's/^fortran_collectives: calls //p' "$tmp/out" | sort >"$tmp/made"
awk '!/^#/ && NF == 6 { n[$1] += 3 * $5 } END { for (c in n) print c, n[c] }' \
    "$tmp/f.prof" | sort >"$tmp/profiled"
[ -s "$tmp/made" ] && cmp -s "$tmp/made" "$tmp/profiled" ||
    fail "f08's profile: made $(tr '\n' ' ' <"$tmp/made"), profiled $(tr '\n' ' ' <"$tmp/profiled")"

[ $fails -eq 0 ] || { echo "$fails failures"; exit 1; }
echo "test_runtime_fortran_mpirun: ok"
