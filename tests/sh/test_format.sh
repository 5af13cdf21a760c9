#!/usr/bin/env bash
# Every C source and header is formatted as .clang-format says
# (`make format` fixes it).
set -u
cd "$(dirname "$0")/../.."
command -v clang-format >/dev/null || { echo "clang-format not found (./setup.sh installs it)"; exit 1; }
bad=0
for f in $(git ls-files '*.c' '*.h' 2>/dev/null || find . -name '*.[ch]' -not -path './build/*'); do
    if ! clang-format --dry-run --Werror "$f" >/dev/null 2>&1; then
        echo "not formatted: $f"
        bad=$((bad + 1))
    fi
done
echo "$bad file(s) not formatted"
[ $bad -eq 0 ]
