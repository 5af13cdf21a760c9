# Sourced by the shell tests: they run from the top of the tree, with a
# temporary directory $tmp removed at exit (kept when KEEP is set), and
# fail() counting failures that the test reports at its end.
cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 1
tmp=$(mktemp -d)
trap '[ -n "${KEEP:-}" ] || rm -rf "$tmp"' EXIT
fails=0
fail() {
    echo "FAIL: $*"
    fails=$((fails + 1))
}
