#!/usr/bin/env bash
# `autotune report --html` on a small simulated run: well-formed XML (the
# page and each SVG alone), nothing fetched, the expected figures, the
# decision map's cells equal to optimal.csv; `--map` in the terminal
# (colour only on a tty); bad input refused with one line, nothing written.
set -u
. "$(dirname "$0")/lib.sh"
. tests/sh/lib_report.sh
html=$tmp/report.html

xmllint --noout "$html" || fail "the report is not well-formed XML"
n_svg=$(xmllint --xpath "count(//*[local-name()='svg'])" "$html")
[ "$n_svg" -ge 10 ] || fail "only $n_svg figures"
for i in $(seq 1 "$n_svg"); do
    xmllint --xpath "(//*[local-name()='svg'])[$i]" "$html" > "$tmp/fig.svg"
    xmllint --noout "$tmp/fig.svg" || fail "figure $i alone is not well-formed"
    grep -q '<title>' "$tmp/fig.svg" || fail "figure $i has no title"
done
grep -Eiq '<script|<link|<img|<iframe|src=|@import|url\([^#]' "$html" &&
    fail "the report fetches something: $(grep -Eio '<script|<link|<img|src=[^ ]*|@import|url\([^#][^)]*' "$html" | head -3)"
for id in map-bcast map-reduce speedup-bcast speedup-reduce penalty-bcast-tree_dec \
    penalty-reduce-tree_dec penalty-bcast-quadtree-bcast_dec penalty-bcast-exact_dec \
    penalty-bcast-rules_conf penalty-reduce-rules_conf \
    strategy-cost strategy-penalty settings journal; do
    grep -q "id=\"$id\"" "$html" || fail "no figure or table '$id'"
done
grep -q 'id="landscape-bcast-' "$html" || fail "no bcast landscape"
# Chosen automatically, never at 2 processes where the grid has more:
# there every tree algorithm sends the same one message.
build/autotune report -r tests/decision/run --html "$tmp/auto.html" > /dev/null || fail "report of the fixture run"
for f in "$html" "$tmp/auto.html"; do
    ids=$(grep -o 'id="landscape-[a-z]*-[0-9]*-' "$f" | tr '\n' ' ')
    [ -n "$ids" ] || fail "$f: no landscape"
    case $ids in *-2-*) fail "$f: a landscape at 2 processes: $ids" ;; esac
done
grep -q 'id="penalty-reduce-quadtree-bcast_dec"' "$html" && fail "the bcast quadtree drawn for reduce"
for c in bcast reduce; do
    map_cells "$html" $c > "$tmp/map.csv"
    optimal_cells "$run" $c > "$tmp/opt.csv"
    [ -s "$tmp/opt.csv" ] || fail "no $c rows in optimal.csv"
    cmp -s "$tmp/map.csv" "$tmp/opt.csv" ||
        fail "$c map cells differ from optimal.csv: $(diff "$tmp/opt.csv" "$tmp/map.csv" | head -5)"
done
# The exact decision has no penalty anywhere; the journal's counts are
# the journal's.
grep -A3 'exact.dec</a>' "$html" | head -1 | grep -q '<td class="n">0.00</td><td class="n">0.00</td><td class="n">0.00</td></tr>' ||
    fail "exact.dec's penalties are not all 0: $(grep 'exact.dec</a>' "$html" | head -1)"
# Open MPI applying the exported rules chooses the optimum wherever it
# can express it (elsewhere its fixed decision, default/0).
awk -F, '$5 != "default"' "$run/optimal.csv" | grep -q . || fail "no tuned optimum"
grep 'rules.conf</a>' "$html" | grep -q '<td class="n">0.00</td><td class="n">0.00</td></tr>' ||
    fail "the Open MPI rules lose somewhere: $(grep 'rules.conf</a>' "$html" | head -1)"
# Each collective's decision leaves as tree -r counted them (its tree's,
# and the leaves of third methods between training sizes).
for c in bcast reduce; do
    want=$(build/autotune tree -r "$run" --collectives $c -o "$tmp/one" |
        sed -n 's/^c45: \([0-9]*\) leaves.*/\1/p')
    grep "href=\"#penalty-$c-tree_dec\"" "$html" | grep -q "<td>c45</td><td class=\"n\">$want</td>" ||
        fail "$c tree.dec: not the $want leaves tree -r built"
