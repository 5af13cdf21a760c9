#!/usr/bin/env bash
# Every algorithm of every collective against Open MPI's own, for
# odd, even and prime process counts (see tests/mpi/test_collectives.c).
set -u
cd "$(dirname "$0")/../.."
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
bin=build/tests/mpi/test_collectives
if ! command -v mpirun >/dev/null; then
    echo "test_coll_mpirun: mpirun not found (install Open MPI)" >&2
    exit 1
fi
if [ ! -x "$bin" ]; then
    echo "test_coll_mpirun: $bin missing (run make tests)" >&2
    exit 1
fi
status=0
for np in 1 2 3 4 5 7 8; do
    start=$SECONDS
    # A deadlocked algorithm must fail the test, not hang it.
    if timeout 300 mpirun --allow-run-as-root --oversubscribe -np "$np" "$bin"; then
        echo "np=$np ok ($((SECONDS - start))s)"
    else
        echo "np=$np FAILED (exit $?, $((SECONDS - start))s)"
        status=1
    fi
done
exit $status
