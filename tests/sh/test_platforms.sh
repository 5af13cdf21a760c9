#!/usr/bin/env bash
# The simulated clusters in conf/platforms/ behave like the networks they
# stand for. Runs tests/mpi/pingpong.c (built with smpicc) on each platform
# with 64 ranks, one per host, and checks the simulated figures, which are
# deterministic, against the ranges documented in each XML file's header:
#
#   platform  1-byte one-way latency  1 MiB bandwidth  64 KiB fan-out  1 KiB fan-out
#   grig      50..100 us              10.5..12 MB/s    55..70 x        10..63 x
#   frodo     4..8 us                 220..250 MB/s    55..70 x        10..63 x
#   fattree   0.8..1.6 us             11000..12500     55..80 x        10..63 x
#   ndr       0.8..1.3 us             40000..50000     55..70 x        5..63 x
#   ddr       1.4..2.2 us             1350..1550       55..70 x        10..63 x
#
# and, for the multi-core clusters (ndr, ddr), between two ranks of one node
# (a hostfile of "host:2"), over the node's loopback link:
#
#   ndr       0.2..0.5 us             15000..30000
#   ddr       0.6..1.2 us             1600..2000
#
# (ndr's 1 KiB sends take 1.05 us, of which the root's overheads and link
# are a small part, so 63 of them overlap to ~7x one.)
# (fattree's 64 KiB messages are rendezvous ones: each blocking send also
# waits for its round trip, so the fan-out is a little more than 63x.)
# (fan-out = rank 0 sending to the 63 others, as a multiple of one send;
# ~63x means the root's link serialises them.) Stream: 16 eager 8 KiB
# messages posted at once to one peer arrive in order: the last comes
# 10..16x one message's time after the first (5..16x on fattree, where
# overheads are most of one message's time; the platforms' async-
# small-thresh 0 keeps SimGrid from sharing the link among all of them,
# which made segmented pipelines store-and-forward). Also checks that the 64
# ranks land on 64 distinct hosts, in the platform's node order (on
# fattree, ranks 0..31 share a leaf: host names sort as their numbers), and
# that two runs print the same figures.
# Skips (exit 77) when SimGrid's smpicc/smpirun are not installed.
set -u
cd "$(dirname "$0")/../.."

if ! command -v smpicc >/dev/null 2>&1 || ! command -v smpirun >/dev/null 2>&1; then
    echo "smpicc/smpirun not found (./setup.sh installs libsimgrid-dev)"
    exit 77
fi

src=tests/mpi/pingpong.c
bin=build/tests/smpi/pingpong
# Use the Makefile's binary when it is up to date, else build it (it needs
# nothing but MPI).
if [ ! -x "$bin" ] || [ "$src" -nt "$bin" ]; then
    mkdir -p "$(dirname "$bin")"
    smpicc -std=c11 -O2 -Wall -Wextra -Wpedantic -o "$bin" "$src" || {
        echo "FAIL: cannot build $bin"; exit 1; }
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0

fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# field FILE KIND BYTES KEY: the value of KEY= on the "KIND bytes=BYTES" line.
field() {
    awk -v kind="$2" -v bytes="bytes=$3" -v key="$4=" '
        $1 == kind && $2 == bytes {
            for (i = 3; i <= NF; i++)
                if (index($i, key) == 1) { print substr($i, length(key) + 1); exit }
        }' "$1"
}

# in_range NAME VALUE LO HI
in_range() {
    if [ -z "$2" ]; then
        fail "$1: no value in the output"
    elif awk -v v="$2" -v lo="$3" -v hi="$4" 'BEGIN { exit !(v >= lo && v <= hi) }'; then
        echo "ok   $1 = $2 (in $3..$4)"
    else
        fail "$1 = $2, expected $3..$4"
    fi
}

run() { # run PLATFORM OUT [smpirun options...]
    local platform=$1 out=$2; shift 2
    timeout $((120 * ${TEST_TIME_SCALE:-1})) smpirun -np 64 -platform "conf/platforms/$platform.xml" "$@" \
        --cfg=smpi/simulate-computation:no "$bin" 3 >"$out" 2>"$out.err"
}

