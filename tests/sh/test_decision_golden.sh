#!/usr/bin/env bash
# `autotune tree -r` and `autotune quadtree` on the committed fixture runs
# (RUN, and PPNRUN at two ranks per node) against their golden outputs
# (tests/decision/golden/NAME.txt, cases in CASES). With --update, rewrites the golden files for review instead
# (`make golden-decision`).
set -u
cd "$(dirname "$0")/../.."
bin=build/autotune
run=tests/decision/run
ppn_run=tests/decision/ppn-run
dir=tests/decision/golden
update=0
[ "${1:-}" = --update ] && update=1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
total=0 bad=0
while read -r name args; do
    case $name in '#'* | '') continue ;; esac
    total=$((total + 1))
    args=${args//PPNRUN/$ppn_run}
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
# At two ranks per node the tree has three attributes (procs, ppn, size).
# --leaves 0: C4.5's own pruning (by default tree -r cuts the tree C4.5
# grows to 25 leaves by penalty, which tree -f does not); --weights none:
# the files carry no case weights.
cases=("--collectives reduce -m 4 --leaves 0 --weights none|names-reduce|-m 4|$run"
       "--combined -m 8 -c 10 --leaves 0 --weights none|names|-m 8 -c 10|$run"
       "--collectives allgather -m 1 --leaves 0 --weights none|names-allgather|-m 1|$ppn_run"
       "--collectives bcast -m 2 --leaves 0 --weights none|names-bcast|-m 2|$ppn_run")
for c in "${cases[@]}"; do
    IFS='|' read -r opts stem fopts from <<< "$c"
    total=$((total + 1))
    # Both commands must succeed and print a tree: two failures (or two
    # empty outputs) would compare equal.
    rm -f "$tmp/$stem".*
    # shellcheck disable=SC2086
    if ! "$bin" tree -r $from $opts --emit names -o "$tmp/names" > "$tmp/r.out" 2> "$tmp/r.err"; then
        echo "FAIL tree -r $opts --emit names: $(head -1 "$tmp/r.err")"; bad=$((bad + 1)); continue
    fi
    # shellcheck disable=SC2086
    if ! "$bin" tree -f "$tmp/$stem" $fopts > "$tmp/f.out" 2> "$tmp/f.err"; then
        echo "FAIL tree -f $tmp/$stem $fopts: $(head -1 "$tmp/f.err")"; bad=$((bad + 1)); continue
    fi
    last=$(grep -c 'Decision Tree:' "$tmp/f.out")
    if [ "$last" -eq 0 ] || ! grep -q ' leaves, size ' "$tmp/r.out"; then
        echo "FAIL tree -r $opts --emit names / tree -f: no tree printed"; bad=$((bad + 1)); continue
    fi
    if ! diff <(awk -v last="$last" '/Decision Tree:/ {n++; next} /^Tree saved/ {n = 0} n == last' "$tmp/f.out" | sed '/^$/d; s/ ([0-9./]*)$//') \
              <(sed -n '2,/ leaves, size /p' "$tmp/r.out" | sed '$d' | sed '/^$/d; s/ ([0-9./]*)$//') > "$tmp/names.diff"; then
        echo "FAIL tree -r $opts --emit names: tree -f $fopts prints another tree"
        head -20 "$tmp/names.diff"; bad=$((bad + 1))
    fi
done
# Ties: at 2 processes, 4 B, chain ties linear, the optimum at 1 B; the
# optimal table names chain (measured first there), the training label
# stays linear, so the tree needs no test. With --near 5, linear is also
# the label at 16 B, 4 % behind binary.
mkdir -p "$tmp/ties"
cat > "$tmp/ties/optimal.csv" <<'CSV'
collective,procs,msg_bytes,algorithm,segment_bytes,time_us
bcast,2,1,linear,0,10
bcast,2,4,chain,0,11
bcast,2,16,binary,0,12
CSV
{
    echo "collective,procs,msg_bytes,algorithm,segment_bytes,reps,mean_us,median_us,min_us,max_us,sd_us,cost_s"
    for row in "1 linear 10" "1 chain 13" "1 binary 14" "4 chain 11" "4 linear 11" \
               "4 binary 14" "16 binary 12" "16 linear 12.48" "16 chain 20"; do
        set -- $row
        echo "bcast,2,$1,$2,0,1,$3,$3,$3,$3,0,0.001"
    done
} > "$tmp/ties/measurements.csv"
for c in "0|linear/0 linear/0 binary/0" "5|linear/0 linear/0 linear/0"; do
    IFS='|' read -r near want <<< "$c"
    "$bin" tree -r "$tmp/ties" --near "$near" -m 1 --emit names -o "$tmp/ties/t" > /dev/null
    got=$(sed 's/.*, //; s/\.$//' "$tmp/ties/t-bcast.data" | tr '\n' ' ')
    if [ "$got" != "$want " ]; then
        echo "FAIL tree -r --near $near: training labels '$got', expected '$want'"
        bad=$((bad + 1))
    fi
    total=$((total + 1))
done
# --misses lists on stderr every scored point off its optimum and changes
# nothing else: each line's penalty is its two times' ratio, the worst
# held-out line is the held-out row's max, and a tree of the whole map
# (-m 1, ties kept) misses nowhere in training that the table says is lost.
for cmd in "tree -r $run --collectives bcast -m 8 -c 5" \
           "quadtree -r $run --collective reduce --depth 2"; do
    total=$((total + 1))
    # shellcheck disable=SC2086
    "$bin" $cmd --holdout sizes -o "$tmp/m1" > "$tmp/m1.out" 2> "$tmp/m1.err"
    # shellcheck disable=SC2086
    "$bin" $cmd --holdout sizes --misses -o "$tmp/m2" > "$tmp/m2.out" 2> "$tmp/m2.err"
    sed -i "s#$tmp/m[12]#OUT#" "$tmp/m1.out" "$tmp/m2.out"
    held_max=$(awk '/held out/ && $3 == "held" { print $7 }' "$tmp/m2.out")
    if [ -s "$tmp/m1.err" ] || ! cmp -s "$tmp/m1.out" "$tmp/m2.out"; then
        echo "FAIL $cmd --misses: other output than without it"; bad=$((bad + 1))
    elif ! grep -q '^miss held-out ' "$tmp/m2.err" ||
        ! awk -v want="$held_max" '
            # times print to 0.1 us, penalties to 0.01 %
            { split($0, a, /[()]/); chose = a[2] + 0; opt = a[4] + 0; pen = $(NF - 1)
              d = pen - 100 * (chose - opt) / opt
              if (!/^miss (training|held-out) / || chose <= opt ||
                  d * d > (0.006 + 10 / opt)^2) { bad = $0 }
              if ($2 == "held-out" && pen > worst) worst = pen }
            END { if (bad != "") { print "bad line: " bad; exit 1 }
                  if (worst != want + 0) { print "worst held-out " worst ", table " want; exit 1 } }' "$tmp/m2.err"; then
        echo "FAIL $cmd --misses: $(head -3 "$tmp/m2.err")"; bad=$((bad + 1))
    fi
done
[ $update = 1 ] && echo "rewrote $total golden files in $dir; review with git diff"
echo "decision golden: $((total - bad))/$total match"
[ $bad = 0 ]
