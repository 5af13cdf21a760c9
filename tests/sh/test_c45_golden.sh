#!/usr/bin/env bash
# `autotune tree` against outputs of Quinlan's c4.5 release 8: every file in
# tests/c45/out (STEM_mM_cC[_g|_s].txt) must match byte for byte, date aside.
set -u
. "$(dirname "$0")/lib.sh"
bin=build/autotune
total=0 ok=0 bad=()

for ref in tests/c45/out/*.txt; do
    name=$(basename "$ref" .txt)
    if ! [[ $name =~ ^(.+)_m([0-9]+)_c([0-9.]+)(_g|_s)?$ ]]; then
        echo "FAIL $name: name is not STEM_mM_cC[_g|_s]"
        bad+=("$name"); total=$((total + 1)); continue
    fi
    stem=${BASH_REMATCH[1]} m=${BASH_REMATCH[2]} c=${BASH_REMATCH[3]}
    flags=()
    # As the references were made: -u where STEM.test exists, options in
    # this order (c4.5 lists them in the order given).
    [ -f "tests/c45/data/$stem.test" ] && flags+=(-u)
    flags+=(-m "$m" -c "$c")
    case ${BASH_REMATCH[4]} in
        _g) flags+=(-g) ;;
        _s) flags+=(-s) ;;
    esac
    total=$((total + 1))
    if ! "$bin" tree -f "tests/c45/data/$stem" "${flags[@]}" \
            > "$tmp/$name.txt" 2> "$tmp/$name.err"; then
        echo "FAIL $name: exit status $? ($(head -1 "$tmp/$name.err"))"
        bad+=("$name"); continue
    fi
    # Line 2 carries the date.
    if diff <(sed 2d "$ref") <(sed 2d "$tmp/$name.txt") > "$tmp/$name.diff"; then
        ok=$((ok + 1))
    else
        echo "FAIL $name: autotune tree -f tests/c45/data/$stem ${flags[*]}"
        head -n 40 "$tmp/$name.diff"
        bad+=("$name")
    fi
done

echo "$ok/$total golden outputs match"
[ ${#bad[@]} -gt 0 ] && echo "mismatched: ${bad[*]}"
[ "$total" -gt 0 ] && [ "$ok" -eq "$total" ]
