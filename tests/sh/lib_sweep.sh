# Sourced after lib.sh by the journal and run-directory tests: a small
# exhaustive grid (30 points, 279 experiments) swept under SMPI in about a
# second, and what they check in a run directory.
command -v smpirun >/dev/null || { echo "smpirun not found (./setup.sh installs simgrid)"; exit 77; }
platform=conf/platforms/grig.xml
write_cfg() { # NAME [SEARCH [RSE]]: $tmp/NAME.cfg, swept into $tmp/NAME
    cat > "$tmp/$1.cfg" <<CFG
output        = "$tmp/$1";
collectives   = ["bcast", "reduce"];
procs         = [2, 5, 8];
message_sizes = { min = 1; max = 16384; factor = 8; };
segment_sizes = [0, 1024, 4096];
measure       = { warmup = 0; min_reps = 1; max_reps = 1; rse = ${3:-0.5}; };
search        = "${2:-exhaustive}";
CFG
}
sweep() { # NAME [autotune args]
    local name=$1; shift
    smpirun -np 8 -platform "$platform" --cfg=smpi/simulate-computation:no \
        --log=root.thres:critical build/autotune-smpi -c "$tmp/$name.cfg" "$@"
}
# What a sweep's output says it measured: experiments, not applicable and
# baseline records.
measured() { # OUT
    local new na base
    new=$(sed -n 's/.* \([0-9]*\) experiments\{0,1\} run.*/\1/p' "$1")
    na=$(sed -n 's/.*, \([0-9]*\) not applicable.*/\1/p' "$1")
    base=$(sed -n 's/.*baseline default\/0 ([^)]*): \([0-9]*\) measured.*/\1/p' "$1")
    echo $((${new:-0} + ${na:-0} + ${base:-0}))
}
# One checksum of every file below DIR, names and contents.
dir_sum() { # DIR
    (cd "$1" && find . -type f | LC_ALL=C sort | xargs -r md5sum) | md5sum
}
# A copy of run FROM as run TO, with its config.
copy_run() { # FROM TO
    rm -rf "${tmp:?}/$2"
    cp -r "$tmp/$1" "$tmp/$2"
    sed "s|$tmp/$1\"|$tmp/$2\"|" "$tmp/$1.cfg" > "$tmp/$2.cfg"
}
