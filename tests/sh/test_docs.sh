#!/usr/bin/env bash
# The examples of README.md and docs/*.md are not stale. In a ```sh block
# every line is a command (a trailing \ continues it, a # after a space
# starts a comment); in a ```console block a "$ " line is a command and the
# lines after it are what it prints, in order ("..." skips lines). Commands
# run in a scratch copy of the tree, in document order, when they are quick
# and need no real MPI job; the others (the list in check_only below, each
# with its reason) are checked instead: their autotune options against the
# command's --help, their make targets against the Makefile, their files
# against the tree. Every autotune command's options are checked, run or
# not. A command that no rule below knows fails the test.
set -u
. "$(dirname "$0")/lib.sh"

if [ ! -x build/autotune ]; then
    echo "skip: build/autotune is not built"
    exit 77
fi
has_smpi=0
command -v smpirun >/dev/null && [ -x build/autotune-smpi ] && has_smpi=1

# The scratch tree: results/ and tests/ copied (commands write below them),
# everything else linked.
work=$tmp/work
mkdir -p "$work"
for f in * .[!.]*; do
    case $f in
    results | tests | .git) ;;
    *) ln -s "$PWD/$f" "$work/$f" ;;
    esac
done
cp -r results tests "$work/"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

# kind<TAB>where<TAB>text, kind: cmd (sh), con (console command), out.
extract() {
    awk '
    function flush() { if (cmd != "") print "cmd\t" where "\t" cmd; cmd = "" }
    /^[[:space:]]*```/ {
        if (lang == "") {
            lang = $0; sub(/^[[:space:]]*```/, "", lang)
            if (lang == "") lang = "-"
        } else { flush(); lang = "" }
        next
    }
    lang == "sh" {
        line = $0; sub(/^[[:space:]]+/, "", line)
        if (cmd == "") {
            if (line == "" || line ~ /^#/) next
            where = FILENAME ":" FNR
        }
        sub(/[[:space:]]+#.*$/, "", line)
        if (line ~ /\\$/) { sub(/[[:space:]]*\\$/, " ", line); cmd = cmd line; next }
        cmd = cmd line; flush(); next
    }
    lang == "console" {
        if ($0 ~ /^\$ /) { print "con\t" FILENAME ":" FNR "\t" substr($0, 3) }
        else print "out\t" FILENAME ":" FNR "\t" $0
    }' "$@"
}

# check_only CMD: why a command is not run here, or nothing if it is run.
check_only() {
    case $1 in
    *./app* | smpicc\ *) echo "needs an MPI application (app.c)" ;;
    "make demo" | make) echo "installs packages and runs a real sweep of minutes" ;;
    "make check"*) echo "the test suite itself" ;;
    "make "*) echo "builds or benchmarks for minutes to hours" ;;
    ./setup.sh*) echo "installs packages as root" ;;
    mpirun\ *build/autotune\ *) echo "a real sweep under Open MPI" ;;
    srun\ *) echo "needs a Slurm cluster" ;;
    "mpirun --mca"* | MPIR_CVAR*) echo "needs an MPI application (./app)" ;;
    smpirun\ *conf/quick.cfg) [ "$has_smpi" -eq 1 ] || echo "no smpirun here" ;;
    smpirun\ *) echo "a simulated sweep of hours" ;;
    tests/bench/* | *=*tests/bench/*) echo "a benchmark of minutes to hours" ;;
    *results/quick*) [ "$has_smpi" -eq 1 ] || echo "reads the quick sweep (no smpirun here)" ;;
    build/autotune* | cp\ *) ;;
    *) echo "UNKNOWN" ;;
    esac
}

# The options of one autotune invocation against its command's --help.
check_options() { # WHERE WORDS...
    local where=$1; shift
    local i=0 bin="" sub=""
    local -a w=("$@")
    while [ $i -lt ${#w[@]} ]; do
        case ${w[$i]} in
        build/autotune | build/autotune-smpi) bin=${w[$i]}; break ;;
        esac
        i=$((i + 1))
    done
    [ -n "$bin" ] || return 0
    local -a args=("${w[@]:$((i + 1))}")
    case ${args[0]:-} in
    -c | --fresh) sub="" ;;
    *) sub=${args[0]:-} ;;
    esac
    local help
    if [ -z "$sub" ]; then
        help=$(build/autotune -c x --help)
    else
        help=$(build/autotune "$sub" --help 2>&1) ||
            { fail "$where: unknown command '$sub'"; return; }
    fi
    local a
    for a in "${args[@]}"; do
        case $a in
        --help | -h) ;;
        -[a-z] | --[a-z]*)
            grep -q -- "$a\b" <<<"$help" ||
                fail "$where: $sub $a is not in '${bin} $sub --help'"
            ;;
        esac
    done
}

# Files a command names must exist (after the commands before it ran).
check_files() { # WHERE WORDS...
    local where=$1; shift
    local a
    for a in "$@"; do
        case $a in
        conf/* | results/bench-runs/* | tests/* | build/* | docs/* | *.md | ./setup.sh)
            [ -e "$work/$a" ] || [ -e "$work/$a.names" ] ||
                fail "$where: $a does not exist"
            ;;
        esac
    done
}

# Runs one command in the scratch tree; its output in $tmp/out.
run() { # WHERE CMD
    (cd "$work" && bash -c "$2") >"$tmp/out" 2>&1
    local rc=$?
    if [ $rc -ne 0 ]; then
        fail "$1: '$2' exited $rc: $(tail -n 3 "$tmp/out")"
        return 1
    fi
    echo "ran  $1: $2"
}

# The shown lines of a console block appear in the output, in order.
check_output() { # WHERE SHOWN_FILE
    awk -v where="$1" '
    NR == FNR { if ($0 != "..." && $0 != "") want[++n] = $0; next }
    k < n && $0 == want[k + 1] { k++ }
    END {
        if (k < n) { printf "%s: output lacks: %s\n", where, want[k + 1]; exit 1 }
    }' "$2" "$tmp/out" || fail "$1: shown output differs (see above)"
}

extract README.md docs/*.md >"$tmp/commands"
n_run=0 n_checked=0
shown=$tmp/shown
con_where="" con_cmd=""
finish_console() {
    [ -n "$con_cmd" ] || return 0
    if run "$con_where" "$con_cmd"; then
        check_output "$con_where" "$shown"
    fi
    con_cmd=""
}
while IFS=$'\t' read -r kind where text; do
    if [ "$kind" = out ]; then
        printf '%s\n' "$text" >>"$shown"
        continue
    fi
    finish_console
    read -r -a words <<<"$text"
    check_options "$where" "${words[@]}"
    check_files "$where" "${words[@]}"
    why=$(check_only "$text")
    if [ "$why" = UNKNOWN ]; then
        fail "$where: no rule for '$text' (tests/sh/test_docs.sh: check_only)"
    elif [ -n "$why" ]; then
        case $text in
        make\ *)
            target=${words[1]:-all}
            case $target in
            *=*) target=${words[2]:-all} ;;
            esac
            grep -q "^$target:" Makefile || fail "$where: make $target: no such target"
            ;;
        esac
        echo "skip $where ($why): $text"
        n_checked=$((n_checked + 1))
    elif [ "$kind" = con ]; then
        con_where=$where con_cmd=$text
        : >"$shown"
        n_run=$((n_run + 1))
    else
        run "$where" "$text"
        n_run=$((n_run + 1))
    fi
done <"$tmp/commands"
finish_console

# Every example config parses, and the README's cluster config exists.
[ -f conf/cluster.cfg ] || fail "conf/cluster.cfg is missing"
for cfg in conf/*.cfg; do
    build/autotune plan -c "$cfg" >/dev/null || fail "plan -c $cfg"
done
# Every command of `autotune --help` has a section in docs/usage.md.
for cmd in export compare report tree quadtree plan --list --version; do
    grep -q -- "^### .*\`$cmd" docs/usage.md || fail "docs/usage.md: no section for $cmd"
done

# Every link between the documents names a file and a heading they have
# (headings as GitHub makes anchors of them).
slugs() { sed -n 's/^#\{1,6\} //p' "$1" | tr 'A-Z' 'a-z' | tr -cd 'a-z0-9 _\n-' | tr ' ' '-'; }
for doc in README.md docs/*.md; do
    dir=$(dirname "$doc")
    grep -o '](\([a-z./]*\.md\)\?#\?[a-z0-9_-]*)' "$doc" | sed 's/^](//; s/)$//' |
        while read -r link; do
            file=${link%%#*} anchor=""
            [ "$file" != "$link" ] && anchor=${link#*#}
            target=$doc
            [ -n "$file" ] && target=$dir/$file
            if [ ! -f "$target" ]; then
                echo "FAIL: $doc: link to $link: no file $target"
            elif [ -n "$anchor" ] && ! slugs "$target" | grep -qx -- "$anchor"; then
                echo "FAIL: $doc: link to $link: no such heading in $target"
            fi
        done
done >"$tmp/links"
cat "$tmp/links"
fails=$((fails + $(grep -c '^FAIL' "$tmp/links")))

echo "$n_run commands run, $n_checked checked without running"
[ "$n_run" -gt 0 ] || fail "no command found in the documents"
[ $fails -eq 0 ] || { echo "$fails failures"; exit 1; }
echo "test_docs: ok"
