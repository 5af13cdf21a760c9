# Sourced by the benchmarks: journals of one grid swept in parallel (one
# collective or procs range each) merged into one.

# journal_merge DEST SRC...: appends to DEST (created from the first SRC
# when absent) every record of each SRC that DEST lacks. Complete lines
# only (each ends in its checksum): a sweep may be writing the last one.
# All hold the same settings line; records are keyed, in any order.
journal_merge() {
    local dest=$1 src
    shift
    for src in "$@"; do
        [ -f "$src" ] || continue
        if [ ! -s "$dest" ]; then
            grep -a '\*[0-9a-f]\{8\}$' "$src" > "$dest"
        else
            grep -a '\*[0-9a-f]\{8\}$' "$src" | grep -v -x -F -f "$dest" |
                grep -v '^autotune-journal\|^settings' >> "$dest" || true
        fi
    done
}
