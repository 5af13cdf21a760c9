/* The decision table the library exporters share: per collective, blocks of
 * rules by communicator size, each block's rules by the library's message
 * key, starting at 0 and merged where the decision is the same. Private to
 * store/. */
#ifndef STORE_RULES_H
#define STORE_RULES_H

#include <stddef.h>

#include "store/export.h"
#include "store/libraries.h"

struct rule {
    long msg_min; /* library's message key where the rule starts */
    int alg;      /* Open MPI's number; 0 = its fixed decision */
    int faninout, segsize, max_requests;
    const struct mpich_alg *mpich; /* MPICH's; NULL = the default */
    int line; /* source line of the first row merged into it */
    /* The communicator size the library multiplies the block bytes by to
     * get its key (the row's); 0 where the key does not scale, and in the
     * table rules_build returns (each block's keys are then its own). */
    int key_procs;
};

struct block {
    int procs; /* from this communicator size to the next block's */
    int n;
    struct rule *rules;
};

struct coll_rules {
    const char *collective; /* ours */
    int n;
    struct block *blocks;
};

struct rule_set {
    int n;
    struct coll_rules *colls;
};

/* Maps one optimal row to a rule: fills r (and r->msg_min with the library's
 * key for m->msg_bytes). Returns 0 when mapped; 1 when the method has no
 * counterpart, with why filled and r set to the library's own decision;
 * 2 when r holds another method than the row's, why saying which and why;
 * -1 when the collective has none, with why filled. */
/* Where a rule's row is, for a warning: "source:line", or "source" when
 * ctx->is_lineless. Returns buf. */
const char *rules_where(const struct export_context *ctx, int line, char *buf,
                        size_t size);

/* " ppn=N" for a row of another ranks per node than 1, "" for one rank per
 * node (warnings read as before ranks per node were tuned). Returns buf. */
const char *rules_ppn_label(const struct measurement *m, char *buf,
                            size_t size);

typedef int (*rule_map_fn)(const struct measurement *m,
                           const struct export_context *ctx, struct rule *r,
                           char *why, size_t why_size);

/* Builds the table (sorted by collective, procs, key) of the rows
 * ctx->ppn keeps (export_keeps: every row, or one ranks per node's); every
 * row that could
 * not be mapped is reported on ctx->warn with fallback (what runs instead).
 * The cut rule: a rule starts just above the key of the cut below its row
 * (ctx->msg_cuts), else the previous measured key (the first at 0); an
 * insert (ctx->inserts) is a rule of its own from just above its cut; a
 * block just above its procs cut (ctx->procs_cuts), else the previous
 * measured size; blocks of the library's decision cover
 * the sizes below and above the measured ones. Where the library's key
 * scales with the communicator size (key_procs), a block that covers
 * several sizes becomes one block per size, its keys scaled to that size,
 * so that every size cuts the block bytes where the decision does. *set
 * is caller-frees with rules_destroy. */
int rules_build(const struct measurement *rows, size_t n,
                const struct export_context *ctx, rule_map_fn map,
                const char *fallback, struct rule_set *set);
void rules_destroy(struct rule_set *set);
/* Block b's largest communicator size, or -1 for no limit. */
int rules_block_max(const struct coll_rules *c, int b);
/* Rule r's largest key in block b, or -1 for no limit. */
long rules_msg_max(const struct block *b, int r);

#endif
