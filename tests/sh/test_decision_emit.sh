#!/usr/bin/env bash
# Generated C of C4.5 trees and quadtrees compiles with -Wall -Wextra -Werror
# (and the project's other warnings, with cc and with clang when there is
# one) and agrees with the node walk of the decision it was generated from,
# as does the in-memory lookup, on every grid point, at random points and
# extremes and at the cuts: both forms, table (--emit c; c-table writes the
# same) and nested ifs (--emit c-tree); decisions of one leaf and of cuts on
# one attribute only, and hand-written decision files with cuts anywhere
# (negative, next to powers of two, several in one power-of-two bucket,
# near the largest values).
set -u
. "$(dirname "$0")/lib.sh"
bin=build/autotune
run=tests/decision/run
compilers=${CC_EMIT:-cc $(command -v clang > /dev/null && echo clang)}
warn="-std=c11 -Wall -Wextra -Werror -Wpedantic -Wshadow -Wstrict-prototypes
      -Wmissing-prototypes -Wformat=2 -Wundef -Wwrite-strings -Wvla"
libs="$(pkg-config --libs gsl libconfig 2>/dev/null) -lm"
# `make SANITIZE=... check` built build/libautotune-tool.a with the sanitizers;
# what links it needs their runtimes.
libs="$libs${SANITIZE:+ -fsanitize=$SANITIZE}"
fail=0

