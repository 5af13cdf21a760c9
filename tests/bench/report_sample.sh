#!/usr/bin/env bash
# The sample HTML reports committed under results/report/ (make
# report-sample): the wide Grig search run (bcast and reduce, 14 procs up
# to 64, 1 B..1 MiB) and the eight collectives' default-against-tuned Grig
# run, each from a copy of the committed run with its strategies replayed
# (compare), its C4.5 trees, depth-3 quadtrees, exact decision and Open
# MPI rules; and a PNG of the wide run's first decision map (headless
# chromium) for the README. Writes results/report/commands.txt with every command.
set -eu -o pipefail
cd "$(dirname "$0")/../.."
out=results/report
work=build/report-sample
mkdir -p "$out"
rm -rf "$work"
mkdir -p "$work"
log=$out/commands.txt
echo "# make report-sample ($(date -u +%F)): the commands that wrote results/report/" > "$log"
run() { echo "$*" >> "$log"; "$@"; }
for name in search-grig-wide default-grig-all; do
    cp -r "results/bench-runs/$name" "$work/$name"
    echo "cp -r results/bench-runs/$name $work/$name" >> "$log"
    run build/autotune compare -r "$work/$name" > /dev/null
    run build/autotune tree -r "$work/$name" > /dev/null
    for c in $(cut -d, -f1 "$work/$name/optimal.csv" | sed 1d | uniq); do
        run build/autotune quadtree -r "$work/$name" --collective "$c" --depth 3 > /dev/null
    done
    run build/autotune export -r "$work/$name" --format dec -o "$work/$name/exact.dec"
    run build/autotune export -r "$work/$name" --format ompi -o "$work/$name/rules.conf" 2> /dev/null
    run build/autotune report -r "$work/$name" --html "$out/$name.html"
done
# The first decision map alone, as an SVG file, then its screenshot.
xmllint --xpath "(//*[local-name()='figure'][@class='decision-map'])[1]/*[local-name()='svg']" \
    "$out/search-grig-wide.html" > "$work/map.svg"
size=$(sed -n '1s/.* width="\([0-9]*\)" height="\([0-9]*\)".*/\1,\2/p' "$work/map.svg")
echo "xmllint --xpath '(//*[local-name()=\"figure\"][@class=\"decision-map\"])[1]/*[local-name()=\"svg\"]' $out/search-grig-wide.html > $work/map.svg" >> "$log"
run chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --user-data-dir="$PWD/$work/profile" \
    --window-size="$size" --screenshot="$PWD/$out/search-grig-wide-map.png" "file://$PWD/$work/map.svg" 2> /dev/null
ls -l "$out"
