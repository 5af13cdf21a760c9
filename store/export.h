/* Exports of the optimal-method table. Adding a format is its writer in a
 * file store/export_<name>.c, declared below, and one row in
 * export_formats[] (decision/export.c, above every writer it names). */
#ifndef STORE_EXPORT_H
#define STORE_EXPORT_H

#include <stddef.h>
#include <stdio.h>

#include "store/journal.h"

/* A method for message sizes strictly between two measured ones that
 * neither of them has: where its interpolated times are below theirs
 * (decision/between.c). Sizes in (cut_below, m.msg_bytes] at m.procs take
 * m's method (m.mean_us -1, reps 0: not timed there). It lies below row
 * `above` of the table (and above that row's msg cut). */
struct export_insert {
    struct measurement m;
    long cut_below;
    size_t above;
};

/* What an exporter needs to know about the run besides its optimal table. */
struct export_context {
    const char *source; /* the file the rows were read from: warnings name it */
    /* 0: rows[i] is line i + 2 of source (an optimal table), and warnings
     * name that line; 1: source's lines are not the rows (a journal's
     * records, predictions reduced to their least per point), and
     * warnings name the row's point only */
    int is_lineless;
    const char *backend; /* "own" (collectives/) or "native" (the library's) */
    const char *library; /* the MPI library the run measured; "" if unknown */
    int chain_fanout;    /* chains of the chain algorithms in the run */
    FILE *warn; /* one line per row that could not be exported, and why */
    /* NULL, or per row the cut below it (between_table_cuts): sizes above
     * the next smaller measured one up to the cut take that one's method;
     * -1: none (the row's own method from just above that size); the same
     * for communicator sizes in procs_cuts */
    const long *msg_cuts, *procs_cuts;
    /* methods between measured sizes that no row has, sorted by row */
    const struct export_insert *inserts;
    size_t n_inserts;
    /* 0: reduce and allreduce rules keep to algorithms that combine the
     * operands of non-commutative operations in rank order (the library's
     * OMPI_RULE_REORDERS ones are replaced); 1: the tuned ones, for
     * programs whose reduction operations all commute */
    int assume_commutative;
    /* the run's measurements.csv (NULL: none): the replacement is the
     * fastest method measured at the point that keeps the order */
    const struct measurement *measured;
    size_t n_measured;
    /* 0: every row (the table holds one ranks per node, or the format keys
     * its rules on it); N: only the rows of N ranks per node (--ppn, or
     * each value in turn where the format keys on it);
     * EXPORT_PPN_SINGLE_NODE: the rows on one node */
    int ppn;
};

/* What a format can say about ranks per node (ppn). */
enum export_ppn {
    EXPORT_PPN_KEYED, /* every value, as a key of its rules; --ppn keeps one */
    EXPORT_PPN_ALL,   /* every value, and no --ppn */
    EXPORT_PPN_ONE,   /* no key: one value per file, --ppn picks it */
    /* one value for every communicator, plus the rules of one rank per
     * node and of ranks all on one node, marked apart */
    EXPORT_PPN_DISTRIBUTIONS,
};

/* Export formats of the optimal-method table, one row per format. rows[i]
 * is line i + 2 of ctx->source unless ctx->is_lineless. */
struct export_format {
    const char *name;
    int (*write)(FILE *out, const struct measurement *rows, size_t n,
                 const struct export_context *ctx);
    /* Reads the written text back with the rules the target library
     * enforces; prints "what: line N: problem" and fails on the first
     * violation. NULL for formats no library loads. */
    int (*check)(const char *text, size_t len, const char *what);
    /* The library whose algorithms the format names ("Open MPI",
     * "MPICH"), NULL for library-neutral formats. */
    const char *library;
    enum export_ppn ppn;
    const char *summary;
};

/* ctx->ppn of the rows whose ranks all share one node (export_is_single_node)
 * of every ranks per node. */
#define EXPORT_PPN_SINGLE_NODE (-1)
/* Whether m's ranks all share one node: procs = ranks per node > 1. */
int export_is_single_node(const struct measurement *m);
/* The distinct ranks-per-node values of rows and ctx->inserts (those on
 * one node left out when is_spread_only), ascending, in *values
 * (caller-frees); -1 out of memory. */
int export_ppn_values(const struct measurement *rows, size_t n,
                      const struct export_context *ctx, int is_spread_only,
                      int **values, int *n_values);
/* Whether row m is one ctx exports (ctx->ppn 0; m's ranks per node; or
 * EXPORT_PPN_SINGLE_NODE and m on one node). */
int export_keeps(const struct export_context *ctx, const struct measurement *m);
/* The formats' writers and checkers, one file per format family:
 * store/export_table.c (csv, json), store/export_ompi.c, store/export_mpich.c.
 */
int export_csv(FILE *out, const struct measurement *rows, size_t n,
               const struct export_context *ctx);
int export_json(FILE *out, const struct measurement *rows, size_t n,
                const struct export_context *ctx);
int export_ompi(FILE *out, const struct measurement *rows, size_t n,
                const struct export_context *ctx);
int export_ompi_v2(FILE *out, const struct measurement *rows, size_t n,
                   const struct export_context *ctx);
int export_ompi_json(FILE *out, const struct measurement *rows, size_t n,
                     const struct export_context *ctx);
int export_check_ompi(const char *text, size_t len, const char *what);
int export_check_ompi_json(const char *text, size_t len, const char *what);
int export_mpich(FILE *out, const struct measurement *rows, size_t n,
                 const struct export_context *ctx);
int export_check_mpich(const char *text, size_t len, const char *what);

#endif
