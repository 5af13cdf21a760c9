#!/usr/bin/env bash
# Generated C of C4.5 trees and quadtrees compiles with -Wall -Wextra -Werror
# (and the project's other warnings) and agrees with the in-memory decision
# it was generated from on every grid point, on random points and at the
# cuts; both forms, nested ifs (--emit c) and table (--emit c-table), and
# decisions of one leaf and of cuts on one attribute only.
set -u
. "$(dirname "$0")/lib.sh"
bin=build/autotune
run=tests/decision/run
cc=${CC_EMIT:-cc}
warn="-std=c11 -Wall -Wextra -Werror -Wpedantic -Wshadow -Wstrict-prototypes
      -Wmissing-prototypes -Wformat=2 -Wundef -Wwrite-strings -Wvla"
libs="$(pkg-config --libs gsl libconfig 2>/dev/null) -lm"
fail=0
cases=(
    "tree1|tree -r $run"
    "tree2|tree -r $run -m 8 -c 5 --collectives reduce"
    "combined|tree -r $run --combined"
    "quad1|quadtree -r $run --collective bcast --depth 1"
    "quad3|quadtree -r $run --collective bcast --depth 3"
    "exact|quadtree -r $run --collective reduce --accuracy 100"
    "acc|quadtree -r $run --collective reduce --accuracy 50"
    "leaf|quadtree -r $run --collective bcast --accuracy 1"
    "depth1|tree -r $run --collectives reduce --depth 1"
)
for c in "${cases[@]}"; do
    name=${c%%|*} args=${c#*|}
    # shellcheck disable=SC2086
    if ! $bin $args --emit c,c-table -o "$tmp/$name" > "$tmp/$name.log" 2>&1; then
        echo "FAIL $name: autotune $args: $(head -1 "$tmp/$name.log")"
        fail=1; continue
    fi
    # Both forms: the nested ifs (STEM.c) and the table (STEM-table.c).
    for form in "" -table; do
        src=$tmp/$name$form.c
        # shellcheck disable=SC2086
        if ! $cc $warn -O2 -c "$src" -o "$tmp/$name$form.o" 2> "$tmp/$name.cc"; then
            echo "FAIL $name$form: generated C does not compile cleanly:"
            head -20 "$tmp/$name.cc"; fail=1; continue
        fi
        # shellcheck disable=SC2086
        if ! $cc -std=c11 -O2 -I. -o "$tmp/$name$form.check" tests/decision/check_emit.c \
                "$tmp/$name$form.o" build/libautotune.a $libs 2> "$tmp/$name.ld"; then
            echo "FAIL $name$form: cannot link the checker:"; head -20 "$tmp/$name.ld"
            fail=1; continue
        fi
        if "$tmp/$name$form.check" "$tmp/$name.dec" "$run"; then
            echo "ok   $name$form: agrees with the in-memory decision"
        else
            echo "FAIL $name$form: autotune $args: generated C disagrees"; fail=1
        fi
    done
done
exit $fail
