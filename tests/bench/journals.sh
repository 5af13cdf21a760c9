# Sourced by the benchmarks: the config and the command of a benchmark's
# simulated sweep, and journals of one grid swept in parallel (one
# collective or procs range each) merged into one.

# cluster_prefix PLATFORM: the host name prefix of conf/platforms/PLATFORM.xml's
# <cluster> (its hosts are PREFIX0, PREFIX1, ...), for hostfiles of "host:N"
# lines; fails, saying so, when it has none.
cluster_prefix() {
    local prefix
    prefix=$(sed -n 's/.*<cluster .*prefix="\([^"]*\)".*/\1/p' "conf/platforms/$1.xml")
    [ -n "$prefix" ] || { echo "$1.xml: no <cluster prefix=...>" >&2; return 1; }
    echo "$prefix"
}

# smpi_run NP PLATFORM PROGRAM ARGS...: PROGRAM on NP ranks of
# conf/platforms/PLATFORM.xml as the runtime benchmarks run every program:
# the library's default collectives those of SMPI's Open MPI selector, or
# of the selector $SMPI_SELECTOR names; on the hostfile $SMPI_HOSTS when
# set.
smpi_run() {
    local np=$1 platform=$2
    shift 2
    nice -n 10 smpirun -np "$np" ${SMPI_HOSTS:+-hostfile "$SMPI_HOSTS"} \
        -platform "conf/platforms/$platform.xml" --cfg=smpi/simulate-computation:no \
        --cfg=smpi/coll-selector:"${SMPI_SELECTOR:-ompi}" --log=root.thres:critical "$@"
}

# sweep_cfg CFG RUN COLLECTIVES PROCS MESSAGE_SIZES [SEGMENTS [SEARCH
# [LINE]]]: writes into CFG the config of a simulated sweep into RUN: one
# repetition (the simulation is deterministic), no baseline; the long
# segment list and exhaustive search unless given; LINE (a key, such as
# `algorithms`) added as it is.
sweep_cfg() {
    cat > "$1" <<CFG
output        = "$2";
collectives   = $3;
procs         = $4;
message_sizes = $5;
segment_sizes = ${6:-[0, 512, 1024, 2048, 4096, 8192, 16384, 32768, 65536]};
search        = "${7:-exhaustive}";
measure       = { warmup = 0; min_reps = 1; max_reps = 1; rse = 0.5; };
baseline      = false;
${8:-}
CFG
}

# run_tables NAME DIR: the tables (measurements.csv, optimal.csv) of the
# committed generated-platform run results/bench-runs/NAME (journal and
# config) written into DIR by a sweep resumed on a copy of its journal on
# its platform, conf/platforms/FAMILY/NAME.xml (nothing is measured);
# again only when the journal is newer than DIR's tables.
run_tables() {
    local name=$1 dir=$2 journal=results/bench-runs/$1/journal
    local xml=conf/platforms/${1%-*}/$1.xml nodes
    if [ ! -s "$dir/optimal.csv" ] || [ "$journal" -nt "$dir/optimal.csv" ]; then
        rm -rf "$dir" && mkdir -p "$dir"
        cp "$journal" "$dir/journal"
        sed "s#^output *=.*#output = \"$dir\";#" "results/bench-runs/$name.cfg" > "$dir.cfg"
        nodes=$(sed -n 's/.*radical="0-\([0-9]*\)".*/\1/p' "$xml")
        BENCH_SWEEP=yes bench_sweep $((nodes + 1)) "$xml" "$dir.cfg" > /dev/null
    fi
}

# bench_sweep NP PLATFORM CFG: the simulated sweep of CFG on NP ranks of
# PLATFORM, printed then run, unless BENCH_SWEEP=no (replay what is swept).
# Sets $sweep to the command, for the figures' header.
bench_sweep() {
    sweep="smpirun -np $1 -platform $2 --cfg=smpi/simulate-computation:no --log=root.thres:critical build/autotune-smpi -c $3"
    if [ "${BENCH_SWEEP:-yes}" != no ]; then
        echo "$sweep"
        nice -n 10 $sweep
    fi
}

# journal_merge DEST SRC...: appends to DEST (created from the first SRC
# when absent) every record of each SRC that DEST lacks. Complete lines
# only (each ends in its checksum): a sweep may be writing the last one.
# All hold the same settings line; records are keyed, in any order.
journal_merge() {
    local dest=$1 src
    shift
    for src in "$@"; do
        [ -f "$src" ] || continue
        if [ ! -s "$dest" ]; then
            grep -a '\*[0-9a-f]\{8\}$' "$src" > "$dest"
        else
            grep -a '\*[0-9a-f]\{8\}$' "$src" | grep -v -x -F -f "$dest" |
                grep -v '^autotune-journal\|^settings' >> "$dest" || true
        fi
    done
}
