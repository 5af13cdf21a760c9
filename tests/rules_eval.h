/* What Open MPI and MPICH would run with an exported file, for tests:
 * Open MPI's classic rules file as store/ompi_eval.h applies it, and
 * MPICH's selection JSON walked as csel.c walks it (first condition that
 * holds). */
#ifndef TESTS_RULES_EVAL_H
#define TESTS_RULES_EVAL_H

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "store/export.h"
#include "store/json.h"
#include "store/libraries.h"
#include "store/ompi_eval.h"
#include "tests/check.h"

/* The call MPICH's conditions are asked about: built-in commutative op,
 * not in place, count as given, on a communicator with or without node
 * hierarchy. */
struct mpich_call {
    int procs;
    long avg_bytes, total_bytes, count;
    int is_hierarchical;
    int nodes; /* MPICH's count of the nodes (0: one rank on each) */
};

static inline int mpich_eval_is_pow2(long v)
{
    return v > 0 && (v & (v - 1)) == 0;
}

static inline long mpich_eval_pof2(long v)
{
    long p = 1;
    while (p * 2 <= v) {
        p *= 2;
    }
    return p;
}

/* Whether condition key holds for the call. */
static inline int mpich_eval_holds(const char *key,
                                   const struct mpich_call *call)
{
    static const struct {
        const char *prefix;
        int is_le;
        int what; /* 0 procs, 1 avg, 2 total */
    } ranges[] = {{"comm_size<=", 1, 0},      {"comm_size<", 0, 0},
                  {"avg_msg_size<=", 1, 1},   {"avg_msg_size<", 0, 1},
                  {"total_msg_size<=", 1, 2}, {"total_msg_size<", 0, 2}};
    size_t len = strlen(key);
    if (len >= 4 && strcmp(key + len - 4, "=any") == 0) {
        return 1;
    }
    for (size_t i = 0; i < sizeof ranges / sizeof ranges[0]; i++) {
        size_t n = strlen(ranges[i].prefix);
        if (strncmp(key, ranges[i].prefix, n) == 0) {
            long limit = atol(key + n);
            long v = ranges[i].what == 0   ? call->procs
                     : ranges[i].what == 1 ? call->avg_bytes
                                           : call->total_bytes;
            return ranges[i].is_le ? v <= limit : v < limit;
        }
    }
    if (strncmp(key, "comm_avg_ppn<=", strlen("comm_avg_ppn<=")) == 0) {
        /* MPICH 4.0: size <= value x nodes */
        long nodes = call->nodes ? call->nodes : call->procs;
        return call->procs <= atol(key + strlen("comm_avg_ppn<=")) * nodes;
    }
    if (strcmp(key, "comm_size=pow2") == 0) {
        return mpich_eval_is_pow2(call->procs);
    }
    if (strcmp(key, "count<pow2") == 0) {
        return call->count < mpich_eval_pof2(call->procs);
    }
    if (strncmp(key, "comm_hierarchy=", strlen("comm_hierarchy=")) == 0) {
        return strcmp(key, "comm_hierarchy=parent") == 0
                   ? call->is_hierarchical
                   : !call->is_hierarchical;
    }
    return strcmp(key, "comm_type=intra") == 0 ||
           strcmp(key, "is_commutative=yes") == 0 ||
           strcmp(key, "is_op_built_in=yes") == 0 ||
           strcmp(key, "is_sendbuf_inplace=no") == 0;
}

/* MPICH's algorithm name for the call (borrowed from root), or NULL. */
static inline const char *mpich_eval_alg(const struct json *root,
                                         const char *mpich_name,
                                         const struct mpich_call *call)
{
    char key[64];
    snprintf(key, sizeof key, "collective=%s", mpich_name);
    const struct json *node = json_get(root, key);
    while (node && node->type == JSON_OBJECT && node->n > 0) {
        if (strncmp(node->keys[0], "algorithm=", 10) == 0) {
            return node->keys[0] + 10;
        }
        const struct json *next = NULL;
        for (int i = 0; i < node->n && !next; i++) {
            if (mpich_eval_holds(node->keys[i], call)) {
                next = node->items[i];
            }
        }
        node = next;
    }
    return NULL;
}

/* An export written to memory (warnings dropped), with the cuts between
 * measured sizes msg_cuts and procs_cuts and the inserts (NULL: none);
 * caller frees, NULL on failure (a failed check). */
static inline char *
export_text(int (*write)(FILE *, const struct measurement *, size_t,
                         const struct export_context *),
            const struct measurement *rows, size_t n, const char *source,
            const long *msg_cuts, const long *procs_cuts,
            const struct export_insert *inserts, size_t n_inserts)
{
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    FILE *warn = fopen("/dev/null", "w");
    /* The decision is the tuned one: reduce rules as tuned (the order of
     * non-commutative operations is tests/unit/test_export.c's). */
    struct export_context ctx = {.source = source,
                                 .backend = "own",
                                 .library = "",
                                 .chain_fanout = 4,
                                 .warn = warn,
                                 .msg_cuts = msg_cuts,
                                 .procs_cuts = procs_cuts,
                                 .inserts = inserts,
                                 .n_inserts = n_inserts,
                                 .assume_commutative = 1};
    int rc = mem && warn ? write(mem, rows, n, &ctx) : -1;
    if (mem) {
        fclose(mem);
    }
    if (warn) {
        fclose(warn);
    }
    CHECK_INT(0, rc);
    if (rc != 0) {
        free(text);
        text = NULL;
    }
    return text;
}

#endif