# check NAME RUN: STEM $tmp/NAME has NAME.dec, NAME.c and NAME-tree.c.
check() {
    local name=$1 grid=$2 form src cc
    for form in "" -tree; do
        src=$tmp/$name$form.c
        for cc in $compilers; do
            # shellcheck disable=SC2086
            if ! $cc $warn -O2 -c "$src" -o "$tmp/$name$form.o" 2> "$tmp/$name.cc"; then
                echo "FAIL $name$form: generated C does not compile cleanly with $cc:"
                head -20 "$tmp/$name.cc"; fail=1; continue 2
            fi
        done
        # shellcheck disable=SC2086
        if ! cc -std=c11 -O2 -I. -o "$tmp/$name$form.check" tests/decision/check_emit.c \
                "$tmp/$name$form.o" build/libautotune-core.a $libs 2> "$tmp/$name.ld"; then
            echo "FAIL $name$form: cannot link the checker:"; head -20 "$tmp/$name.ld"
            fail=1; continue
        fi
        if "$tmp/$name$form.check" "$tmp/$name.dec" "$grid"; then
            echo "ok   $name$form: agrees with the node walk"
        else
            echo "FAIL $name$form: generated C or in-memory lookup disagrees"; fail=1
        fi
    done
}

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
    "exacttable|tree -r $run --exact"
    "nextsize|tree -r $run --between next"
)
for c in "${cases[@]}"; do
    name=${c%%|*} args=${c#*|}
    # shellcheck disable=SC2086
    if ! $bin $args --emit c,c-tree,c-table -o "$tmp/$name" > "$tmp/$name.log" 2>&1; then
        echo "FAIL $name: autotune $args: $(head -1 "$tmp/$name.log")"
        fail=1; continue
    fi
    if ! cmp -s "$tmp/$name.c" "$tmp/$name-table.c"; then
        echo "FAIL $name: --emit c-table is not the table form of --emit c"; fail=1
    fi
    check "$name" "$run"
done

# A run whose optimum is a node-aware method at 64 KiB, 8 ranks per node
# (names with '/', '+' and ':', one longer than 64 characters, in the C's
# strings and comments).
noderun=$tmp/noderun
mkdir -p "$noderun"
echo "collective,procs,ppn,msg_bytes,algorithm,segment_bytes,time_us" > "$noderun/optimal.csv"
echo "collective,procs,ppn,msg_bytes,algorithm,segment_bytes,reps,mean_us,median_us,min_us,max_us,sd_us,cost_s" \
    > "$noderun/measurements.csv"
long=node:in_order_binary/1024+segmented_ring/8192+scatter_allgather_ring/0
for msg in 8 65536 1048576; do
    for row in "bcast|binomial|node:binomial/8192+binomial/0" "allreduce|ring|$long"; do
        IFS='|' read -r coll flat node <<< "$row"
        best=$flat
        [ "$msg" = 65536 ] && best=$node
        echo "$coll,16,8,$msg,$best,0,10" >> "$noderun/optimal.csv"
        echo "$coll,16,8,$msg,$best,0,5,10,10,10,10,0,0.001" >> "$noderun/measurements.csv"
    done
done

# Runs at ranks per node other than 1: at 1 and 8, a table per
# (collective, ppn), found by autotune_table; at 8, the node-aware run.
ppn_run=tests/decision/ppn-run
for c in "ppntree|$ppn_run|tree" "ppnexact|$ppn_run|tree --exact" \
    "ppnquad|$ppn_run|quadtree --collective allgather --depth 2" \
    "nodetree|$noderun|tree" "nodeexact|$noderun|tree --exact"; do
    IFS='|' read -r name grid args <<< "$c"
    # shellcheck disable=SC2086
    if ! $bin $args -r "$grid" --emit c,c-tree -o "$tmp/$name" > "$tmp/$name.log" 2>&1; then
        echo "FAIL $name: autotune $args -r $grid: $(head -1 "$tmp/$name.log")"
        fail=1; continue
    fi
    [ "$grid" != "$ppn_run" ] || grep -q '^int autotune_table(int collective, int ppn)$' "$tmp/$name.c" ||
        { echo "FAIL $name: no autotune_table"; fail=1; }
    [ "$grid" != "$noderun" ] || grep -qF "\"$long/0\"," "$tmp/$name.c" ||
        { echo "FAIL $name: the node-aware name is not whole in the C"; fail=1; }
    check "$name" "$grid"
done

# Hand-written decisions: two collectives (a tree of quads and splits with
# awkward cuts; cuts on procs only), cuts on the message size only, a leaf.
cat > "$tmp/awkward.dec" <<'DEC'
autotune-decision 1
kind c45
methods 4
a/0
b/0
c/0
d/0
collectives 2
bcast 0
reduce 27
nodes 37
quad -3 1000 1
split msg_bytes -5 5
split procs 1000000 7
split msg_bytes 1001 10
split msg_bytes 1002 12
leaf 0
leaf 1
split msg_bytes 1003 14
leaf 0
leaf 2
leaf 3
split procs 2147483646 16
split msg_bytes 9223372036854775806 19
leaf 1
leaf 2
split msg_bytes 1099511627779 21
leaf 3
leaf 0
leaf 1
quad 56 -9223372036854775808 23
leaf 2
leaf 0
leaf 3
leaf 1
leaf 2
leaf 3
leaf 0
split procs 5 28
leaf 1
leaf 0
split procs -2147483648 31
leaf 2
leaf 0
split procs 63 34
leaf 3
leaf 0
leaf 0
DEC
cat > "$tmp/msgonly.dec" <<'DEC'
autotune-decision 1
kind c45
methods 3
a/0
b/0
c/0
collectives 1
bcast 0
nodes 9
split msg_bytes 1000 1
leaf 0
split msg_bytes 1001 3
leaf 1
split msg_bytes 1003 5
leaf 2
split msg_bytes 3 7
leaf 0
leaf 1
DEC
cat > "$tmp/oneleaf.dec" <<'DEC'
autotune-decision 1
kind quadtree
methods 3
a/0
b/0
c/0
collectives 2
bcast 0
reduce 0
nodes 1
leaf 2
DEC
cc -std=c11 -O2 -I. -o "$tmp/emit_dec" tests/decision/emit_dec.c build/libautotune-core.a $libs || fail=1
for name in awkward msgonly oneleaf; do
    if ! "$tmp/emit_dec" "$tmp/$name.dec" "$tmp/$name"; then
        echo "FAIL $name: cannot generate C"; fail=1; continue
    fi
    check "$name" -
done
exit $fail
