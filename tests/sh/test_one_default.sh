#!/usr/bin/env bash
# Each default has one home (STYLE.md): the default chain_fanout is
# util/tuning.h's TUNING_CHAIN_FANOUT, and no message states it as a
# literal of its own (a second copy would go on saying the old value when
# the default changes). What export says of a run without a journal is
# that value.
set -u
. "$(dirname "$0")/lib.sh"
at=${AUTOTUNE:-build/autotune}

fanout=$(sed -n 's/.*TUNING_CHAIN_FANOUT = \([0-9][0-9]*\).*/\1/p' util/tuning.h)
[ -n "$fanout" ] || fail "util/tuning.h: no TUNING_CHAIN_FANOUT"
copies=$(grep -rnE '"[^"]*chain_fanout [0-9]' --include='*.c' --include='*.h' \
    autotune tune store decision report runtime search collectives model)
[ -z "$copies" ] || fail "the default chain_fanout as a literal: $copies"

mkdir "$tmp/run"
cp results/bench-runs/default-grig/optimal.csv "$tmp/run/"
"$at" export -r "$tmp/run" --format csv > "$tmp/out" 2> "$tmp/err" || fail "export: $(cat "$tmp/err")"
[ -s "$tmp/out" ] || fail "export wrote nothing"
grep -q "has no journal; assuming backend own, chain_fanout $fanout\$" "$tmp/err" ||
    fail "export's note does not say chain_fanout $fanout: $(cat "$tmp/err")"
exit $((fails > 0))
