#!/usr/bin/env bash
# The parsers' fuzz corpora and crash reproducers (tests/fuzz/) through the
# harnesses built with gcc, ASan and UBSan (build/tests/fuzz/replay_*): no
# crash, leak, undefined behaviour or harness oracle failure. A reproducer
# under tests/fuzz/crashes/<parser>/open/ is a bug reported and not fixed
# yet: it must still fail, and once it passes it moves up a folder. While
# a parser has open bugs, its seeds and corpus are replayed without their
# oracles (FUZZ_SKIP_OPEN=1), as the fuzzer that found the corpus ran.
set -u
. "$(dirname "$0")/lib.sh"
export TMPDIR=$tmp
# libconfig's own leak on a syntax error is suppressed (tests/lsan.supp).
export LSAN_OPTIONS="suppressions=$PWD/tests/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"
for p in config journal c45; do
    bin=build/tests/fuzz/replay_$p
    if [ ! -x "$bin" ]; then
        fail "$bin missing (make tests builds it)"
        continue
    fi
    skip_open=0
    for f in "tests/fuzz/crashes/$p/open"/*; do
        [ -f "$f" ] && skip_open=1
    done
    if ! FUZZ_SKIP_OPEN=$skip_open "$bin" "tests/fuzz/seeds/$p" \
        "tests/fuzz/corpus/$p" >"$tmp/out" 2>&1; then
        fail "$p: a corpus input fails (the last one named below):"
        tail -n 30 "$tmp/out"
        continue
    fi
    echo "ok   $p: $(tail -n 1 "$tmp/out")"
    for f in "tests/fuzz/crashes/$p"/* "tests/fuzz/crashes/$p/open"/*; do
        [ -f "$f" ] || continue
        is_open=0
        [[ "$f" == */open/* ]] && is_open=1
        FUZZ_SKIP_OPEN=0 "$bin" "$f" >"$tmp/out" 2>&1
        rc=$?
        if [ $is_open -eq 0 ] && [ $rc -eq 0 ]; then
            echo "ok   $p: fixed: $f"
        elif [ $is_open -eq 0 ]; then
            fail "$p: $f fails again:"
            tail -n 30 "$tmp/out"
        elif [ $rc -eq 0 ]; then
            fail "$p: $f passes now: move it to tests/fuzz/crashes/$p/"
        else
            echo "ok   $p: still open: $f"
        fi
    done
done
[ "$fails" -eq 0 ] && echo "every corpus and reproducer replayed"
[ "$fails" -eq 0 ]
