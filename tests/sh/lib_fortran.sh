# Sourced by libautotune's Fortran tests: the checks on one run of
# tests/mpi/fortran_collectives.F90 as an application of libautotune with
# AUTOTUNE_VERBOSE=1, its stdout in $tmp/out and stderr in $tmp/err.

# fail() unless the run exited RC 0 and passed, AUTOTUNE_VERBOSE counted
# each collective's calls as the program did (its Fortran calls were
# intercepted, MPI_BOTTOM's too), and no other line.
fortran_check() { # WHAT NP RC
    local what=$1 np=$2 rc=$3 prog=fortran_collectives n=0 coll calls
    if [ "$rc" -ne 0 ]; then
        fail "$what: exit status $rc"; cat "$tmp/out" "$tmp/err"; return
    fi
    grep -q "^$prog: P=$np: [0-9]* checks on rank 0, 0 failed$" "$tmp/out" ||
        { fail "$what: results"; cat "$tmp/out"; }
    while read -r coll calls; do
        n=$((n + 1))
        grep -q "^libautotune: $coll: $calls calls:" "$tmp/err" ||
            fail "$what: $coll: $calls calls made, AUTOTUNE_VERBOSE says: $(grep "^libautotune: $coll:" "$tmp/err")"
    done < <(sed -n "s/^$prog: calls //p" "$tmp/out")
    [ "$n" -eq 8 ] || fail "$what: $n collectives counted by the program, not 8"
    if grep -q "^libautotune: Fortran: " "$tmp/err"; then
        fail "$what: $(grep "^libautotune: Fortran: " "$tmp/err")"
    fi
}
