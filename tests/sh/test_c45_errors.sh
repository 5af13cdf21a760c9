#!/usr/bin/env bash
# Bad C4.5 input is refused with one line naming file:line, a non-zero exit
# and nothing on stdout.
set -u
. "$(dirname "$0")/lib.sh"
bin=build/autotune
fails=0
names='| test
yes, no.
colour: red, green.
size: continuous.'

# expect NAME 'stderr pattern (grep -E)' 'names text' 'data text' [options]
expect() {
    local name=$1 pattern=$2 names_text=$3 data_text=$4
    shift 4
    local stem="$tmp/$name"
    [ -n "$names_text" ] && printf '%s\n' "$names_text" > "$stem.names"
    [ -n "$data_text" ] && printf '%s\n' "$data_text" > "$stem.data"
    "$bin" tree -f "$stem" "$@" > "$tmp/out" 2> "$tmp/err"
    local rc=$? lines
    lines=$(wc -l < "$tmp/err")
    if [ $rc -eq 0 ]; then
        echo "FAIL $name: exit status 0"; fails=$((fails + 1))
    elif ! grep -q -E -e "$pattern" "$tmp/err"; then
        echo "FAIL $name: expected /$pattern/, got: $(cat "$tmp/err")"
        fails=$((fails + 1))
    elif [ "$lines" -ne 1 ] || [ -s "$tmp/out" ]; then
        echo "FAIL $name: want one stderr line and no stdout"
        fails=$((fails + 1))
    else
        echo "ok   $name: $(cat "$tmp/err")"
    fi
}

expect no_names "$tmp/no_names.names: cannot open" '' 'red, 1, yes'
expect no_data "$tmp/no_data.data: cannot open" "$names" ''
expect unknown_class "$tmp/unknown_class.data:3: unknown class 'maybe'" \
    "$names" 'red, 1, yes
green, 2, no
red, 3, maybe'
expect too_few "$tmp/too_few.data:2: expected 2 values and a class" \
    "$names" 'red, 1, yes
green, no'
expect too_many "$tmp/too_many.data:1: expected 2 values and a class" \
    "$names" 'red, 1, 5, yes'
expect bad_number "$tmp/bad_number.data:2: attribute size: '2x' is not a number" \
    "$names" 'red, 1, yes
green, 2x, no'
expect nan "$tmp/nan.data:2: attribute size: 'nan' is not a number" \
    "$names" 'red, 1, yes
green, nan, no'
expect huge "$tmp/huge.data:1: attribute size: 1e39 is out of range" \
    "$names" 'red, 1e39, yes'
expect infinite "$tmp/infinite.data:1: attribute size: -inf is out of range" \
    "$names" 'red, -inf, yes'
expect bad_value "$tmp/bad_value.data:1: attribute colour: unknown value 'blue'" \
    "$names" 'blue, 1, yes'
expect one_value "$tmp/one_value.names:2: attribute colour: a discrete attribute needs at least two values" \
    'yes, no.
colour: red.' 'red, yes'
expect no_colon "$tmp/no_colon.names:3: expected ':' after attribute name size" \
    'yes, no.
colour: red, green.
size, continuous.' 'red, 1, yes'
expect no_test "$tmp/no_test.test: cannot open" "$names" 'red, 1, yes' -u
expect bad_m "-m: '0' is not a number in 1..1000000" "$names" 'red, 1, yes' -m 0
expect bad_c "-c: '200' is not a number in 0.001..100" "$names" 'red, 1, yes' -c 200
expect bad_option "unknown option '-x'" "$names" 'red, 1, yes' -x

[ $fails -eq 0 ] && echo "all error cases refused" || echo "$fails failed"
[ $fails -eq 0 ]
