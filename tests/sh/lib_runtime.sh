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

# "collective plan" for every node-aware plan test_collectives -n checks
# (its node_plans, the one list of them).
runtime_node_plans() {
    tr -d ' \n' <tests/mpi/test_collectives.c |
        grep -o '{"[a-z]*","node[0-9]*:[^"]*"}' |
        sed 's/{"\([a-z]*\)","\([^"]*\)"}/\1 \2/'
}

# Writes FILE: round K names each collective's K-th node-aware plan
# (counting round its list) at every point of every ranks per node in
# PPNS ("1 4"); a collective without one takes its K-th algorithm, with
# 1000-byte segments where segmented.
runtime_node_dec() { # FILE K PPNS
    local file=$1 k=$2 ppns=$3
    { runtime_node_plans | awk '{ print "node", $1, $2 }'
        runtime_algorithms | awk '{ print "flat", $1, $2 "/" ($3 ? 1000 : 0) }'; } |
        awk -v k="$k" -v ppns="$ppns" '
        $1 == "node" { n[$2]++; a[$2, n[$2] - 1] = $3; has[$2] = 1 }
        $1 == "flat" && !($2 in has) { f[$2]++; b[$2, f[$2] - 1] = $3 }
        $1 == "flat" && !($2 in seen) { seen[$2] = 1; order[++nc] = $2 }
        END {
            np = split(ppns, p, " ")
            print "autotune-decision 2"; print "kind flat"
            print "ranks_per_node " ppns
            print "methods " nc
            for (i = 1; i <= nc; i++) {
                c = order[i]
                if (c in n) print a[c, k % n[c]] "/0"
                else print b[c, k % f[c]]
            }
            print "collectives " nc
            for (i = 1; i <= nc; i++) {
                line = order[i]
                for (j = 1; j <= np; j++) line = line " " (i - 1)
                print line
            }
            print "nodes " nc
            for (i = 1; i <= nc; i++) print "leaf " i - 1
        }' >"$file"
}

# After a run of the collective test (-r) with a decision of
# runtime_node_dec (DEC) on NP ranks, its output in $tmp/out and
# $tmp/err: fail() unless every result was right and each collective's
# calls ran its method, the library taking only the calls of the
# non-commutative op where a phase's algorithm needs a commutative one
# (`autotune --list`: reduce's rabenseifner, allreduce's ring), and those
# of a plan whose inter-node phase cannot run on N_NODES (allgather's
# neighbor_exchange: [P even]); the node communicators made once, on the
# program's one communicator; with LAYOUT irregular, every call went to
# the library for that.
runtime_node_check() { # WHAT NP DEC LAYOUT N_NODES
    local what=$1 np=$2 dec=$3 layout=$4 n_nodes=$5 c label line n=0
    grep -q "^test_collectives: P=$np: [0-9]* runs, 0 failed$" "$tmp/out" ||
        { fail "$what: results"; cat "$tmp/out" "$tmp/err"; return; }
    while read -r c label; do
        n=$((n + 1))
        line=$(grep "^libautotune: $c: " "$tmp/err" | head -1)
        line=${line#libautotune: $c: }
        if [ "$layout" = irregular ]; then
            [[ $line =~ ^([0-9]+)\ calls:\ library\ ([0-9]+)\ \(irregular\ ([0-9]+)\)$ ]] &&
                [ "${BASH_REMATCH[1]}" = "${BASH_REMATCH[3]}" ] ||
                fail "$what: $c: want every call to the library (irregular): $line"
            continue
        fi
        local want="^[0-9]+ calls: ${label//+/\\+} [1-9][0-9]*"
        # nodeK: K leaders; on nodes of fewer ranks never run with fewer
        local leaders=${label%%:*}
        leaders=${leaders#node}
        [ -n "$leaders" ] && [ "$leaders" -gt $((np / n_nodes)) ] && leaders=few
        case $c:$label:$((n_nodes % 2)):$leaders in
        *:few | allgather:*+neighbor_exchange/*:1:*)
            want="^([0-9]+) calls: library \\1 \\(nodes \\1\\)$" ;;
        reduce:*rabenseifner*:* | allreduce:*+ring/*:*)
            want="$want, library [0-9]+ \(noncommutative [0-9]+\)$" ;;
        *) want="$want\$" ;;
        esac
        [[ $line =~ $want ]] || fail "$what: $c: want '$want': $line"
    done < <(awk '/^methods/ { n = $2; next } n > 0 { m[k++] = $1; n-- }
                 /^collectives/ { c = $2; next } c > 0 { print $1, m[$2]; c-- }' "$dec")
    [ "$n" -eq 8 ] || fail "$what: $n collectives in $dec, not 8"
    line=$(grep "^libautotune: node-aware methods:" "$tmp/err")
    if [ "$layout" = irregular ]; then
        [ -z "$line" ] || fail "$what: node communicators made: $line"
    else
        [ "$line" = "libautotune: node-aware methods: node and leaders' communicators made $np times (once per communicator on each of its ranks)" ] ||
            fail "$what: node communicators not made once per rank: ${line:-none}"
    fi
}
