# Sourced after lib.sh by the report tests: a small simulated run (bcast
# and reduce, the library's default timed) with every decision the report
# draws (trees, quadtree, exact decision, Open MPI rules), its HTML report in $tmp/report.html, and the cells of a figure.
. tests/sh/lib_sweep.sh
command -v xmllint >/dev/null || { echo "xmllint not found (./setup.sh installs libxml2-utils)"; exit 1; }
run=$tmp/run
write_cfg run
sweep run > "$tmp/sweep.out" 2>&1 || { cat "$tmp/sweep.out"; echo "FAIL: sweep"; exit 1; }
build/autotune compare -r "$run" > /dev/null 2>&1 || fail "compare"
build/autotune tree -r "$run" > "$tmp/tree.out" 2>&1 || fail "tree"
build/autotune quadtree -r "$run" --collective bcast --depth 2 > /dev/null 2>&1 || fail "quadtree"
build/autotune export -r "$run" --format dec -o "$run/exact.dec" || fail "export dec"
# The rules as tuned (the report times commutative operations).
build/autotune export -r "$run" --format ompi --assume-commutative -o "$run/rules.conf" 2> /dev/null || fail "export ompi"
build/autotune report -r "$run" --html "$tmp/report.html" > "$tmp/report.out" 2>&1 ||
    { cat "$tmp/report.out"; fail "report --html"; }
# FIGURE's map cells as collective,procs,msg_bytes,algorithm,segment_bytes
# (sorted), read back from the SVG.
map_cells() { # HTML COLLECTIVE
    xmllint --xpath "//*[@id='map-$2']//*[local-name()='rect'][@class='cell']" "$1" |
        sed 's/></>\n</g' |
        sed -n "s|.*data-procs=\"\([0-9]*\)\" data-msg=\"\([0-9]*\)\" data-method=\"\([^/\"]*\)/\([0-9]*\)\".*|$2,\1,\2,\3,\4|p" |
        sort
}
# The same rows of optimal.csv.
optimal_cells() { # RUN COLLECTIVE
    awk -F, -v c="$2" '$1 == c { print $1 "," $2 "," $4 "," $5 "," $6 }' "$1/optimal.csv" | sort
}
