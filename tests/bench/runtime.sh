#!/usr/bin/env bash
# `make bench-runtime`: the profile workflow end to end on each simulated
# cluster. The CG mini-app (tests/apps/cg.c) runs under libautotune with
# AUTOTUNE_PROFILE; a sweep tunes exactly its points (profile = ...); the
# app then runs without libautotune and with the run's exact decision
# (export --format dec). SMPI's Open MPI selector is the library's default
# in every run, as in the sweep's default/0. Figures: the app's simulated
# time without and with, and the saving the tuner predicts from the profile
# and the run (autotune profile -r: calls x (default - tuned)); each
# collective's own saving, the app run with only that collective's methods
# tuned (the others' leaves default/0) against every call the library's,
# beside its points' predicted saving; in results/bench/runtime.txt with
# the commands.
#   tests/bench/runtime.sh [NP] [cluster...]     (default: 16 grig frodo)
# BENCH_PPN=N: N consecutive ranks on each simulated node (a hostfile of
# NP / N lines "host:N"), so the profile, the sweep (its points at N ranks
# per node), the decision and the app all run at that layout; figures to
# results/bench/runtime-ppnN.txt.
# BENCH_APP=stencil: tests/apps/stencil.c rather than the CG mini-app
# (figures to results/bench/runtime-stencil.txt). BENCH_ARRIVAL=profile:
# the sweep times each point under the arrival pattern the profile
# recorded (measure.arrival = "profile"; figures to
# results/bench/runtime[-APP]-arrival-profile.txt); make bench-truth runs
# both ways.
# BENCH_NODE=1 (with BENCH_PPN): node-aware methods among the candidates
# (node_algorithms below: every flat method and node:... compositions of
# every phase algorithm), the sweep resuming a copy of the flat run's
# journal (runtime-CLUSTER-ppnN: make bench-runtime-ppn first) into
# runtime-CLUSTER-ppnN-node on the flat run's profile; the app without
# libautotune, with the flat run's decision and with the node-aware one,
# libautotune's fallbacks (AUTOTUNE_VERBOSE), per point the two choices;
# figures to results/bench/runtime-node.txt. BENCH_SWEEP=no resumes the
# committed node-aware journal as it is (nothing is timed).
set -eu
cd "$(dirname "$0")/../.."
. tests/bench/journals.sh
np=${1:-16}
shift || true
clusters=${*:-grig frodo}
app=${BENCH_APP:-cg}
arrival=${BENCH_ARRIVAL:-together}
case $app in
cg) app_args="-n 8192 -i 40 -k 5" ;;
stencil) app_args="-n 4096 -s 60 -k 6 -b 400" ;;
*) echo "runtime.sh: BENCH_APP: '$app' is not cg or stencil" >&2; exit 2 ;;
esac
case $arrival in
together) measure_arrival= ;;
profile) measure_arrival=' arrival = "profile";' ;;
*) echo "runtime.sh: BENCH_ARRIVAL: '$arrival' is not together or profile" >&2; exit 2 ;;
esac
make -s all "build/tests/rt-smpi/$app" "build/tests/smpi-plain/$app"
mkdir -p results/bench results/bench-runs
ppn=${BENCH_PPN:-1}
node=${BENCH_NODE:-0}
out=results/bench/runtime.txt
tag=
[ "$ppn" = 1 ] || tag=-ppn$ppn
if [ "$node" = 1 ]; then
    [ "$ppn" != 1 ] && [ "$app" = cg ] && [ "$arrival" = together ] ||
        { echo "runtime.sh: BENCH_NODE=1 needs BENCH_PPN > 1, the cg app and arrival together" >&2; exit 2; }
    tag=$tag-node
