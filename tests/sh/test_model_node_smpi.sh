#!/usr/bin/env bash
# The model predicts node-aware methods (issue 35 item 2): on a simple
# simulated cluster of 2 nodes x 4 ranks (no per-size factors, where the
# model prices a large flat bcast or reduce within 0.5 % of SMPI), its
# time of each node-aware method, composed from its phases' flat
# schedules, is as close to the SMPI-measured time as the flat methods'
# are: within 0.5 % at 64 KiB and 1 MiB for bcast and reduce, and nowhere
# more than one point (1 %) worse than the worst flat method of the same
# point; `search = "model"` times node-aware methods too, fewer
# experiments than exhaustive, its choice within 5 % of the optimum.
set -u
. "$(dirname "$0")/lib.sh"
command -v smpirun >/dev/null || { echo "smpirun not found (./setup.sh installs simgrid)"; exit 77; }
cat > "$tmp/simple.xml" <<'XML'
<?xml version='1.0'?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<platform version="4.1">
  <config>
    <prop id="smpi/bw-factor" value="0:1"/>
    <prop id="smpi/lat-factor" value="0:1"/>
    <prop id="smpi/async-small-thresh" value="0"/>
    <prop id="smpi/send-is-detached-thresh" value="65536"/>
  </config>
  <cluster id="s" prefix="s-" suffix="" radical="0-1" speed="1Gf" core="8"
           bw="10Gbps" lat="1us" sharing_policy="SPLITDUPLEX"
           bb_bw="100Gbps" bb_lat="0us" bb_sharing_policy="SHARED"
           loopback_bw="20Gbps" loopback_lat="0.1us"/>
</platform>
XML
printf 's-0:2\ns-1:2\n' > "$tmp/cal.hosts"
printf 's-0:4\ns-1:4\n' > "$tmp/run.hosts"
smpi() { # NP HOSTS ARGS...
    local np=$1 hosts=$2
    shift 2
    smpirun -np "$np" -hostfile "$hosts" -platform "$tmp/simple.xml" --cfg=smpi/simulate-computation:no \
        --log=root.thres:critical build/autotune-smpi "$@"
}
write_cfg() { # NAME SEARCH
    cat > "$tmp/$1.cfg" <<CFG
output         = "$tmp/$1";
collectives    = ["bcast", "reduce", "allreduce"];
procs          = [8];
ranks_per_node = [4];
message_sizes  = [1, 4096, 65536, 1048576];
segment_sizes  = [0, 8192];
algorithms     = { bcast = ["binomial", "linear", "pipeline", "node:binomial+binomial",
                            "node:linear+linear", "node:pipeline/8192+pipeline/8192"];
                   reduce = ["binomial", "linear", "node:binomial+binomial", "node:linear+binomial"];
                   allreduce = ["recursive_doubling", "ring", "node:binomial+recursive_doubling+binomial",
                                "node:binomial+ring+binomial"]; };
search         = "$2";
measure        = { warmup = 0; min_reps = 1; max_reps = 1; rse = 0.5; };
baseline       = false;
CFG
}
write_cfg exh exhaustive
write_cfg model model
# Both parameter sets: ranks 0 and 1 share s-0, 2 and 3 s-1.
smpi 4 "$tmp/cal.hosts" model -c "$tmp/exh.cfg" > "$tmp/cal.out" 2>&1 || { cat "$tmp/cal.out"; fail "model"; }
smpi 8 "$tmp/run.hosts" -c "$tmp/exh.cfg" > "$tmp/exh.out" 2>&1 || { cat "$tmp/exh.out"; fail "exhaustive sweep"; }
build/autotune predict -r "$tmp/exh" > "$tmp/predict.out" 2>&1 || { cat "$tmp/predict.out"; fail "predict"; }
p="$tmp/exh/predicted.csv"
# Every measured method is predicted, the node-aware ones among them (3 of
# bcast, 2 of reduce, 2 of allreduce at 4 sizes).
[ "$(($(wc -l < "$p") - 1))" -eq "$(($(wc -l < "$tmp/exh/measurements.csv") - 1))" ] ||
    fail "predicted.csv: not one row per measured method"
