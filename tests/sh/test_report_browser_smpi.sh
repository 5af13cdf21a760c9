#!/usr/bin/env bash
# The HTML report in a real browser (headless chromium, no network): parsed
# as strict XHTML without a parser error, every expected figure in the
# rendered DOM, a screenshot that is not blank, no console error and no
# request for anything outside the file.
set -u
. "$(dirname "$0")/lib.sh"
chromium=$(command -v chromium || command -v chromium-browser) ||
    { echo "chromium not found (./setup.sh installs it)"; exit 77; }
. tests/sh/lib_report.sh
browse() { # ARGS...: chromium headless on its own profile, no network
    timeout 120 "$chromium" --headless --no-sandbox --disable-gpu --disable-dev-shm-usage \
        --no-first-run --user-data-dir="$tmp/profile" --hide-scrollbars \
        --disable-background-networking --disable-component-update --disable-sync \
        --proxy-server=127.0.0.1:9 --enable-logging=stderr --v=0 "$@"
}
cp "$tmp/report.html" "$tmp/report.xhtml"
browse --log-net-log="$tmp/net.json" --dump-dom "file://$tmp/report.xhtml" > "$tmp/dom.html" 2> "$tmp/dom.err" ||
    { tail -5 "$tmp/dom.err"; fail "chromium --dump-dom"; }
grep -q "parsererror" "$tmp/dom.html" &&
    fail "chromium's XML parser: $(grep -o 'parsererror.\{0,200\}' "$tmp/dom.html" | head -1)"
for id in map-bcast map-reduce speedup-bcast penalty-bcast-tree_dec penalty-bcast-exact_dec \
    strategy-cost strategy-penalty; do
    grep -q "<figure id=\"$id\"" "$tmp/dom.html" || fail "no figure '$id' in the rendered page"
done
n=$(grep -o '<svg ' "$tmp/dom.html" | wc -l)
[ "$n" -eq "$(grep -o '<svg ' "$tmp/report.html" | wc -l)" ] || fail "$n figures rendered"
browse --window-size=1400,3000 --screenshot="$tmp/shot.png" "file://$tmp/report.html" \
    > "$tmp/shot.out" 2> "$tmp/shot.err" || { tail -5 "$tmp/shot.err"; fail "chromium --screenshot"; }
[ "$(head -c 8 "$tmp/shot.png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] ||
    fail "the screenshot is not a PNG"
# Width and height from the PNG header; a blank page compresses to a few
# KiB, the maps' cells and text do not.
size=$(od -An -tu1 -j16 -N8 "$tmp/shot.png" | awk '{ print $1*2^24+$2*2^16+$3*2^8+$4 "x" $5*2^24+$6*2^16+$7*2^8+$8 }')
[ "$size" = 1400x3000 ] || fail "screenshot is $size"
[ "$(stat -c %s "$tmp/shot.png")" -gt 60000 ] || fail "the screenshot looks blank ($(stat -c %s "$tmp/shot.png") bytes)"
# Every request but the page itself and chromium's own services (time,
# updates, accounts, dictionaries), which it asks for on any page.
grep -o '"url":"[^"]*"' "$tmp/net.json" | sort -u |
    grep -v -E '"url":"(file://'"$tmp"'/report.xhtml|https?://[a-z0-9.]*(google\.com|googleapis\.com|gvt1\.com)/)' > "$tmp/requests"
[ -s "$tmp/requests" ] && fail "the page asked for: $(head -3 "$tmp/requests")"
cat "$tmp/dom.err" "$tmp/shot.err" > "$tmp/browser.err"
grep -E "CONSOLE|Uncaught|Failed to load|ERR_|Not allowed to load" "$tmp/browser.err" &&
    fail "the browser reported errors"
echo "$fails failure(s)"
[ "$fails" -eq 0 ]
