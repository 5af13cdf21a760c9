#!/usr/bin/env bash
# `make fuzz`: runs each parser's libFuzzer harness (build/fuzz/fuzz_<parser>)
# for FUZZ_SECONDS, one after the other, from the real files in
# tests/fuzz/seeds/<parser>/ and what earlier runs found in
# tests/fuzz/corpus/<parser>/; then minimises the latter (what the seeds do
# not already reach) and writes the figures to results/bench/fuzz.txt.
# Crashes and hangs are kept in build/fuzz/work/<parser>/artifacts/ (fork
# mode goes on past them).
set -eu
cd "$(dirname "$0")/../.."
export FUZZ_SKIP_OPEN=${FUZZ_SKIP_OPEN:-1}
seconds=${FUZZ_SECONDS:-600}
out=${FUZZ_OUT:-results/bench/fuzz.txt}
work=build/fuzz/work
[ $# -gt 0 ] || set -- config journal c45
# The harnesses rewrite a file per input and the journal fsyncs: on tmpfs
# that costs nothing (5x the executions per second of a disk).
if [ -z "${TMPDIR:-}" ] && [ -d /dev/shm ] && [ -w /dev/shm ]; then
    export TMPDIR=/dev/shm
fi
export LSAN_OPTIONS="suppressions=$PWD/tests/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"

max_len() {
    case $1 in
    c45) echo 8192 ;;
    *) echo 4096 ;;
    esac
}

files_bytes() {
    local n bytes
    n=$(find "$1" -type f | wc -l)
    bytes=$(find "$1" -type f -printf '%s\n' | awk '{s += $1} END {print s + 0}')
    echo "$n files, $bytes bytes"
}

mkdir -p "$(dirname "$out")"
{
    echo "# make fuzz: libFuzzer (clang -fsanitize=fuzzer,address,undefined),"
    echo "# $seconds s per parser, one at a time, on $(nproc) cores"
    echo "# shared with other work; tests/fuzz/run.sh wrote this."
    echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "commit: $(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
    echo "compiler: $(${FUZZ_CC:-clang} --version | head -n 1)"
    echo "FUZZ_SKIP_OPEN=$FUZZ_SKIP_OPEN (1: the oracles of bugs reported open are skipped)"
} >"$out.tmp"

for p in "$@"; do
    bin=build/fuzz/fuzz_$p
    corpus=tests/fuzz/corpus/$p
    seeds=tests/fuzz/seeds/$p
    dir=$work/$p
    rm -rf "$dir"
    mkdir -p "$dir/corpus" "$dir/artifacts" "$dir/min" "$corpus"
    cp "$seeds"/* "$corpus"/* "$dir/corpus/" 2>/dev/null || true
    before=$(files_bytes "$corpus")
    cmd="$bin -fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1"
    cmd="$cmd -max_total_time=$seconds -timeout=10 -rss_limit_mb=2048"
    cmd="$cmd -max_len=$(max_len "$p") -dict=tests/fuzz/$p.dict"
    cmd="$cmd -close_fd_mask=2 -artifact_prefix=$dir/artifacts/ $dir/corpus"
    echo "fuzz: $p for $seconds s: $cmd"
    start=$SECONDS
    $cmd >"$dir/log" 2>&1 || true
    elapsed=$((SECONDS - start))
    # Fork mode's status lines: "#EXECS: cov: .. ft: .. corp: .. exec/s ..
    # oom/timeout/crash: O/T/C time: ..s job: ..", the totals so far.
    last=$(grep -E '^#[0-9]+: cov:' "$dir/log" | tail -n 1)
    execs=$(sed -E 's/^#([0-9]+):.*/\1/' <<<"$last")
    fuzz_s=$(sed -E 's/.* time: ([0-9]+)s.*/\1/' <<<"$last")
    rate=$(awk -v e="${execs:-0}" -v t="${fuzz_s:-0}" \
        'BEGIN { if (t > 0) printf "%.0f", e / t }')
    cov=$(sed -E 's/.*cov: ([0-9]+) ft: ([0-9]+).*/\1 edges, \2 features/' <<<"$last")
    otc=$(sed -E 's/.*oom\/timeout\/crash: ([0-9]+\/[0-9]+\/[0-9]+).*/\1/' <<<"$last")
    crashes=$(find "$dir/artifacts" -name 'crash-*' | wc -l)
    leaks=$(find "$dir/artifacts" -name 'leak-*' | wc -l)
    hangs=$(find "$dir/artifacts" -name 'timeout-*' | wc -l)
    ooms=$(find "$dir/artifacts" -name 'oom-*' | wc -l)
    # The minimised corpus replaces the committed one; the seeds, put in
    # first, keep what they cover and are then taken out again.
    cp "$seeds"/* "$dir/min/"
    "$bin" -merge=1 -max_len="$(max_len "$p")" "$dir/min" "$dir/corpus" \
        >"$dir/merge.log" 2>&1
    for s in "$seeds"/*; do
        rm -f "$dir/min/$(basename "$s")" "$dir/min/$(sha1sum <"$s" | cut -d' ' -f1)"
    done
    rm -f "$corpus"/*
    cp "$dir/min"/* "$corpus/"
    {
        echo
        echo "[$p]"
        echo "command: $cmd"
        echo "seconds: $elapsed"
        echo "executions: ${execs:-?}"
        echo "execs/s: ${rate:-?} (executions over ${fuzz_s:-?} s of fuzzing)"
        echo "coverage: ${cov:-?}"
        echo "oom/timeout/crash (libFuzzer's count): ${otc:-?}"
        echo "inputs saved: $crashes crashes, $leaks leaks, $hangs hangs, $ooms out of memory"
        for a in "$dir"/artifacts/*; do
            [ -f "$a" ] && echo "  $a"
        done
        echo "seeds: $(files_bytes "$seeds")"
        echo "corpus before: $before"
        echo "corpus after -merge=1: $(files_bytes "$corpus")"
    } >>"$out.tmp"
    echo "fuzz: $p: ${execs:-?} executions, $crashes crashes, $leaks leaks, $hangs hangs"
done
mv "$out.tmp" "$out"
echo "fuzz: figures in $out"