[ "$(grep -c ',node:' "$p")" -eq 28 ] || fail "node-aware predictions: $(grep -c ',node:' "$p"), expected 7 methods x 4 sizes"
join -t, <(awk -F, 'NR > 1 { print $1 ":" $4 ":" $5 ":" $6 "," $7 }' "$p" | sort) \
    <(awk -F, 'NR > 1 { print $1 ":" $4 ":" $5 ":" $6 "," $8 }' "$tmp/exh/measurements.csv" | sort) > "$tmp/both"
awk -F, '
    { split($1, k, ":"); pt = k[1] ":" k[2]; err = $2 / $3 - 1; err = err < 0 ? -err : err
      if ($1 ~ /:node:/) { node[NR] = pt; nerr[NR] = err; name[NR] = $1 }
      else if (err > flat[pt]) flat[pt] = err
      if ($1 !~ /:node:/ && k[4] == 0 && (k[1] == "bcast" || k[1] == "reduce") && k[2] >= 65536 && err > 0.005) {
          print "flat " $1 " off by " err; bad++ } }
    END {
      for (i in node) {
          split(node[i], k, ":")
          if ((k[1] == "bcast" || k[1] == "reduce") && k[2] >= 65536 && nerr[i] > 0.005) {
              print name[i] " off by " nerr[i]; bad++ }
          if (nerr[i] > flat[node[i]] + 0.01) {
              print name[i] " off by " nerr[i] ", flat at most " flat[node[i]]; bad++ }
          n++ }
      print n " node-aware predictions checked"
      exit !(n == 28 && !bad) }' "$tmp/both" || fail "node-aware predictions: $(cat "$tmp/both" | tr '\n' ' ')"
# Points never measured: the run's node-aware methods too, where they
# apply (16 ranks at 4 per node; at 1 per node none does).
build/autotune predict -r "$tmp/exh" --procs 16 --sizes 4096 --ppn 1,4 -o "$tmp/new" > "$tmp/new.out" 2>&1 ||
    { cat "$tmp/new.out"; fail "predict --procs 16 --ppn 1,4"; }
[ "$(grep -c '^[a-z]*,16,4,4096,node:' "$tmp/new/predicted.csv")" -eq 7 ] &&
    [ "$(grep -c ',16,1,4096,node:' "$tmp/new/predicted.csv")" -eq 0 ] &&
    grep -q '^bcast,16,1,4096,binomial,0,' "$tmp/new/predicted.csv" ||
    fail "new points' node-aware predictions: $(grep -c ',node:' "$tmp/new/predicted.csv") rows"

# search = "model" with the same calibration: node-aware methods among
# what it times, fewer experiments, its choice within 5 % of exhaustive's.
mkdir -p "$tmp/model"
cp "$tmp/exh/model.csv" "$tmp/exh/model.journal" "$tmp/model/"
smpi 8 "$tmp/run.hosts" -c "$tmp/model.cfg" > "$tmp/model.out" 2>&1 || { cat "$tmp/model.out"; fail "model sweep"; }
experiments() { sed -n 's/.* \([0-9]*\) experiments\{0,1\} run.*/\1/p' "$1"; }
echo "model: $(experiments "$tmp/model.out") experiments, exhaustive: $(experiments "$tmp/exh.out")"
[ "$(experiments "$tmp/model.out")" -lt "$(experiments "$tmp/exh.out")" ] || fail "search = model timed as much as exhaustive"
grep -q ',node:' "$tmp/model/measurements.csv" || fail "search = model timed no node-aware method"
max_penalty "$tmp/exh" "$tmp/model" 0.05 ||
    fail "the model-guided choices lose more than 5 % somewhere"
[ "$(($(wc -l < "$tmp/model/optimal.csv") - 1))" -eq 12 ] || fail "search = model: not 12 points"
# A node-aware method wins at 4 KiB here (bcast: node:linear+linear,
# allreduce: node:binomial+recursive_doubling+binomial), and both searches
# choose it.
for run in exh model; do
    grep -q '^bcast,8,4,4096,node:linear/0+linear/0,' "$tmp/$run/optimal.csv" &&
        grep -q '^allreduce,8,4,4096,node:binomial/0+recursive_doubling+binomial/0,' "$tmp/$run/optimal.csv" ||
        fail "$run: not the node-aware methods at 4 KiB: $(grep ',4096,' "$tmp/$run/optimal.csv" | tr '\n' ' ')"
done
exit $((fails > 0))
