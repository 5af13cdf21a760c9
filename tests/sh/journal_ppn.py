#!/usr/bin/env python3
"""Joins per-ranks-per-node journals into one journal of several ranks per
node: each input's m and p lines are re-written with the given ppn after
procs (a line that already has one keeps its other fields), each with its
CRC32 (store/journal.c). The header and settings are the first input's.

usage: journal_ppn.py OUT PPN:JOURNAL [PPN:JOURNAL ...] [--collectives a,b]
"""
import sys
import zlib


def line(payload):
    return "%s *%08x\n" % (payload, zlib.crc32(payload.encode()) & 0xFFFFFFFF)


def payload_of(text, where):
    body, star, crc = text.rstrip("\n").rpartition(" *")
    if not star or int(crc, 16) != zlib.crc32(body.encode()) & 0xFFFFFFFF:
        sys.exit("%s: bad checksum" % where)
    return body


def with_ppn(body, ppn):
    f = body.split(" ")
    # old lines: m coll procs msg alg ... (14 fields) / p coll procs msg
    # strategy alg seg (7 fields); new ones have ppn after procs
    has_ppn = len(f) == (15 if f[0] == "m" else 8)
    if has_ppn:
        f[3] = str(ppn)
    else:
        f.insert(3, str(ppn))
    if int(f[2]) % ppn:
        sys.exit("ppn %d does not divide procs %s" % (ppn, f[2]))
    return " ".join(f)


def main(argv):
    colls = None
    if "--collectives" in argv:
        k = argv.index("--collectives")
        colls = set(argv[k + 1].split(","))
        del argv[k:k + 2]
    if len(argv) < 3:
        sys.exit(__doc__)
    head, body, points = [], [], 0
    for i, spec in enumerate(argv[2:]):
        ppn, path = spec.split(":", 1)
        ppn = int(ppn)
        with open(path) as f:
            for n, text in enumerate(f, 1):
                p = payload_of(text, "%s:%d" % (path, n))
                kind = p.split(" ", 1)[0]
                if kind in ("m", "p"):
                    if colls is None or p.split(" ")[1] in colls:
                        body.append(line(with_ppn(p, ppn)))
                        points += kind == "p"
                elif kind != "grid" and i == 0:
                    head.append(line(p))
    with open(argv[1], "w") as out:
        out.writelines(head + [line("grid %d" % points)] + body)


main(sys.argv)
