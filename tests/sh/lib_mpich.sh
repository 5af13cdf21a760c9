# Sourced by the MPICH export tests after lib.sh: skips the test (77)
# unless Debian's MPICH (mpicc.mpich, mpirun.mpich, its headers) is
# installed, and builds tests/mpi/export_probe.c against it as $tmp/probe.
if ! command -v mpicc.mpich > /dev/null || ! command -v mpirun.mpich > /dev/null; then
    echo "SKIP: MPICH (mpicc.mpich, mpirun.mpich) is not installed"
    exit 77
fi
if ! mpicc.mpich -O2 -o "$tmp/probe" tests/mpi/export_probe.c 2> "$tmp/cc.err"; then
    cat "$tmp/cc.err"
    echo "SKIP: MPICH's headers are not installed (apt-get install libmpich-dev)"
    exit 77
fi
