#!/usr/bin/env bash
# libautotune from Fortran under SimGrid SMPI: the collective test of
# tests/mpi/fortran_collectives.F90 through mpif.h and the mpi module
# (SimGrid has no mpi_f08), linked with build/libautotune-smpi.a, a
# decision forcing each algorithm in turn (rounds of
# tests/sh/lib_runtime.sh), on 3, 4, 5 and 7 ranks: results checked in
# Fortran, and AUTOTUNE_VERBOSE's count of each collective equals the calls
# the program made. Without its MPI_BOTTOM call, on which SimGrid 3.32's
# own bcast crashes.
source "$(dirname "$0")/lib.sh"
source tests/sh/lib_runtime.sh
source tests/sh/lib_fortran.sh
for tool in smpif90 smpirun; do
    command -v "$tool" >/dev/null || { echo "test_runtime_fortran_smpi: no $tool: skipped"; exit 77; }
done
for f in build/tests/fortran-smpi/{mpif,mpi}/fortran_collectives; do
    [ -x "$f" ] || { echo "test_runtime_fortran_smpi: $f missing (run make tests)" >&2; exit 1; }
done

check() { # BINDING NP DEC
    AUTOTUNE_DECISION=$3 AUTOTUNE_VERBOSE=1 timeout $((300 * ${TEST_TIME_SCALE:-1})) \
        smpirun -np "$2" -platform tests/mpi/cluster64.xml \
        --cfg=smpi/simulate-computation:no --log=root.thres:warning \
        --log=smpi_kernel.thres:error \
        "build/tests/fortran-smpi/$1/fortran_collectives" no-bottom >"$tmp/out" 2>"$tmp/err"
    fortran_check "$1 np=$2 $(basename "$3")" "$2" $?
}

rounds=$(runtime_rounds)
for np in 3 4 5 7; do
    start=$SECONDS
    for k in $(seq 0 $((rounds - 1))); do
        runtime_round_dec "$tmp/r$k.dec" "$k" 1000
        check mpi "$np" "$tmp/r$k.dec"
    done
    check mpif "$np" "$tmp/r0.dec"
    echo "np=$np: $rounds rounds ($((SECONDS - start))s)"
done

[ $fails -eq 0 ] || { echo "$fails failures"; exit 1; }
echo "test_runtime_fortran_smpi: ok"
