#!/usr/bin/env bash
# Benchmark of the decision functions (issue 5) on exhaustive SMPI sweeps of
# bcast and reduce over the simulated Grig (conf/platforms/grig.xml):
#  - penalty: C4.5 trees (several -m/-c/--near, per collective and combined) and
#    quadtrees (depth 1..6, exact, accuracy limits), on the training grid and
#    held out (every other message size; 5 folds of grid points), beside the
#    MPI library's default when the run timed it (the wide journal does not:
#    its default_mean_pct is -; tests/bench/default.sh's runs do);
#  - time: ns per decision for random (procs, message size) queries, in
#    memory (the flattened lookup, inmem_ns, and the node walk it replaced,
#    walk_ns) and as generated C (the table form of --emit c, generated_ns,
#    and the nested ifs of --emit c-tree, generated_tree_ns), for trees of
#    1..6 levels and the largest.
# Figures: results/bench/decision-{penalty,time}-<scale>.csv and
# decision-<scale>.txt, each with the commands that produced them. The
# sweeps' journals are in results/bench-runs/, so a sweep resumes.
#   [DECISION_COLLECTIVES="bcast reduce"] [DECISION_SWEEP=no] tests/bench/decision.sh [wide|full]
# DECISION_SWEEP=no (full): no sweep; the figures cover the procs whose
# message sizes are all in the journals (the header says which).
# wide:  the search benchmark's Grig journal (tests/bench/search.sh wide):
#        procs 2..64 (14 sizes, 7 primes), 1 B..1 MiB by 4, segments 0 and
#        512 B..64 KiB (results/bench-runs/search-grig-wide.cfg)
# full:  the issue's grid, every procs 2..64 and 1 B..1 MiB by 2, the same
#        segments, in results/bench-runs/decision-grig-full (not committed):
#        it starts from a copy of the search benchmark's full Grig journal
#        (tests/bench/search.sh full grig, committed), and sweeps what that
#        lacks of DECISION_COLLECTIVES (hours of CPU per collective).
set -eu -o pipefail
cd "$(dirname "$0")/../.."
. tests/bench/journals.sh
scales=${*:-wide}
colls=${DECISION_COLLECTIVES:-bcast reduce}
make -s all build/libautotune-tool.a
mkdir -p results/bench
bin=build/autotune
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
runs=3 # timing programs per tree; each prints a median of 7 timings

median() { sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }

# penalty_row RUN_LABEL COLL BUILDER OPTIONS HOLDOUT -- autotune args...
# Runs autotune and turns its report into one CSV row.
penalty_row() {
    local label=$1 coll=$2 builder=$3 options=$4 holdout=$5
    shift 6
    echo "  $bin $*" >> "$tmp/commands"
    "$bin" "$@" -o "$tmp/x" > "$tmp/out"
    awk -v label="$label" -v coll="$coll" -v builder="$builder" \
        -v options="$options" -v holdout="$holdout" '
        $1 == coll && $2 == builder && $3 != "held" { n = $3; mn = $4; mx = $5; me = $6; md = $7 }
        $1 == coll && $2 == builder && $3 == "held" { hn = $5; hmx = $7; hme = $8 }
        $1 == coll && $2 == "default" { dme = $6 }
        /^(c45|quadtree): / { gsub(",", ""); leaves = $2; nodes = $4; depth = $8; mdepth = $11 }
        END {
            printf "%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s\n",
                label, coll, builder, options, leaves, nodes, depth, mdepth,
                n, mn, mx, me, md, holdout, hn, hme, hmx, (dme == "" ? "-" : dme)
        }' "$tmp/out"
}

