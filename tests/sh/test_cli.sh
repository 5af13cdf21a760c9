#!/usr/bin/env bash
# The command line: every command answers --help on stdout with exit 0;
# --version; usage errors exit 2 and data errors 1; `plan` prints the grid
# and accepts message sizes past 2^32. None of this starts MPI, which
# autotune-smpi proves: started without smpirun it cannot run MPI_Init, so
# it runs only what needs no MPI, and for a sweep it says how to start one
# and exits 2 (it crashed with 139 before).
set -u
. "$(dirname "$0")/lib.sh"

bins=(build/autotune)
# Under the sanitizers autotune-smpi is built without its own entry point
# (the sanitizer runtimes need the C library's start-up, which a shared
# object started by itself does not get): it runs under smpirun only.
smpi_alone=yes
[ -z "${SANITIZE:-}" ] || smpi_alone=no
[ -x build/autotune-smpi ] && [ $smpi_alone = yes ] && bins+=(build/autotune-smpi)
run=tests/decision/run

# expect STATUS ARGS...: the exit status; --help and --version also print
# on stdout and nothing on stderr, errors print on stderr and nothing on
# stdout.
expect() {
    local want=$1; shift
    "$@" > "$tmp/out" 2> "$tmp/err"
    local rc=$?
    if [ $rc -ne "$want" ]; then
        fail "$*: exit $rc, expected $want; stderr: $(head -c 300 "$tmp/err")"
    elif [ "$want" -eq 0 ] && { [ ! -s "$tmp/out" ] || [ -s "$tmp/err" ]; }; then
        fail "$*: expected stdout only; stderr: $(head -c 300 "$tmp/err")"
    elif [ "$want" -ne 0 ] && { [ ! -s "$tmp/err" ] || [ -s "$tmp/out" ]; }; then
        fail "$*: expected stderr only; stdout: $(head -c 300 "$tmp/out")"
    else
        echo "ok   exit $rc: $*"
    fi
}

cat > "$tmp/tune.cfg" <<CFG
output        = "$tmp/run";
collectives   = ["bcast", "gather"];
procs         = [2, 3];
message_sizes = { min = 1; max = 1099511627776; factor = 1024; };
segment_sizes = [0, 1048576];
CFG
printf 'output = "%s/bad";\nprocs = [4294967297];\ncollectives = ["bcast"];\nmessage_sizes = [1];\nsegment_sizes = [0];\n' "$tmp" > "$tmp/bad.cfg"

for bin in "${bins[@]}"; do
    for cmd in "" export compare report tree quadtree plan --list --version; do
        expect 0 $bin $cmd --help
        grep -q "^usage:" "$tmp/out" || fail "$bin $cmd --help: no usage line"
    done
    expect 0 $bin -c "$tmp/tune.cfg" --fresh --help
    grep -q "^usage: mpirun -np N autotune -c tune.cfg" "$tmp/out" ||
        fail "the sweep's --help: $(cat "$tmp/out")"
    expect 0 $bin --help
    for cmd in export compare report tree quadtree plan --list --version; do
        grep -q -- "autotune $cmd" "$tmp/out" || fail "$bin --help: no $cmd"
    done
    expect 0 $bin --version
    grep -q -E '^autotune [0-9]+\.[0-9]+' "$tmp/out" || fail "--version: $(cat "$tmp/out")"
    expect 0 $bin --list

    # usage errors
    expect 2 $bin frobnicate
    expect 2 $bin export -r $run
    expect 2 $bin export -r $run --format csv --bogus
    expect 2 $bin export -r $run --format nonesuch
    expect 2 $bin compare --bogus
    expect 2 $bin report
    expect 2 $bin tree -r $run --bogus 1
    expect 2 $bin tree -f
    expect 2 $bin tree -m 2
    expect 2 $bin quadtree -r $run --depth 3
    expect 2 $bin quadtree -r $run --collective bcast --between near
    expect 2 $bin plan
    expect 2 $bin plan -c "$tmp/tune.cfg" --bogus
    # data errors
    expect 1 $bin export -r /nonexistent --format csv
    expect 1 $bin compare -r /nonexistent
    expect 1 $bin report -r /nonexistent
    expect 1 $bin tree -r /nonexistent
    expect 1 $bin tree -f /nonexistent/stem
    expect 1 $bin quadtree -r /nonexistent --collective bcast --depth 2
    expect 1 $bin plan -c /nonexistent.cfg
    expect 1 $bin plan -c "$tmp/bad.cfg"
    grep -q "bad.cfg:2: procs: 4294967297 is not a number of processes" "$tmp/err" ||
        fail "plan bad.cfg: $(cat "$tmp/err")"

    # the grid, with sizes past 2^32 (up to 2^40) whole
    expect 0 $bin plan -c "$tmp/tune.cfg"
    for want in "^collectives: +bcast \(9 algorithms\), gather \(5 algorithms\)" \
                "^procs: +2, 3$" \
                "^message sizes: +1, 1024, 1048576, 1073741824, 1099511627776 bytes \(5 sizes\)" \
                "^segment sizes: +0, 1048576 bytes" \
                "^points: +20 \(bcast 10, gather 10\)" \
                "^experiments: +[0-9]+ for an exhaustive search \(bcast [0-9]+, gather [0-9]+\), and 20 of the library default" \
                "run fewer" \
                "^estimate: +none: $tmp/run/journal does not exist"; do
        grep -q -E "$want" "$tmp/out" || { fail "plan: no /$want/ in:"; cat "$tmp/out"; }
    done
    [ -e "$tmp/run" ] && fail "plan created the run directory"
