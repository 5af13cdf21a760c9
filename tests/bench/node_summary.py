# Per collective of a node-aware sweep (measurements.csv files): the best
# node-aware method over the best flat one (median, max, sizes it wins)
# and the tuned choice over the library default (median, min).
#   python3 tests/bench/node_summary.py RUN/measurements.csv ...
import csv, sys, statistics as st
for path in sys.argv[1:]:
    nb, fb, de = {}, {}, {}
    for r in csv.DictReader(open(path)):
        k = (r['collective'], int(r['msg_bytes'])); t = float(r['mean_us'])
        a = r['algorithm']
        d = de if a == 'default' else nb if a.startswith('node') else fb
        if k not in d or t < d[k]: d[k] = t
    print(path)
    for c in sorted({k[0] for k in fb}):
        ks = [k for k in fb if k[0] == c and k in nb and k in de]
        r = [fb[k] / nb[k] for k in ks]; s = [de[k] / min(nb[k], fb[k]) for k in ks]
        print(f"  {c:10s} sizes {len(ks):2d}  node-aware over best flat: median {st.median(r):.2f}x, max {max(r):.2f}x, wins at {sum(x > 1 for x in r)}; tuned over default: median {st.median(s):.2f}x, min {min(s):.2f}x")
