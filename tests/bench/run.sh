#!/usr/bin/env bash
# `make bench`: every benchmark, each writing its figures under results/bench/.
set -eu
cd "$(dirname "$0")/../.."
tests/bench/search.sh "${BENCH_SCALE:-wide}"
tests/bench/default.sh two
tests/bench/default.sh all