done
records=$(records "$run/journal")
grep -q "<tr><td>measurements</td><td class=\"n\">$records</td>" "$html" || fail "journal count is not $records"

# --points picks the landscapes.
build/autotune report -r "$run" --html "$tmp/p.html" --points 5:4K,8:512 > /dev/null || fail "--points"
for id in landscape-bcast-5-4096 landscape-reduce-5-4096 landscape-bcast-8-512; do
    grep -q "id=\"$id\"" "$tmp/p.html" || fail "--points: no $id"
done
[ "$(grep -c 'class="landscape"' "$tmp/p.html")" -eq 4 ] || fail "--points: not 4 landscapes"

# A point without an optimum is drawn as not measured, in both maps.
cp -r "$run" "$tmp/gap"
grep -v '^bcast,5,1,512,' "$run/optimal.csv" > "$tmp/gap/optimal.csv"
build/autotune report -r "$tmp/gap" --html "$tmp/gap.html" > /dev/null || fail "report of a run with a gap"
xmllint --xpath "//*[@id='map-bcast']//*[local-name()='rect'][@class='cell missing']" "$tmp/gap.html" 2> /dev/null |
    grep -q 'data-procs="5" data-msg="512"' || fail "the missing point is not drawn as not measured"
[ "$(map_cells "$tmp/gap.html" bcast | wc -l)" -eq $(($(optimal_cells "$run" bcast | wc -l) - 1)) ] ||
    fail "the map with a gap has the wrong number of cells"
build/autotune report -r "$tmp/gap" --map bcast | awk '$1 == 5 { print $5 }' | grep -qx '\.' ||
    fail "--map does not show the missing point as '.'"

# A model's predictions (here every measured time plus 10 %): their error
# and the penalty of the method they would pick (none: the order is kept).
awk -F, -v OFS=, 'NR == 1 { print "collective,procs,ppn,msg_bytes,algorithm,segment_bytes,predicted_us"; next }
    { print $1, $2, $3, $4, $5, $6, $8 * 1.1 }' "$run/measurements.csv" > "$tmp/gap/predicted.csv"
cp "$run/optimal.csv" "$tmp/gap/"
build/autotune report -r "$tmp/gap" --html "$tmp/model.html" > /dev/null || fail "report with predicted.csv"
grep -q 'id="model-bcast"' "$tmp/model.html" || fail "no model figure"
grep -A2 '<table class="model">' "$tmp/model.html" | grep -q '<td class="n">10.00</td><td class="n">10.00</td><td class="n">[0-9]*</td><td class="n">0.00</td><td class="n">0.00</td>' ||
    fail "model errors are not 10 % and its choices not the optimum: $(grep -A2 '<table class="model">' "$tmp/model.html" | tail -1)"
xmllint --noout "$tmp/model.html" || fail "the report with a model is not well-formed"

# --map: one letter per algorithm and the segment size, as optimal.csv says.
build/autotune report -r "$run" --map bcast > "$tmp/map.txt" || fail "--map"
grep -q $'\033' "$tmp/map.txt" && fail "--map wrote colour codes to a file"
awk -F, '$1 == "bcast" { print $4 }' "$run/optimal.csv" | sort -n -u > "$tmp/sizes"
awk -v sizes="$tmp/sizes" '
    function fmt(b,  u, i) { split(",K,M,G", u, ","); i = 1
        while (b >= 1024 && b % 1024 == 0) { b /= 1024; i++ }
        return b u[i] }
    BEGIN { n = 0; while ((getline s < sizes) > 0) size[++n] = s }
    /^algorithms:/ { legend = 1; next }
    legend { for (i = 1; i < NF; i += 2) alg[$i] = $(i + 1); next }
    $1 == "procs" { table = 1; next }
    table && NF > 1 { for (i = 2; i <= NF; i++) cell[$1 "," size[i - 1]] = $i }
    END { for (k in cell) { c = cell[k]; seg = substr(c, 2); a = alg[substr(c, 1, 1)]
              if (seg == "") seg = 0
              print "bcast," k "," a "," seg } }' "$tmp/map.txt" | sort > "$tmp/term.csv"