check() { # check PLATFORM LAT_LO LAT_HI BW_LO BW_HI [FANOUT64_HI STREAM_LO LEAF FANOUT1_LO]
    local p=$1 out=$tmp/$1.out
    echo "== $p"
    if ! run "$p" "$out" -map; then
        fail "$p: smpirun failed"; cat "$out" "$out.err"; return
    fi
    cat "$out"
    local hosts
    hosts=$(grep -o '\[rank [0-9]*\] -> [^ ]*' "$out.err" | awk '{print $4}' | sort -u | wc -l)
    [ "$hosts" -eq 64 ] && echo "ok   $p: 64 ranks on 64 distinct hosts" ||
        fail "$p: 64 ranks ran on $hosts distinct hosts"
    [ "$(grep -c '^pingpong bytes=' "$out")" -eq 21 ] ||
        fail "$p: expected 21 ping-pong sizes (1 B .. 1 MiB)"

    in_range "$p latency 1 B (us)" "$(field "$out" pingpong 1 oneway_us)" "$2" "$3"
    in_range "$p bandwidth 1 MiB (MB/s)" "$(field "$out" pingpong 1048576 MBps)" "$4" "$5"
    in_range "$p fan-out 64 KiB (x one send)" "$(field "$out" fanout 65536 ratio)" 55 "${6:-70}"
    in_range "$p fan-out 1 KiB (x one send)" "$(field "$out" fanout 1024 ratio)" "${9:-10}" 63
    local single first total
    single=$(field "$out" stream 8192 single_us)
    first=$(field "$out" stream 8192 first_us)
    total=$(field "$out" stream 8192 total_us)
    # The last message arrives well after the first, as an in-order link
    # delivers them; shared among all at once they would arrive together.
    in_range "$p stream: last minus first of 16 (x one send)" \
        "$(awk -v a="$total" -v f="$first" -v b="$single" 'BEGIN { if (b > 0) printf "%.2f", (a - f) / b }')" "${7:-10}" 16

    # Placement: rank r runs on the platform's node r (SMPI takes hosts in
    # name order), so ranks 1..NEAR-1 share rank 0's leaf and answer in
    # rank 1's time, the others later; on a flat cluster (NEAR 64) all do.
    local near=${8:-64} lat1 placed
    lat1=$(awk '$1 == "peer" && $2 == "rank=1" { sub("oneway_us=", "", $3); print $3 }' "$out")
    placed=$(awk -v near="$near" -v l1="$lat1" '$1 == "peer" {
            r = substr($2, 6) + 0; t = substr($3, 11)
            if ((r < near) != (t == l1)) bad = bad " " r
            n++ }
        END { print n == 63 && bad == "" ? "ok" : "ranks" (n == 63 ? bad : " missing") }' "$out")
    [ "$placed" = ok ] && echo "ok   $p: ranks 1..$((near - 1)) as near rank 0 as rank 1$([ "$near" -lt 64 ] && echo ", the rest further")" ||
        fail "$p: placement: $placed answer out of place (expected ranks 1..$((near - 1)) on rank 0's leaf)"

    # Simulated time is deterministic: a second run prints the same figures.
    if run "$p" "$tmp/$p.again" --log=root.thres:warning &&
        diff -q "$out" "$tmp/$p.again" >/dev/null; then
        echo "ok   $p: a second run gives identical figures"
    else
        fail "$p: a second run differs"; diff "$out" "$tmp/$p.again"
    fi
}

# check_node PLATFORM LAT_LO LAT_HI BW_LO BW_HI: two ranks on the platform's
# first node (a hostfile of "host:2"), which must share it.
check_node() {
    local p=$1 out=$tmp/$1.node.out host
    host=$(sed -n 's/.*<cluster .*prefix="\([^"]*\)".*/\1/p' "conf/platforms/$p.xml")0
    echo "$host:2" >"$tmp/$p.hosts"
    echo "== $p, two ranks on $host"
    if ! timeout $((120 * ${TEST_TIME_SCALE:-1})) smpirun -np 2 -hostfile "$tmp/$p.hosts" \
        -platform "conf/platforms/$p.xml" -map --cfg=smpi/simulate-computation:no \
        "$bin" 3 >"$out" 2>"$out.err"; then
        fail "$p: smpirun -hostfile failed"; cat "$out" "$out.err"; return
    fi
    local on
    on=$(grep -o '\[rank [0-9]*\] -> [^ ]*' "$out.err" | awk '{print $4}' | sort -u | tr '\n' ' ')
    [ "$on" = "$host " ] && echo "ok   $p: both ranks on $host" ||
        fail "$p: the two ranks ran on '$on', expected $host alone"
    in_range "$p intra-node latency 1 B (us)" "$(field "$out" pingpong 1 oneway_us)" "$2" "$3"
    in_range "$p intra-node bandwidth 1 MiB (MB/s)" "$(field "$out" pingpong 1048576 MBps)" "$4" "$5"
}

check grig 50 100 10.5 12
check frodo 4 8 220 250
check fattree 0.8 1.6 11000 12500 80 5 32
check ndr 0.8 1.3 40000 50000 70 5 64 5
check ddr 1.4 2.2 1350 1550
check_node ndr 0.2 0.5 15000 30000
check_node ddr 0.6 1.2 1600 2000

if [ "$failures" -ne 0 ]; then
    echo "$failures check(s) failed"
    exit 1
fi
echo "all platform checks passed"
