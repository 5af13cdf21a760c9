#!/usr/bin/env bash
# Calls point down (STYLE.md, issue 33.3): each folder's #includes and each
# folder's objects' undefined symbols (nm -u) reach only its own folder or
# folders below it, and no two files call each other round a circle. The
# layers, lowest first:
#   util (header-only) < store < collectives (native.c reads store's
#   algorithm numbers; record/ is the recording MPI the model runs them
#   over) < model (model/sim drives collectives/record) < decision (its
#   cuts between measured sizes follow the model's corrected times) <
#   search < report < runtime < tune (the tuner as a library) < autotune
#   (the command line).
# MPI_ and PMPI_ symbols are the MPI library's (runtime/ and
# collectives/record/ define some of them for their own builds): not
# arrows. Known exceptions, each with its issue: the links in
# cycle_exempt_links below.
# `tests/sh/test_layers.sh -v` prints the folder graph it found.
set -u
. "$(dirname "$0")/lib.sh"

layers="util store collectives model decision search report runtime tune autotune"
cycle_exempt=""
# Links left out of the circles, each with why: decision.c's builders drop
# the flattened form that flat.c builds from decision.c's nodes (one
# structure in one folder; to be broken when no one else is editing
# decision.c, issue 33.3).
cycle_exempt_links="decision/decision.c>decision/flat.c"

declare -A rank_of
i=0
for l in $layers; do
    rank_of[$l]=$i
    i=$((i + 1))
done

# ---- includes: "folder/x.h" from a file of another folder ----
for f in $(git ls-files '*.c' '*.h' 2>/dev/null ||
    find . -name '*.[ch]' -not -path './build/*' | sed 's#^\./##'); do
    from=${f%%/*}
    r_from=${rank_of[$from]:--1}
    [ "$r_from" -ge 0 ] || continue
    for h in $(sed -n 's/^#include "\([a-z_]*\)\/.*/\1/p' "$f" | sort -u); do
        [ "$h" = "$from" ] && continue
        r_to=${rank_of[$h]:--1}
        if [ "$r_to" -lt 0 ] || [ "$r_to" -gt "$r_from" ]; then
            fail "$f includes a header of $h/, above $from/"
        fi
    done
done

# ---- what the compiler read (the .d files): headers found through -I too,
# as collectives/ compiled against collectives/record/mpi.h ----
for d in $(find build/core build/obj build/model-sim build/rt -name '*.d' 2>/dev/null); do
    src=${d#build/*/}
    src=${src%.d}.c
    [ -f "$src" ] || continue
    from=${src%%/*}
    for h in $(tr ' \\' '\n\n' <"$d" | sed -n 's#^\([a-z_]*\)/.*\.h:*$#\1#p' | sort -u); do
        [ "$h" = "$from" ] && continue
        if [ "${rank_of[$h]:--1}" -gt "${rank_of[$from]:--1}" ]; then
            fail "$src (built as ${d%.d}.o) reads a header of $h/, above $from/"
        fi
    done
done

# ---- links: every object built from a source of the tree ----
objs=()
for o in $(find build/core build/obj build/model-sim build/rt -name '*.o' 2>/dev/null | sort); do
    src=${o#build/*/}
    src=${src%.o}.c
    [ -f "$src" ] && objs+=("$o")
done
if [ ${#objs[@]} -lt 100 ]; then
    echo "skip: build/ holds too few objects (make all first)"
    exit 77
fi
# "D symbol file" for every definition, "U symbol file" for every use.
for o in "${objs[@]}"; do
    src=${o#build/*/}
    src=${src%.o}.c
    nm "$o" | awk -v f="$src" '
        NF == 2 && $1 == "U" { print "U", $2, f }
        NF == 3 && $2 ~ /^[TDBRVWC]$/ { print "D", $3, f }'
done | grep -v ' P\?MPI_' | sort -u >"$tmp/syms"

# file -> file edges (one definer per symbol: the same file may be built
# more than once), then the folder check and the circles.
awk '$1 == "D" { def[$2] = $3 }
     $1 == "U" && ($2 in def) && def[$2] != $3 { print $3, def[$2], $2 }' \
    "$tmp/syms" | sort -u >"$tmp/edges"

: >"$tmp/folders"
while read -r from to sym; do
    ff=${from%%/*} ft=${to%%/*}
    [ "$ff" = "$ft" ] && continue
    echo "$ff -> $ft" >>"$tmp/folders"
    if [ "${rank_of[$ft]:--1}" -gt "${rank_of[$ff]:--1}" ]; then
        fail "$from uses $sym of $to: $ft/ is above $ff/"
    fi
done <"$tmp/edges"
[ "${1:-}" = -v ] && sort "$tmp/folders" | uniq -c

# Circles: a file that reaches itself through other files' symbols.
exempt_re="^($(echo "$cycle_exempt" | tr ' ' '|'))/"
awk '{ print $1, $2 }' "$tmp/edges" | sort -u | grep -Ev "$exempt_re" |
    awk -v re="$exempt_re" -v skip="$cycle_exempt_links" '
        BEGIN { n = split(skip, s, " "); for (i = 1; i <= n; i++) no[s[i]] }
        $2 !~ re && !(($1 ">" $2) in no)' >"$tmp/file_edges"
awk '
    { out[$1] = out[$1] " " $2; nodes[$1]; nodes[$2] }
    END {
        for (s in nodes) {
            # every file reachable from s; a circle if s is among them
            delete seen; n = 0; stack[n++] = s
            while (n > 0) {
                v = stack[--n]
                k = split(out[v], next_, " ")
                for (i = 1; i <= k; i++) {
                    w = next_[i]
                    if (w == s) { print "circle through " s; n = 0; break }
                    if (!(w in seen)) { seen[w]; stack[n++] = w }
                }
            }
        }
    }' "$tmp/file_edges" | sort -u >"$tmp/circles"
while read -r line; do
    fail "$line (files that call each other)"
done <"$tmp/circles"

[ -s "$tmp/edges" ] || fail "no symbol found in the objects"
echo "$(wc -l <"$tmp/edges") file-to-file links checked"
[ $fails -eq 0 ]