for scale in $scales; do
    case $scale in
    wide)  run=results/bench-runs/search-grig-wide; np=64 ;;
    full)
        run=results/bench-runs/decision-grig-full; np=64
        mkdir -p "$run"
        # The journal is the sweep's cache: start from the search
        # benchmark's full Grig sweep (and the sweeps that share its grid,
        # search-grig-full-*: one collective or procs range each, run in
        # parallel), adding the records they have that this one lacks (all
        # hold the same settings line; records are keyed, in any order).
        journal_merge "$run/journal" results/bench-runs/search-grig-full/journal \
            results/bench-runs/search-grig-full-*/journal
        quoted=$(printf '"%s", ' $colls)
        procs=$(seq -s ', ' 2 64)
        if [ "${DECISION_SWEEP:-yes}" = no ]; then
            # Only the procs whose 21 message sizes are all swept, for every
            # collective: the sweep then measures nothing, it writes tables.
            procs=$(awk -v colls=" $colls " -v n="$(echo $colls | wc -w)" '
                $1 == "p" && index(colls, " " $2 " ") {k[$3]++}
                END {for (p in k) if (k[p] == 21 * n) print p}' "$run/journal" |
                sort -n | paste -sd, | sed 's/,/, /g')
        fi
        sweep_cfg "$run.cfg" "$run" "[${quoted%, }]" "[$procs]" \
            "{ min = 1; max = 1048576; factor = 2; }"
        ;;
    *) echo "usage: $0 [wide|full]"; exit 2 ;;
    esac
    sweep="nice -n 10 smpirun -np $np -platform conf/platforms/grig.xml --cfg=smpi/simulate-computation:no --log=root.thres:critical build/autotune-smpi -c $run.cfg"
    echo "$sweep"
    $sweep
    : > "$tmp/commands"
    pen=results/bench/decision-penalty-$scale.csv
    {
        echo "run,collective,builder,options,leaves,nodes,max_depth,mean_depth,points,min_pct,max_pct,mean_pct,median_pct,holdout,holdout_points,holdout_mean_pct,holdout_max_pct,default_mean_pct"
        for coll in $colls; do
            # -m, -c and --near (labels within that % of the optimum kept
            # from the neighbour: fewer leaves on dense grids)
            for mcn in "2 25 0" "3 25 0" "4 25 0" "6 25 0" "8 25 0" "12 25 0" "16 25 0" \
                       "2 1 0" "3 1 0" "20 5 0" "40 5 0" "4 25 1" "6 25 1" "8 25 1" \
                       "4 25 2" "6 25 2" "8 25 2"; do
                set -- $mcn
                near=""
                [ "$3" = 0 ] || near=" --near $3"
                for h in sizes 5; do
                    # shellcheck disable=SC2086
                    penalty_row "$scale" "$coll" tree "-m $1 -c $2$near" "$h" -- \
                        tree -r "$run" --collectives "$coll" -m "$1" -c "$2"$near --holdout "$h"
                done
            done
            for mc in "2 25" "20 5"; do
                # a combined tree needs two collectives or more
                [ "$(echo $colls | wc -w)" -gt 1 ] || break
                set -- $mc
                penalty_row "$scale" "$coll" tree "combined -m $1 -c $2" sizes -- \
                    tree -r "$run" --combined -m "$1" -c "$2" --holdout sizes
            done
            for d in 1 2 3 4 5 6; do
                penalty_row "$scale" "$coll" quadtree "depth $d" sizes -- \
                    quadtree -r "$run" --collective "$coll" --depth "$d" --holdout sizes
            done
            for a in 50 70 90 100; do
                penalty_row "$scale" "$coll" quadtree "accuracy $a" sizes -- \
                    quadtree -r "$run" --collective "$coll" --accuracy "$a" --holdout sizes
            done
        done
    } > "$tmp/pen.csv"

    max_procs=$(awk -F, 'NR > 1 && $2 > m {m = $2} END {print m}' "$run/optimal.csv")
    max_msg=$(awk -F, 'NR > 1 && $3 > m {m = $3} END {print m}' "$run/optimal.csv")
    {
        echo "run,collective,builder,levels,leaves,nodes,max_depth,inmem_ns,walk_ns,generated_ns,generated_tree_ns,loop_ns"
        for coll in $colls; do
            for builder in tree quadtree; do
                for levels in 1 2 3 4 5 6 all; do
                    if [ $builder = tree ]; then
                        args=(tree -r "$run" --collectives "$coll")
                        [ $levels = all ] || args+=(--depth "$levels")
                    else
                        args=(quadtree -r "$run" --collective "$coll")
                        if [ $levels = all ]; then args+=(--accuracy 100); else args+=(--depth "$levels"); fi
                    fi
                    "$bin" "${args[@]}" --emit c,c-tree -o "$tmp/t" > "$tmp/out"
                    echo "  $bin ${args[*]} --emit c,c-tree" >> "$tmp/commands"
                    shape=$(awk '/^(c45|quadtree): / {gsub(",", ""); print $2 "," $4 "," $8}' "$tmp/out")
                    # The table form (t.c) and the tree form (t-tree.c).
                    for form in "" -tree; do
                        cc -std=c11 -O2 -D_POSIX_C_SOURCE=200809L -I. -DEMITTED="\"$tmp/t$form.c\"" \
                            -o "$tmp/bench$form" tests/bench/decision_bench.c build/libautotune-tool.a -lm
                    done
                    for i in $(seq $runs); do
                        "$tmp/bench" "$tmp/t.dec" "$coll" "$max_procs" "$max_msg" 2> /dev/null
                        "$tmp/bench-tree" "$tmp/t.dec" "$coll" "$max_procs" "$max_msg" 2> /dev/null |
                            sed 's/generated_ns/tree_ns/'
                    done > "$tmp/times"
                    # "inmem_ns X walk_ns W generated_ns|tree_ns Y loop_ns Z"
                    inmem=$(awk '$5 == "generated_ns" {print $2}' "$tmp/times" | median)
                    walk=$(awk '$5 == "generated_ns" {print $4}' "$tmp/times" | median)
                    gen=$(awk '$5 == "generated_ns" {print $6}' "$tmp/times" | median)
                    gen_tree=$(awk '$5 == "tree_ns" {print $6}' "$tmp/times" | median)
                    loop=$(awk '$5 == "generated_ns" {print $8}' "$tmp/times" | median)
                    echo "$scale,$coll,$builder,$levels,$shape,$inmem,$walk,$gen,$gen_tree,$loop"
                done
            done
        done
    } > "$tmp/time.csv"
    tim=results/bench/decision-time-$scale.csv
    header="# $(date -u +%Y-%m-%d) Grig ($scale grid: $(awk -F, 'NR > 1 {p[$2]; m[$3]} END {print length(p) " procs up to " '"$max_procs"' ", " length(m) " message sizes up to " '"$max_msg"' " B"}' "$run/optimal.csv")): $sweep"
    { echo "$header"; sed 's/^/# /' "$tmp/commands" | grep -v -- '--emit c'; cat "$tmp/pen.csv"; } > "$pen"
    { echo "$header"
      echo "# inmem_ns: decision_lookup (the flattened form decision_load builds); walk_ns: decision_walk (the node walk); generated_ns: --emit c (table form); generated_tree_ns: --emit c-tree (nested ifs)"
      echo "# ns per decision: random procs in 2..$max_procs, sizes log-uniform in 1..$max_msg B; thread CPU time, median of $runs programs x median of 7 timings of 1M decisions, the loop's own cost (loop_ns: reading the query, the sum) included; cc -O2 on $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores shared"
      sed 's/^/# /' "$tmp/commands" | grep -- '--emit c'; cat "$tmp/time.csv"; } > "$tim"
    txt=results/bench/decision-$scale.txt
    {
        echo "$header"
        echo
        echo "Against the issue's figures (C4.5: the per-collective tree of at most"
        echo "25 leaves with the lowest training penalty; held out: every other size, 5 folds):"
        awk -F, 'NR > 1 && $3 == "tree" && $4 !~ /combined/ && $5 <= 25 {
                k = $2 SUBSEP $4
                if ($14 == "sizes") { hs[k] = $16 } else { hf[k] = $16 }
                if (!($2 in best) || $12 < bm[$2]) { best[$2] = $4; bm[$2] = $12; bl[$2] = $5 }
            }
            NR > 1 && $3 == "quadtree" && $4 == "depth 3" { q3[$2] = $12 }
            NR > 1 && $3 == "quadtree" && $4 == "accuracy 100" { qx[$2] = $12 }
            NR > 1 && $18 != "-" && $18 != "" { dm[$2] = $18 }
            END {
                for (c in best) {
                    k = c SUBSEP best[c]
                    printf "  %-7s C4.5 %s: %d leaves, mean %.2f %% (<= 2), held out %.2f / %.2f %% (<= 4); quadtree depth 3: %.2f %% (<= 5), exact: %.2f %% (0); default: %s\n",
                        c, best[c], bl[c], bm[c], hs[k], hf[k], q3[c], qx[c], (c in dm) ? dm[c] " %" : "not timed"
                }
            }' "$tmp/pen.csv" | sort
        echo
        echo "Penalty (%) against the measured optimum, training grid and held out:"
        column -s, -t < "$tmp/pen.csv"
        echo
        echo "Decision time (ns):"
        column -s, -t < "$tmp/time.csv"
    } > "$txt"
    cat "$txt"
done
