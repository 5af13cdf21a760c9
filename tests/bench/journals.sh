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

# Sweeps of ranks per node (ppn_tuned.sh, node.sh): a hostfile, a config,
# one sweep with its command and wall time, SMPI's algorithm forced as a
# reference. They read $runs (the run directories' parent), $log (where
# the commands go), $msgs and $segs (the config's message and segment
# sizes).

# ppn_hosts PREFIX PROCS PPNS: a hostfile whose first nodes can hold every
# layout: node k gets the largest ranks per node p with k < PROCS / p.
ppn_hosts() {
    local prefix=$1 procs=$2 ppns=$3 k p n
    for ((k = 0; k < procs; k++)); do
        n=0
        for p in ${ppns//,/ }; do
            [ $((k < procs / p)) = 0 ] || [ "$p" -le "$n" ] || n=$p
        done
        [ "$n" = 0 ] || echo "$prefix$k:$n"
    done
}

# ppn_sweep NAME PLATFORM HOSTS CFG [CFG-FLAG]: one sweep (skipped with
# BENCH_SWEEP=no), its command and wall time into $log. A sweep with a
# forced SMPI algorithm (CFG-FLAG) may abort inside SimGrid: said in the
# log, and the bench goes on without that reference.
ppn_sweep() {
    local name=$1 plat=$2 hostfile=$3 cfg=$4 flag=${5:-} np cmd start
    np=$(awk -F: '{ n += $2 } END { print n }' "$hostfile")
    cmd="smpirun -np $np -hostfile $hostfile -platform conf/platforms/$plat.xml --cfg=smpi/simulate-computation:no --cfg=smpi/coll-selector:ompi $flag --log=root.thres:critical build/autotune-smpi -c $cfg"
    if [ "${BENCH_SWEEP:-yes}" != no ]; then
        echo "$cmd"
        start=$SECONDS
        if nice -n 19 $cmd > "$runs/$name.out" 2> "$runs/$name.err"; then
            # a resume that measured nothing keeps the sweep's own time
            grep -q ' 0 experiments run' "$runs/$name.out" && [ -s "$runs/$name.wall" ] ||
                echo "$((SECONDS - start))" > "$runs/$name.wall"
        elif [ -n "$flag" ]; then
            echo "aborted: $(grep -m1 CRITICAL "$runs/$name.err" | sed 's/.*CRITICAL\] //')" > "$runs/$name.wall"
        else
            cat "$runs/$name.err" >&2
            exit 1
        fi
        rm -f "$runs/$name.err" "$runs/$name.out"
    fi
    local wall
    wall=$(cat "$runs/$name.wall" 2>/dev/null || echo '?')
    case $wall in aborted*) ;; *) wall="$wall s wall when swept" ;; esac
    echo "# $name: $cmd ($wall)" >> "$log"
}

# ppn_config CFG RUN COLLECTIVES PROCS PPNS [LINE]: an exhaustive sweep's
# config, one repetition (deterministic), the library's default timed at
# every point; LINE (a key, such as `algorithms`) added as it is.
ppn_config() {
    cat > "$1" <<CFG
output         = "$2";
collectives    = $3;
procs          = [$4];
ranks_per_node = [$5];
message_sizes  = $msgs;
segment_sizes  = $segs;
search         = "exhaustive";
measure        = { warmup = 0; min_reps = 1; max_reps = 1; rse = 0.5; };
baseline       = true;
${6:-}
CFG
}

# ppn_reference NAME PLATFORM HOSTS COLL ALG PROCS PPNS OPTIMAL: SMPI's
# algorithm ALG of COLL forced for a whole sweep (--cfg=smpi/COLL:ALG),
# timed as the default there (the run NAME-COLL-ALG), against the times of
# OPTIMAL (an optimal.csv) at the same points: rows "PLATFORM,PPN,COLL,
# BYTES,ALG,REFERENCE_US,OPTIMAL_US,RATIO" on stdout (none if it aborted).
ppn_reference() {
    local name=$1 plat=$2 hostfile=$3 coll=$4 alg=$5 procs=$6 ppns=$7 optimal=$8 ours
    local rname=$name-$coll-$alg
    # one algorithm of ours beside the default (the sweep needs one)
    case $coll in allreduce) ours=recursive_doubling ;; allgather) ours=ring ;; *) ours=linear ;; esac
    ppn_config "$runs/$rname.cfg" "$runs/$rname" "[\"$coll\"]" "$procs" "$ppns" \
        "algorithms     = { $coll = [\"$ours\"]; };"
    ppn_sweep "$rname" "$plat" "$hostfile" "$runs/$rname.cfg" "--cfg=smpi/$coll:$alg" >&2
    awk -F, -v plat="$plat" -v ref="$alg" -v coll="$coll" '
        FNR == 1 { file++; next }
        file == 1 && $1 == coll { best[$3 "," $4] = $7 }
        file == 2 && $5 == "default" && (($3 "," $4) in best) {
            printf "%s,%s,%s,%s,%s,%.3f,%.3f,%.4f\n", plat, $3, coll, $4, ref, $8, best[$3 "," $4], $8 / best[$3 "," $4] }' \
        "$optimal" "$runs/$rname/measurements.csv" 2> /dev/null || true
}
