# Sourced by the libautotune tests: decision files that name one method for
# each collective at every point, written in the .dec text form
# (decision/dec_file.c): one method per collective, each collective's root
# a leaf. The algorithms come from `autotune --list`.

# "collective algorithm segmented(0|1)" for every algorithm of the table.
runtime_algorithms() {
    build/autotune --list | awk '
        /^[a-z]+:$/ { c = substr($1, 1, length($1) - 1); next }
        /^[a-z]/ { c = "" }
        c != "" && /^  [a-z_]+ / { print c, $1, ($0 ~ /\[segmented\]/) }'
}

# Writes FILE: round K names each collective's K-th algorithm (counting
# round its list), segmented ones with SEG-byte segments.
runtime_round_dec() { # FILE K SEG
    local file=$1 k=$2 seg=$3
    runtime_algorithms | awk -v k="$k" -v seg="$seg" '
        { n[$1]++; a[$1, n[$1] - 1] = $2 "/" ($3 ? seg : 0)
          if (!($1 in seen)) { seen[$1] = 1; order[++nc] = $1 } }
        END {
            print "autotune-decision 1"; print "kind flat"
            print "methods " nc
            for (i = 1; i <= nc; i++) print a[order[i], k % n[order[i]]]
            print "collectives " nc
            for (i = 1; i <= nc; i++) print order[i], i - 1
            print "nodes " nc
            for (i = 1; i <= nc; i++) print "leaf " i - 1
        }' >"$file"
}

# Rounds needed for every algorithm of every collective to come once.
runtime_rounds() {
    runtime_algorithms | awk '{ n[$1]++ } END { m = 0; for (c in n) if (n[c] > m) m = n[c]; print m }'
}

# Every round on NP ranks: the collective test COLL as an application of
# libautotune, started by the caller's `run NP DEC PROGRAM ARGS...` (its
# output in $tmp/out and $tmp/err); fail() for each round that failed.
runtime_check_rounds() { # NP COLL
    local np=$1 coll=$2 k start=$SECONDS rounds
    rounds=$(runtime_rounds)
    for k in $(seq 0 $((rounds - 1))); do
        runtime_round_dec "$tmp/r$k.dec" "$k" 1000
        if ! run "$np" "$tmp/r$k.dec" "$coll" -r -q ||
            ! grep -q "^test_collectives: P=$np: [0-9]* runs, 0 failed$" "$tmp/out"; then
            fail "np=$np round $k ($(tr '\n' ' ' <"$tmp/r$k.dec"))"
            cat "$tmp/out" "$tmp/err"
        fi
    done
    echo "np=$np: $rounds rounds ($((SECONDS - start))s)"
}