awk -F, -v OFS=, '$1 == "bcast" { s = $6; u = ""
        while (s >= 1024 && s % 1024 == 0) { s /= 1024; u = u == "" ? "K" : "M" }
        print $1, $2, $4, $5, (s == 0 ? 0 : s u) }' "$run/optimal.csv" | sort > "$tmp/opt-term.csv"
cmp -s "$tmp/term.csv" "$tmp/opt-term.csv" ||
    fail "--map differs from optimal.csv: $(diff "$tmp/opt-term.csv" "$tmp/term.csv" | head -5)"
if command -v script >/dev/null; then
    script -qec "build/autotune report -r $run --map bcast" /dev/null > "$tmp/tty.txt"
    grep -q $'\033\[48;5;' "$tmp/tty.txt" || fail "--map on a terminal has no colour"
fi

# Two runs that timed different algorithms, in a different order of
# optimum: each algorithm has one letter, its place in bcast's table says
# which (binomial is I even where binary is not timed), in --map and in
# the HTML legend alike.
legend() { # MAP: "name letter" per algorithm of the legend
    awk '/^algorithms:/ { legend = 1; next }
         legend && /^  / { for (i = 1; i < NF; i += 2) print $(i + 1), $i }' "$1" | sort
}
for sub in sub1 sub2; do
    write_cfg $sub
    sed -i 's/^collectives .*/collectives   = ["bcast"];/' "$tmp/$sub.cfg"
done
echo 'algorithms = { bcast = ["scatter_allgather_ring", "binomial", "linear"]; };' >> "$tmp/sub1.cfg"
echo 'algorithms = { bcast = ["linear", "binary", "split_binary", "binomial",
    "scatter_allgather", "scatter_allgather_ring"]; };' >> "$tmp/sub2.cfg"
for sub in sub1 sub2; do
    sweep $sub > "$tmp/$sub.out" 2>&1 || { cat "$tmp/$sub.out"; fail "sweep $sub"; }
    build/autotune report -r "$tmp/$sub" --map bcast --html "$tmp/$sub.html" > "$tmp/$sub.map" ||
        fail "--map of $sub"
    legend "$tmp/$sub.map" > "$tmp/$sub.legend"
    while read -r name letter; do
        grep -q ">$letter  $name<" "$tmp/$sub.html" || fail "$sub: $name is not $letter in the HTML legend"
    done < "$tmp/$sub.legend"
done
[ "$(wc -l < "$tmp/sub1.legend")" -ge 3 ] || fail "sub1's legend: $(cat "$tmp/sub1.legend")"
join "$tmp/sub1.legend" "$tmp/sub2.legend" > "$tmp/both.legend"
[ "$(wc -l < "$tmp/both.legend")" -eq "$(wc -l < "$tmp/sub1.legend")" ] ||
    fail "sub2 lacks one of sub1's algorithms: $(cat "$tmp/sub1.legend")"
differ=$(awk '$2 != $3 { print $1 " is " $2 " in one run, " $3 " in the other" }' "$tmp/both.legend")
[ -z "$differ" ] || fail "$differ"
for want in "binomial I" "linear L" "scatter_allgather_ring T"; do
    grep -qx "$want" "$tmp/sub1.legend" || fail "sub1: not $want: $(cat "$tmp/sub1.legend")"
done

