# Sourced by the shell tests: they run from the top of the tree, with a
# temporary directory $tmp removed at exit (kept when KEEP is set), and
# fail() counting failures that the test reports at its end; records() and
# wait_for_records() watch a sweep's journal, kill_at_records() kills one.
cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 1
tmp=$(mktemp -d)
trap '[ -n "${KEEP:-}" ] || rm -rf "$tmp"' EXIT
fails=0
fail() {
    echo "FAIL: $*"
    fails=$((fails + 1))
}
# The number of measurement records in a journal (0 if there is none).
records() { local n; n=$(grep -ac '^m ' "$1" 2>/dev/null); echo "${n:-0}"; }
# Until JOURNAL holds N records (0) or process PID has ended (1), at most
# 30 s.
wait_for_records() { # JOURNAL N PID
    for _ in $(seq 1 3000); do
        [ "$(records "$1")" -ge "$2" ] && return 0
        kill -0 "$3" 2>/dev/null || return 1
        sleep 0.01
    done
    return 1
}
# Runs the shell function FUNC with ARGS (it sees the test's tmp, np and
# platform) in a process group of its own, output to OUT, kills the group
# with SIGKILL once JOURNAL holds N records (or FUNC has ended), and prints
# the records then on disk.
kill_at_records() { # JOURNAL N OUT FUNC ARGS...
    local journal=$1 n=$2 out=$3 pid
    shift 3
    setsid bash -c "$(declare -f "$1" smpi_hosts_sweep); $(declare -p tmp np platform 2>/dev/null); $(printf "%q " "$@")" \
        > "$out" 2>&1 &
    pid=$!
    wait_for_records "$journal" "$n" $pid
    kill -9 -- -$pid 2>/dev/null
    wait $pid 2>/dev/null
    # Until every process of the group is gone (reaped, too: the run's
    # lock counts a killed simulator as alive until then), at most 10 s.
    local i
    for i in $(seq 100); do
        kill -0 -- -$pid 2>/dev/null || break
        sleep 0.1
    done
    records "$journal"
}
# Runs FUNC with ARGS as kill_at_records does, but with SIGINT and SIGTERM
# not ignored (a background job's are) and interrupted with SIGINT to its
# process group, as a terminal's Ctrl-C is, once JOURNAL holds N records;
# then checks that the sweep exited non-zero, saying only (progress lines
# and the note on ranks sharing nodes aside) "autotune: interrupted: P
# points done; the same command resumes",
# P the points in the journal, and left no lock. Sets interrupted_points
# to P.
interrupt_at_records() { # JOURNAL N OUT FUNC ARGS...
    local journal=$1 n=$2 out=$3 pid rc points
    shift 3
    setsid env --default-signal=INT,TERM bash -c \
        "$(declare -f "$1" smpi_hosts_sweep); $(declare -p tmp np platform at at_smpi 2>/dev/null); $(printf "%q " "$@")" \
        > "$out" 2>&1 &
    pid=$!
    wait_for_records "$journal" "$n" $pid || fail "the sweep ended before $n records"
    kill -INT -- -$pid 2>/dev/null
    wait $pid
    rc=$?
    points=$(grep -c '^p ' "$journal")
    [ "$rc" -ne 0 ] || fail "an interrupted sweep exited 0"
    tr '\r' '\n' < "$out" | grep -v '^\[autotune\]' | grep -v '^$' |
        grep -v '^autotune: note: world ranks .* share' > "$out.said"
    [ "$(cat "$out.said")" = "autotune: interrupted: $points points done; the same command resumes" ] ||
        fail "not the one line: $(cat "$out.said")"
    [ -e "$(dirname "$journal")/lock" ] && fail "the interrupted sweep left its lock"
    interrupted_points=$points
}
# A sweep of $tmp/NAME.cfg under smpirun on NP ranks of $tmp/hosts
# (`host:K` lines) and $platform, from $tmp: smpirun leaves its unrolled
# hostfile where it runs when the run fails (killed or refused).
smpi_hosts_sweep() { # NP NAME [autotune args]
    local np=$1 name=$2 top=$PWD; shift 2
    (cd "$tmp" && smpirun -np "$np" -hostfile "$tmp/hosts" -platform "$top/$platform" \
        --cfg=smpi/simulate-computation:no --log=root.thres:critical \
        "$top/build/autotune-smpi" -c "$tmp/$name.cfg" "$@")
}
# The measured time of a search's choice at each point of RUN (its
# optimal.csv), from the exhaustive sweep EXH's measurements, against EXH's
# optimum: prints "N points, max penalty P % (where)"; succeeds if some
# point was compared and no penalty is above MAX (a fraction).
max_penalty() { # EXH RUN MAX
    awk -F, -v most="$3" '
        FNR == 1 { f++ }
        f == 1 && FNR > 1 { t[$1","$2","$3","$4","$5","$6] = $8 }
        f == 2 && FNR > 1 { best[$1","$2","$3","$4] = $7 }
        f == 3 && FNR > 1 {
            k = $1","$2","$3","$4
            p = (t[k","$5","$6] - best[k]) / best[k]
            n++; if (p > max) { max = p; at = k" "$5"/"$6 }
        }
        END { printf "%d points, max penalty %.2f %% (%s)\n", n, 100 * max, at; exit !(n > 0 && max <= most) }
    ' "$1/measurements.csv" "$1/optimal.csv" "$2/optimal.csv"
}