fi
node_algorithms='algorithms    = {
    bcast     = ["*", "node:*/*+*"];
    reduce    = ["*", "node:*+*/*"];
    allreduce = ["*", "node:*+*+*", "node2:binomial+*+binomial", "node4:binomial+*+binomial"];
    allgather = ["*", "node:*+*+*"];
    barrier   = ["*", "node:*+*+*"];
};'
[ "$app" = cg ] || tag=$tag-$app
[ "$arrival" = together ] || tag=$tag-arrival-$arrival
[ -z "$tag" ] || out=results/bench/runtime$tag.txt
[ "$node" != 1 ] || out=results/bench/runtime-node.txt
smpi() { # CLUSTER PROGRAM ARGS...
    local c=$1 hosts=
    shift
    if [ "$ppn" != 1 ]; then
        local prefix k
        prefix=$(cluster_prefix "$c") || exit 1
        hosts=results/bench-runs/runtime-$c${tag%-node}.hosts
        for ((k = 0; k < np / ppn; k++)); do echo "$prefix$k:$ppn"; done > "$hosts"
    fi
    SMPI_HOSTS=$hosts smpi_run "$np" "$c" "$@"
}
app_time() { sed -n "s/^$app: .* time_s=//p"; }
# only_dec DEC COLL: DEC with every collective but COLL the library's (each
# other collective's leaves default/0; a collective's nodes run from its
# root to the next collective's); every one with COLL "none".
only_dec() {
    awk -v keep="$2" '
        NR == FNR {
            if ($1 == "methods") { n_methods = $2; at_methods = FNR }
            else if (at_methods && FNR <= at_methods + n_methods && $0 == "default/0") dflt = FNR - at_methods - 1
            if ($1 == "collectives") { n_colls = $2; at_colls = FNR }
            else if (at_colls && FNR <= at_colls + n_colls) root[$1] = $2
            if ($1 == "nodes") { n_nodes = $2; at_nodes = FNR }
            next
        }
        FNR == 1 {
            is_added = dflt == ""
            if (is_added) dflt = n_methods
            lo = keep in root ? root[keep] : -1; hi = keep in root ? n_nodes : -1
            for (c in root) if (root[c] > lo && root[c] < hi) hi = root[c]
        }
        is_added && FNR == at_methods { print "methods", n_methods + 1; next }
        is_added && FNR == at_methods + n_methods { print; print "default/0"; next }
        FNR > at_nodes && FNR <= at_nodes + n_nodes && $1 == "leaf" {
            k = FNR - at_nodes - 1
            if (k < lo || k >= hi) { print "leaf", dflt; next }
        }
        { print }' "$1" "$1"
}
{
echo "# make bench-runtime ($(date -u +%F)): ${BENCH_PPN:+BENCH_PPN=$ppn }${BENCH_NODE:+BENCH_NODE=$node }${BENCH_APP:+BENCH_APP=$app }${BENCH_ARRIVAL:+BENCH_ARRIVAL=$arrival }tests/bench/runtime.sh $np $clusters"
hosts_arg=; [ "$ppn" = 1 ] || hosts_arg=" -hostfile results/bench-runs/runtime-CLUSTER${tag%-node}.hosts"
echo "# app: $app $app_args on $np ranks ($ppn a node); smpirun -np $np$hosts_arg -platform conf/platforms/CLUSTER.xml"
echo "#      --cfg=smpi/simulate-computation:no --cfg=smpi/coll-selector:ompi for every run"
for c in $clusters; do
    run=results/bench-runs/runtime-$c$tag
    prof=$run.prof
    echo "## $c"
    if [ "$node" = 1 ]; then
        # the flat run's profile, its journal resumed: only the node-aware
        # methods are timed
        flat=${run%-node}
        prof=$flat.prof
        [ -s "$prof" ] && [ -s "$flat/journal" ] ||
            { echo "runtime.sh: $flat: no profile or journal (make bench-runtime-ppn first)" >&2; exit 1; }
        if [ "${BENCH_SWEEP:-yes}" != no ] || [ ! -s "$run/journal" ]; then
            rm -rf "$run" && mkdir -p "$run" && cp "$flat/journal" "$run/journal"
            rm -f "$run.sweep"
        fi
        echo "# the flat run's profile $prof; $run/journal resumed from a copy of $flat/journal"
        extra=$node_algorithms
    else
        rm -rf "$run"
        echo "# AUTOTUNE_PROFILE=$prof smpirun ... build/tests/rt-smpi/$app $app_args"
        AUTOTUNE_PROFILE=$prof smpi "$c" build/tests/rt-smpi/$app $app_args >/dev/null
        extra=
    fi
    cat >"$run.cfg" <<CFG
output        = "$run";
profile       = "$prof";
segment_sizes = [0, 1024, 4096, 16384, 65536];
search        = "exhaustive";
measure       = { warmup = 0; min_reps = 1; max_reps = 1; rse = 0.5;$measure_arrival };
CFG
    [ -z "$extra" ] || echo "$extra" >>"$run.cfg"
    echo "# smpirun ... build/autotune-smpi -c $run.cfg"
    if [ "$node" = 1 ]; then
        # the sweep's own count and wall time, kept beside the run (a
        # resume that times nothing keeps them)
        smpi "$c" build/autotune-smpi -c "$run.cfg" 2>&1 | tr '\r' '\n' >"$run.out"
        grep -q ' 0 experiments run' "$run.out" && [ -s "$run.sweep" ] ||
            grep '^autotune: [0-9]* points' "$run.out" >"$run.sweep"
        rm -f "$run.out"
        sed 's/^/#   /' "$run.sweep"
        build/autotune export -r "$flat" --format dec -o "$flat.dec" 2>/dev/null
        echo "# build/autotune profile $prof -r $flat   (the flat-only decision)"
        build/autotune profile "$prof" -r "$flat" | sed 's/^/    /'
    else
        smpi "$c" build/autotune-smpi -c "$run.cfg" >/dev/null 2>&1
    fi
    build/autotune export -r "$run" --format dec -o "$run.dec" 2>/dev/null
    echo "# build/autotune profile $prof -r $run"
    build/autotune profile "$prof" -r "$run" | sed 's/^/    /'
    echo "# smpirun ... build/tests/smpi-plain/$app $app_args   (without libautotune)"
    without=$(smpi "$c" build/tests/smpi-plain/$app $app_args | app_time)
    if [ "$node" = 1 ]; then
        echo "# AUTOTUNE_DECISION=$flat.dec smpirun ... build/tests/rt-smpi/$app $app_args   (the flat-only decision)"
        with_flat=$(AUTOTUNE_DECISION=$flat.dec smpi "$c" build/tests/rt-smpi/$app $app_args | app_time)
        saved_flat=$(build/autotune profile "$prof" -r "$flat" | sed -n 's/^predicted .* = \([0-9.]*\) s saved.*/\1/p')
        [ -s "$flat-tuned.prof" ] ||
            AUTOTUNE_DECISION=$flat.dec AUTOTUNE_PROFILE=$flat-tuned.prof smpi "$c" build/tests/rt-smpi/$app $app_args >/dev/null
        # where libautotune ran what the decision names, and why not
        echo "# AUTOTUNE_VERBOSE=1 AUTOTUNE_DECISION=$run.dec smpirun ... build/tests/rt-smpi/$app $app_args"
        with=$(AUTOTUNE_VERBOSE=1 AUTOTUNE_DECISION=$run.dec smpi "$c" build/tests/rt-smpi/$app $app_args 2>"$run.verbose" | app_time)
        grep '^libautotune' "$run.verbose" | sed 's/^/    /'
    else
        echo "# AUTOTUNE_DECISION=$run.dec smpirun ... build/tests/rt-smpi/$app $app_args"
        with=$(AUTOTUNE_DECISION=$run.dec smpi "$c" build/tests/rt-smpi/$app $app_args | app_time)
    fi
    saved=$(build/autotune profile "$prof" -r "$run" | sed -n 's/^predicted .* = \([0-9.]*\) s saved.*/\1/p')
    # Where the saving is: each point's time in the app, profiled without
    # and with the decision, against the prediction.
    echo "# AUTOTUNE_DECISION=$run.dec AUTOTUNE_PROFILE=$run-tuned.prof smpirun ... build/tests/rt-smpi/$app $app_args"
    AUTOTUNE_DECISION=$run.dec AUTOTUNE_PROFILE=$run-tuned.prof smpi "$c" build/tests/rt-smpi/$app $app_args >/dev/null
    if [ "$node" = 1 ]; then
        echo "# per point (* where the node-aware decision runs a node-aware method): each decision's method, its time per call in the sweep"
        echo "# and the default's (us), the predicted saving (s); the seconds in the app (the profiles $prof, $flat-tuned.prof, $run-tuned.prof)"
        build/autotune profile "$prof" -r "$run" -n 1000 | awk -v flat=<(build/autotune profile "$prof" -r "$flat" -n 1000) \
            -v ft="$flat-tuned.prof" -v nt="$run-tuned.prof" -v c="$c" '
            function load(file, arr,   line, f) {
                while ((getline line < file) > 0) { split(line, f, " ")
                    if (line !~ /^#/ && f[6] != "") arr[f[1] " " f[2] " " f[4]] = f[6] } }
            BEGIN { load(ft, tf); load(nt, tn)
                while ((getline line < flat) > 0) { n = split(line, f, " ")
                    if (n == 14 && f[1] ~ /^[a-z]+$/) { k = f[1] " " f[2] " " f[4]; fm[k] = f[11]; fus[k] = f[12]; fs[k] = f[14] } } }
            $1 ~ /^[a-z]+$/ && NF == 14 {
                k = $1 " " $2 " " $4; is_node = $11 ~ /^node/; points++; chosen += is_node
                printf "   %s%-9s %4d %6d B %3d calls: flat %s %.3f us, node-aware %s %.3f us, default %.3f us; predicted saved flat %.6f s, node-aware %.6f s\n",
                    is_node ? "*" : " ", $1, $2, $4, $5, fm[k], fus[k], $11, $12, $13, fs[k], $14
                printf "                in the app: without %.6f s, flat-only %.6f s, node-aware %.6f s\n", $6, tf[k], tn[k] }
            END { printf "%s: node-aware methods chosen at %d of %d points\n", c, chosen, points }'
        # libautotune makes the node and leaders' communicators at the first
        # node-aware call: once per run, beyond the sweep's per-call times.
        # Twice the iterations split each point's seconds in the app into a
        # call's (a = (t2 - t1) / (calls2 - calls1)) and once (t1 - calls1 a).
        long_args=${app_args/-i 40/-i 80}
        for d in flat node; do
            dec=$run.dec
            [ "$d" = node ] || dec=$flat.dec
            echo "# AUTOTUNE_DECISION=$dec AUTOTUNE_PROFILE=$run-$d-i80.prof smpirun ... build/tests/rt-smpi/$app $long_args"
            long=$(AUTOTUNE_DECISION=$dec AUTOTUNE_PROFILE=$run-$d-i80.prof smpi "$c" build/tests/rt-smpi/$app $long_args | app_time)
            echo "$c: app time at -i 80 with the $d decision: $long s"
        done
        build/autotune profile "$prof" -r "$run" -n 1000 | awk -v c="$c" -v f1="$flat-tuned.prof" -v n1="$run-tuned.prof" \
            -v f2="$run-flat-i80.prof" -v n2="$run-node-i80.prof" '
            function load(file, calls, secs,   line, f) {
                while ((getline line < file) > 0) { split(line, f, " ")
                    if (line !~ /^#/ && f[6] != "") { k = f[1] " " f[2] " " f[4]; calls[k] = f[5]; secs[k] = f[6] } } }
            BEGIN { load(f1, cf1, sf1); load(n1, cn1, sn1); load(f2, cf2, sf2); load(n2, cn2, sn2) }
            $1 ~ /^[a-z]+$/ && NF == 14 && $11 ~ /^node/ {
                k = $1 " " $2 " " $4
                an = (sn2[k] - sn1[k]) / (cn2[k] - cn1[k]); af = (sf2[k] - sf1[k]) / (cf2[k] - cf1[k])
                printf "%s: %s %d B in the app: node-aware %.3f us a call + %.3f ms once, flat-only %.3f us a call + %.3f ms once\n", c, $1, $4,
                    1e6 * an, 1e3 * (sn1[k] - cn1[k] * an), 1e6 * af, 1e3 * (sf1[k] - cf1[k] * af) }'
    else
    echo "# per point: seconds in the app (the profiles), without and with, and the predicted saving"
    build/autotune profile "$prof" -r "$run" -n 1000 | awk -v tuned="$run-tuned.prof" '
        BEGIN { while ((getline line < tuned) > 0) { split(line, f, " ")
                    if (line !~ /^#/ && f[6] != "") t[f[1] " " f[2] " " f[4]] = f[6] } }
        $1 ~ /^[a-z]+$/ && NF == 14 && ($1 " " $2 " " $4) in t {
            k = $1 " " $2 " " $4
            printf "    %-10s %4d %8d  without %.6f s  with %.6f s  saved %+.6f s  predicted %.6f s\n",
                $1, $2, $4, $6, t[k], $6 - t[k], $14 }'
    fi
    if [ "$node" = 1 ]; then
        awk -v c="$c" -v w="$without" -v f="$with_flat" -v t="$with" -v sf="$saved_flat" -v s="$saved" 'BEGIN {
            printf "%s: app time without %.6f s, flat-only decision %.6f s (%.4fx, %.6f s saved), node-aware decision %.6f s (%.4fx, %.6f s saved); node-aware over flat-only %.4fx\n",
                c, w, f, w / f, w - f, t, w / t, w - t, f / t
            printf "%s: predicted savings (calls x (default - tuned), the runs'\'' times): flat-only %.6f s, node-aware %.6f s\n", c, sf, s }'
    else
    # Each collective's own saving: the app with only its methods tuned,
    # against the app with every call the library's under the same
    # libautotune (only_dec none), and against the predicted saving of its
    # points; the criterion of issue 38 (within 25 %) where its points
    # hold 5 % of the collective time.
    echo "# per collective: AUTOTUNE_DECISION=$run-only-COLL.dec (only_dec: the other collectives the library's) smpirun ... build/tests/rt-smpi/$app $app_args"
    only_dec "$run.dec" none >"$run-only-none.dec"
    none=$(AUTOTUNE_DECISION=$run-only-none.dec smpi "$c" build/tests/rt-smpi/$app $app_args | app_time)
    echo "#   against COLL none (every call the library's under libautotune): $none s"
    for coll in $(awk '$1 == "collectives" { n = $2; next } n > 0 { print $1; n-- }' "$run.dec"); do
        only_dec "$run.dec" "$coll" >"$run-only-$coll.dec"
        echo "$coll $(AUTOTUNE_DECISION=$run-only-$coll.dec smpi "$c" build/tests/rt-smpi/$app $app_args | app_time)"
    done >"$run.only"
    build/autotune profile "$prof" -r "$run" -n 1000 | awk -v c="$c" -v w="$none" -v only="$run.only" '
        BEGIN { while ((getline line < only) > 0) { split(line, f, " "); t[f[1]] = f[2]; order[++n] = f[1] } }
        $1 ~ /^[a-z]+$/ && NF == 14 { sec[$1] += $6; total += $6; pred[$1] += $14 }
        END {
            for (i = 1; i <= n; i++) {
                k = order[i]; share = total > 0 ? 100 * sec[k] / total : 0; saved = w - t[k]
                off = pred[k] > 0 ? 100 * (saved - pred[k]) / pred[k] : 0
                is_big = share >= 5; is_in = pred[k] > 0 ? off >= -25 && off <= 25 : saved < 0.05 * sec[k] && saved > -0.05 * sec[k]
                big += is_big; inside += is_big && is_in
                how = pred[k] > 0 ? sprintf("off %+.1f %%", off) : "(none predicted)"
                verdict = is_big ? (is_in ? "  within 25 %" : "  NOT within 25 %") : ""
                printf "    %-10s share %5.1f %%  saved %+.6f s  predicted %.6f s  %s%s\n", k, share, saved, pred[k], how, verdict
            }
            printf "%s: collectives with >= 5 %% of the collective time: %d, their saving within 25 %% of the predicted: %d\n", c, big, inside
        }'
    fi
    awk -v c="$c" -v w="$without" -v t="$with" -v s="$saved" 'BEGIN {
        measured = w - t; predicted_t = w - s
        off = measured > 0 ? 100 * (s - measured) / measured : 0
        verdict = t <= w ? "not slower" : "SLOWER"
        printf "%s: app time without %.6f s, with %.6f s: measured speedup %.4fx (%.6f s saved)\n", c, w, t, w / t, measured
        printf "%s: predicted from the profile and the run: %.6f s saved, speedup %.4fx\n", c, s, w / predicted_t
        printf "%s: predicted against measured: time with libautotune %+.2f %%, speedup %+.2f %%, saving %+.1f %%; tuned run %s\n", c,
            100 * (predicted_t - t) / t, 100 * ((w / predicted_t) - (w / t)) / (w / t),
            off, verdict
        total_off = s > 0 ? 100 * (measured - s) / s : 0
        printf "%s: total saving, measured against predicted: %+.1f %% (within 10 %%: %s)\n", c, total_off,
            (total_off >= -10 && total_off <= 10 ? "yes" : "NO")
    }'
done
} | tee "$out"
