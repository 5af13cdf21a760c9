#!/usr/bin/env bash
# One sweep at a time on a run directory: a second sweep while one runs is
# refused in one line naming the host and process that hold RUN/lock, and
# the first completes with every record whole; a lock held by a live
# process refuses and changes nothing; a lock left by a dead process is
# taken over, saying so; the lock is gone when the sweep ends.
set -u
. "$(dirname "$0")/lib.sh"
. tests/sh/lib_sweep.sh
host=$(hostname)
refused_by() { # OUT PID: one line of ours naming the holder
    grep -q "in use by process $2 on host $host ($3/lock)" "$1" || fail "refusal: $(cat "$1")"
    [ "$(grep -cv '^build/autotune-smpi \|^Execution failed' "$1")" -eq 1 ] ||
        fail "the refusal is not one line: $(cat "$1")"
}

# Two sweeps at once: a larger grid (a few seconds), and the same command
# started while it runs.
write_cfg big
sed -i 's/^procs .*/procs = [2, 3, 4, 5, 6, 7, 8];/; s/factor = 8/factor = 2/' "$tmp/big.cfg"
setsid bash -c "$(declare -f sweep); tmp=$tmp platform=$platform sweep big" > "$tmp/big1.out" 2>&1 &
first=$!
wait_for_records "$tmp/big/journal" 20 $first
lock_host=none lock_pid=none
[ -s "$tmp/big/lock" ] && read -r lock_host lock_pid < "$tmp/big/lock"
[ "$lock_host" = "$host" ] || fail "the lock names host '$lock_host', not $host"
kill -0 "$lock_pid" 2>/dev/null || fail "the lock names process $lock_pid, which is not running"
if sweep big > "$tmp/big2.out" 2>&1; then
    fail "a second sweep ran on a run directory in use"
fi
kill -0 $first 2>/dev/null || fail "the first sweep ended before the second was refused"
refused_by "$tmp/big2.out" "$lock_pid" "$tmp/big"
wait $first || { cat "$tmp/big1.out"; fail "the first sweep failed"; }
grep -aq "damaged\|torn\|malformed" "$tmp/big1.out" && fail "the first sweep saw a damaged journal"
[ -e "$tmp/big/lock" ] && fail "the lock outlived the sweep"
sweep big > "$tmp/big3.out" 2>&1 || fail "sweep after the first ended"
grep -q " 0 experiments run" "$tmp/big3.out" || fail "records were lost: $(grep experiments "$tmp/big3.out")"
grep -aq "damaged\|torn\|malformed" "$tmp/big3.out" && fail "the journal was damaged"

# A live process holds it: refused, nothing changes.
write_cfg run
sweep run > "$tmp/run.out" 2>&1 || fail "sweep"
sleep 300 &
live=$!
echo "$host $live" > "$tmp/run/lock"
before=$(dir_sum "$tmp/run")
sweep run > "$tmp/live.out" 2>&1 && fail "a sweep ran while a live process held the lock"
refused_by "$tmp/live.out" "$live" "$tmp/run"
sweep run --fresh > "$tmp/live.out" 2>&1 && fail "--fresh ran while a live process held the lock"
[ "$(dir_sum "$tmp/run")" = "$before" ] || fail "a refused sweep changed the run directory"
kill $live
wait $live 2>/dev/null

# A dead one's lock is taken over, in one line, and removed at the end.
grep -q "which held it, is gone; taking the lock over" "$tmp/big3.out" &&
    fail "a sweep took over a lock nobody left"
sweep run > "$tmp/dead.out" 2>&1 || { cat "$tmp/dead.out"; fail "sweep over a dead process's lock"; }
grep -q "^autotune: $tmp/run/lock: process $live on $host, which held it, is gone; taking the lock over$" "$tmp/dead.out" ||
    fail "no notice of the take-over: $(head -3 "$tmp/dead.out")"
[ -e "$tmp/run/lock" ] && fail "the lock outlived the sweep"

echo "$fails failure(s)"
[ $fails -eq 0 ]