done

# A run directory without tables: one line naming the file.
for cmd in "report -r $tmp/nope" "export -r $tmp/nope --format csv -o $tmp/x.csv"; do
    # shellcheck disable=SC2086
    expect 1 build/autotune $cmd
    [ "$(wc -l < "$tmp/err")" -eq 1 ] && grep -qF "$tmp/nope/optimal.csv: No such file" "$tmp/err" ||
        fail "autotune $cmd: $(cat "$tmp/err")"
done

# An output that cannot be written: the line names the user's path, not
# the temporary file it is written to first (export notes first that the
# fixture has no journal).
for c in "report -r $run --html|x.html" "export -r $run --format csv -o|x.csv"; do
    IFS='|' read -r args name <<< "$c"
    # shellcheck disable=SC2086
    expect 1 build/autotune $args "$tmp/nodir/$name"
    [ "$(tail -1 "$tmp/err")" = "$tmp/nodir/$name: cannot write: No such file or directory" ] ||
        fail "autotune $args $tmp/nodir/$name: $(cat "$tmp/err")"
done

# profile's arguments: what is wrong, named.
for c in "|FILE.prof is required" "x.prof -n 0|-n: '0' is not a whole number in 1..1000000000" \
         "x.prof -r|-r needs a value" "x.prof y.prof|unexpected argument 'y.prof'"; do
    IFS='|' read -r args want <<< "$c"
    # shellcheck disable=SC2086
    expect 2 build/autotune profile $args
    grep -qF -- "autotune profile: $want" "$tmp/err" || fail "autotune profile $args: $(head -1 "$tmp/err")"
done

# A sweep's arguments: what is wrong, named (a singleton MPI run).
for c in "-c|-c needs a value (tune.cfg)" "-c $tmp/tune.cfg --bogus|unknown option '--bogus'" \
         "|-c tune.cfg is required"; do
    IFS='|' read -r args want <<< "$c"
    # shellcheck disable=SC2086
    expect 2 build/autotune $args
    grep -qF -- "autotune: $want" "$tmp/err" || fail "autotune $args: $(head -1 "$tmp/err")"
done

if [ -x build/autotune-smpi ] && [ $smpi_alone = yes ]; then
    # A sweep needs smpirun: one line saying how, exit 2.
    for args in "-c $tmp/tune.cfg" ""; do
        build/autotune-smpi $args > "$tmp/out" 2> "$tmp/err"
        rc=$?
        if [ $rc -ne 2 ] || ! grep -q "smpirun -np N -platform .* build/autotune-smpi -c tune.cfg" "$tmp/err"; then
            fail "autotune-smpi $args without smpirun: exit $rc: $(cat "$tmp/err")"
        else
            echo "ok   exit 2: autotune-smpi $args: $(cat "$tmp/err")"
        fi
    done
fi
echo "$fails failure(s)"
[ $fails -eq 0 ]
