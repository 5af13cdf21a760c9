#!/usr/bin/env bash
# `autotune tree -r` and `autotune quadtree` on the committed fixture run
# against their golden outputs (tests/decision/golden/NAME.txt, cases in
# CASES). With --update, rewrites the golden files for review instead
# (`make golden-decision`).
set -u
cd "$(dirname "$0")/../.."
bin=build/autotune
run=tests/decision/run
dir=tests/decision/golden
update=0
[ "${1:-}" = --update ] && update=1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
total=0 bad=0
while read -r name args; do
    case $name in '#'* | '') continue ;; esac
    total=$((total + 1))
    args=${args//RUN/$run}
    args=${args//OUT/$tmp/$name}
    # shellcheck disable=SC2086
    if ! "$bin" $args > "$tmp/$name.out" 2> "$tmp/$name.err"; then
        echo "FAIL $name: autotune $args: $(head -1 "$tmp/$name.err")"
        bad=$((bad + 1)); continue
    fi
    # The decision file itself is part of the output.
    cat "$tmp/$name.dec" >> "$tmp/$name.out"
    sed -i "s#$tmp/#OUT/#g" "$tmp/$name.out"
    if [ $update = 1 ]; then
        cp "$tmp/$name.out" "$dir/$name.txt"
    elif ! diff "$dir/$name.txt" "$tmp/$name.out" > "$tmp/$name.diff"; then
        echo "FAIL $name: autotune $args differs from $dir/$name.txt"
        head -n 30 "$tmp/$name.diff"
        bad=$((bad + 1))
    fi
done < "$dir/CASES"
# --emit names gives the same data to `tree -f`, which prints the same tree
# (its last tree: the simplified one, or the only one when pruning changed
# nothing; leaf counts aside, which are training errors there).
cases=("--collectives reduce -m 4|names-reduce|-m 4"
       "--combined -m 8 -c 10|names|-m 8 -c 10")
for c in "${cases[@]}"; do
    IFS='|' read -r opts stem fopts <<< "$c"
    # shellcheck disable=SC2086
    "$bin" tree -r $run $opts --emit names -o "$tmp/names" > "$tmp/r.out"
    # shellcheck disable=SC2086
    "$bin" tree -f "$tmp/$stem" $fopts > "$tmp/f.out"
    last=$(grep -c 'Decision Tree:' "$tmp/f.out")
    if ! diff <(awk -v last="$last" '/Decision Tree:/ {n++; next} /^Tree saved/ {n = 0} n == last' "$tmp/f.out" | sed '/^$/d; s/ ([0-9./]*)$//') \
              <(sed -n '2,/ leaves, size /p' "$tmp/r.out" | sed '$d' | sed '/^$/d; s/ ([0-9./]*)$//') > "$tmp/names.diff"; then
        echo "FAIL tree -r $opts --emit names: tree -f $fopts prints another tree"
        head -20 "$tmp/names.diff"; bad=$((bad + 1))
    fi
    total=$((total + 1))
done
[ $update = 1 ] && echo "rewrote $total golden files in $dir; review with git diff"
echo "decision golden: $((total - bad))/$total match"
[ $bad = 0 ]
