#!/usr/bin/env bash
# Every algorithm of every collective against SimGrid SMPI's own, on a
# simulated 64-host cluster, up to 64 ranks, primes included. Counts from
# 13 up run the reduced case matrix (-q) to keep the simulation short.
set -u
cd "$(dirname "$0")/../.."
bin=build/tests/smpi/test_collectives
platform=tests/mpi/cluster64.xml
for tool in smpicc smpirun; do
    if ! command -v "$tool" >/dev/null; then
        echo "test_coll_smpi: $tool not found: install SimGrid 3.32 (apt-get install libsimgrid-dev)" >&2
        exit 77
    fi
done
if [ ! -x "$bin" ]; then
    echo "test_coll_smpi: $bin missing (run make tests with smpicc installed)" >&2
    exit 1
fi
status=0
# Small messages eager and asynchronous below 32 KiB, as conf/platforms/*.xml
# set them: the message matching real simulated sweeps see. SMPI exits 0
# after a deadlock, so a run passes only with its summary line.
for np in 1 2 3 5 7 8 13 16 31 61 64; do
    quick=()
    [ "$np" -ge 13 ] && quick=(-q)
    start=$SECONDS
    out=$(timeout $((900 * ${TEST_TIME_SCALE:-1})) smpirun -np "$np" -platform "$platform" \
        --cfg=smpi/simulate-computation:no \
        --cfg=smpi/async-small-thresh:32768 \
        --cfg=smpi/send-is-detached-thresh:32768 --log=root.thres:warning \
        --log=smpi_kernel.thres:error "$bin" "${quick[@]}" 2>&1)
    rc=$?
    printf '%s\n' "$out"
    if [ $rc -eq 0 ] &&
        grep -q "^test_collectives: P=$np: [0-9]* runs, 0 failed$" <<<"$out"; then
        echo "np=$np ok ($((SECONDS - start))s)"
    else
        echo "np=$np FAILED (exit $rc, $((SECONDS - start))s)"
        status=1
    fi
done
exit $status
