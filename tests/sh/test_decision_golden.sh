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
[ $update = 1 ] && echo "rewrote $total golden files in $dir; review with git diff"
echo "decision golden: $((total - bad))/$total match"
[ $bad = 0 ]