# Bad input: one line naming it, a non-zero exit, no report written.
expect() { # STATUS 'message part' args...
    local want_rc=$1 want=$2; shift 2
    rm -f "$tmp/bad.html"
    build/autotune report "$@" > "$tmp/out" 2> "$tmp/err"
    local rc=$?
    [ "$rc" -eq "$want_rc" ] || fail "report $*: exit $rc, not $want_rc"
    grep -qF -- "$want" "$tmp/err" || fail "report $*: no '$want' in: $(cat "$tmp/err")"
    [ -e "$tmp/bad.html" ] && fail "report $*: wrote the report"
}
expect 1 "no point of collective 'allreduce'" -r "$run" --map allreduce
expect 2 "--points: '16' is not PROCS:BYTES" -r "$run" --html "$tmp/bad.html" --points 16
expect 2 "--points goes with --html" -r "$run" --points 2:1
expect 2 "unknown option '--png'" -r "$run" --html "$tmp/bad.html" --png x
expect 2 "--html needs a value" -r "$run" --html
expect 1 "/nonexistent/optimal.csv" -r /nonexistent --html "$tmp/bad.html"
cp -r "$run" "$tmp/damaged"
sed -i '3s/.*/bogus line/' "$tmp/damaged/tree.dec"
expect 1 "$tmp/damaged/tree.dec:3:" -r "$tmp/damaged" --html "$tmp/bad.html"
printf 'strategy,speedup\nmgd\n' > "$tmp/damaged/compare.csv"
rm "$tmp/damaged/tree.dec"
expect 1 "$tmp/damaged/compare.csv:2: 1 fields where the header has 2" -r "$tmp/damaged" --html "$tmp/bad.html"
printf 'collective,procs,msg_bytes,algorithm,segment_bytes,predicted_us\nbcast,2,1,linear,0,-3\n' > "$tmp/damaged/predicted.csv"
rm "$tmp/damaged/compare.csv"
expect 1 "$tmp/damaged/predicted.csv:2: malformed row" -r "$tmp/damaged" --html "$tmp/bad.html"
rm "$tmp/damaged/predicted.csv"
printf '1\n7\n1\n2\n1\n5 0 0 0\n' > "$tmp/damaged/rules.conf"
expect 1 "$tmp/damaged/rules.conf" -r "$tmp/damaged" --html "$tmp/bad.html"
# An existing report is replaced whole or not at all.
echo "old" > "$tmp/bad.html"
build/autotune report -r "$tmp/damaged" --html "$tmp/bad.html" 2> /dev/null && fail "damaged run reported"
[ "$(cat "$tmp/bad.html")" = old ] || fail "a failed report touched the old file"

# Tables older than the journal (a time in measurements.csv that the
# journal's record does not say): every offline command names the row and
# refuses; resuming the sweep writes them again from the journal.
mkdir -p "$tmp/stale"
cp "$run/journal" "$run/optimal.csv" "$tmp/stale/"
awk -F, -v OFS=, 'NR == 3 { $8 = $8 + 1 } { print }' "$run/measurements.csv" > "$tmp/stale/measurements.csv"
row=$(sed -n 3p "$tmp/stale/measurements.csv" | cut -d, -f1-6 | awk -F, '{ print $1 " P=" $2 " ppn=" $3 " m=" $4 " " $5 "/" $6 }')
for cmd in "tree -r $tmp/stale" "quadtree -r $tmp/stale --collective bcast" \
    "export -r $tmp/stale --format csv -o $tmp/stale.csv" "report -r $tmp/stale --html $tmp/stale.html"; do
    # shellcheck disable=SC2086
    build/autotune $cmd > "$tmp/stale.out" 2>&1 && fail "autotune $cmd accepted stale tables"
    grep -q "^$tmp/stale/measurements.csv:3: $row: .*, but the journal says .*: the tables are older than the journal" "$tmp/stale.out" ||
        fail "autotune $cmd: $(head -2 "$tmp/stale.out")"
done
[ -e "$tmp/stale.csv" ] || [ -e "$tmp/stale.html" ] && fail "written from stale tables"
sed "s|$run\"|$tmp/stale\"|" "$tmp/run.cfg" > "$tmp/stale.cfg"
sweep stale > "$tmp/resume.out" 2>&1 || { cat "$tmp/resume.out"; fail "resume"; }
cmp -s "$run/measurements.csv" "$tmp/stale/measurements.csv" || fail "the resume did not write the tables again"
build/autotune tree -r "$tmp/stale" > /dev/null 2>&1 || fail "tree after the resume"

echo "$fails failure(s)"
[ "$fails" -eq 0 ]
