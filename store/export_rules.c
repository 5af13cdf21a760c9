/* Turns the optimal table into the library exporters' decision table: one
 * rule per grid point, keyed as the library keys it, then merged. The cut
 * rule every decision shares: a rule covers the keys above the cut below
 * its point (ctx->msg_cuts; without it the previous measured key) up to
 * the cut above it (the first from 0, the last to any size); a block the
 * communicator sizes above the procs cut below its own (ctx->procs_cuts;
 * without it the previous measured one) up to the next block's, and sizes
 * outside the measured range go to the library. */
#include <stdlib.h>
#include <string.h>

#include "store/rules.h"

struct entry {
    const struct measurement *m;
    struct rule rule;
    long cut_below, procs_cut_below; /* -1: none */
};

static int entry_compare(const void *pa, const void *pb)
{
    const struct entry *a = pa, *b = pb;
    int c = strcmp(a->m->collective, b->m->collective);
    if (c != 0) {
        return c;
    }
    if (a->m->procs != b->m->procs) {
        return a->m->procs < b->m->procs ? -1 : 1;
    }
    if (a->rule.msg_min != b->rule.msg_min) {
        return a->rule.msg_min < b->rule.msg_min ? -1 : 1;
    }
    return a->rule.line < b->rule.line ? -1 : a->rule.line > b->rule.line;
}

static int same_decision(const struct rule *a, const struct rule *b)
{
    return a->alg == b->alg && a->faninout == b->faninout &&
           a->segsize == b->segsize && a->max_requests == b->max_requests &&
           a->mpich == b->mpich;
}

/* Where rule r starts, in the block bytes the decision cuts: its key,
 * unless the key was scaled by a measured communicator size (key_procs),
 * which two blocks of different sizes do not share. */
static long rule_cut(const struct rule *r)
{
    return r->key_procs > 0 && r->msg_min > 0 ? (r->msg_min - 1) / r->key_procs
                                              : r->msg_min;
}

static int same_block(const struct block *a, const struct block *b)
{
    if (a->n != b->n) {
        return 0;
    }
    for (int i = 0; i < a->n; i++) {
        if (rule_cut(&a->rules[i]) != rule_cut(&b->rules[i]) ||
            !same_decision(&a->rules[i], &b->rules[i])) {
            return 0;
        }
    }
    return 1;
}

static int block_add_rule(struct block *b, const struct rule *r)
{
    if (b->n > 0 && same_decision(&b->rules[b->n - 1], r)) {
        return 0; /* the previous rule reaches this key already */
    }
    struct rule *grown = realloc(b->rules, (size_t)(b->n + 1) * sizeof *grown);
    if (!grown) {
        return -1;
    }
    b->rules = grown;
    b->rules[b->n] = *r;
    if (b->n == 0) {
        b->rules[0].msg_min = 0; /* the first rule also covers smaller ones */
    }
    b->n++;
    return 0;
}

static struct block *coll_add_block(struct coll_rules *c, int procs)
{
    struct block *grown =
        realloc(c->blocks, (size_t)(c->n + 1) * sizeof *grown);
    if (!grown) {
        return NULL;
    }
    c->blocks = grown;
    memset(&c->blocks[c->n], 0, sizeof c->blocks[0]);
    c->blocks[c->n].procs = procs;
    return &c->blocks[c->n++];
}

/* Closes the last block: a block equal to the one before adds nothing
 * (the one before reaches its sizes). */
static void coll_close_block(struct coll_rules *c)
{
    struct block *b = &c->blocks[c->n - 1];
    if (c->n > 1 && same_block(&c->blocks[c->n - 2], b)) {
        free(b->rules);
        c->n--;
    }
}

/* A block of the library's own decision from communicator size procs. */
static int coll_add_library(struct coll_rules *c, int procs)
{
    struct rule library = {0};
    struct block *b = coll_add_block(c, procs);
    if (!b || block_add_rule(b, &library) != 0) {
        return -1;
    }
    coll_close_block(c);
    return 0;
}

const char *rules_where(const struct export_context *ctx, int line, char *buf,
                        size_t size)
{
    if (ctx->is_lineless) {
        snprintf(buf, size, "%s", ctx->source);
    } else {
        snprintf(buf, size, "%s:%d", ctx->source, line);
    }
    return buf;
}

static void warn_row(const struct export_context *ctx, const struct entry *e,
                     const char *why, const char *fallback)
{
    char label[STORE_LABEL_MAX], where[4200], ppn[32];
    method_label(label, sizeof label, e->m->algorithm, e->m->segment_bytes);
    fprintf(ctx->warn, "%s: %s P=%d%s m=%ld: %s not exported: %s; %s there\n",
            rules_where(ctx, e->rule.line, where, sizeof where),
            e->m->collective, e->m->procs,
            rules_ppn_label(e->m, ppn, sizeof ppn), e->m->msg_bytes, label, why,
            fallback);
}

const char *rules_ppn_label(const struct measurement *m, char *buf, size_t size)
{
    buf[0] = '\0';
    if (m->ppn != 1) {
        snprintf(buf, size, " ppn=%d", m->ppn);
    }
    return buf;
}

/* Maps every row, then every insert (ctx->inserts: under the line of the
 * row above it); rows of a collective the library lacks are dropped with
 * one line per collective. */
static int map_rows(const struct measurement *rows, size_t n,
                    const struct export_context *ctx, rule_map_fn map,
                    const char *fallback, struct entry *entries, size_t *kept)
{
    char why[512]; /* a replacement says both methods and their times */
    char where[4200];
    const char *skipped = NULL;
    *kept = 0;
    for (size_t i = 0; i < n + ctx->n_inserts; i++) {
        const struct export_insert *in = i < n ? NULL : &ctx->inserts[i - n];
        size_t row = in ? in->above : i;
        struct entry *e = &entries[*kept];
        memset(e, 0, sizeof *e);
        e->m = in ? &in->m : &rows[i];
        if (!export_keeps(ctx, e->m)) {
            continue; /* another ranks per node's rule set */
        }
        e->cut_below = in              ? in->cut_below
                       : ctx->msg_cuts ? ctx->msg_cuts[i]
                                       : -1;
        e->procs_cut_below = !in && ctx->procs_cuts ? ctx->procs_cuts[i] : -1;
        e->rule.line = (int)row + 2;
        int rc = map(e->m, ctx, &e->rule, why, sizeof why);
        e->rule.line = (int)row + 2;
        if (rc < 0 && in) {
            continue; /* its row's collective, said already */
        }
        if (rc < 0) {
            if (!skipped || strcmp(skipped, e->m->collective) != 0) {
                fprintf(ctx->warn, "%s: %s not exported: %s\n",
                        rules_where(ctx, (int)row + 2, where, sizeof where),
                        e->m->collective, why);
            }
            skipped = e->m->collective;
            continue;
        }
        if (rc == 1) {
            warn_row(ctx, e, why, fallback);
        } else if (rc == 2) {
            char ppn[32];
            fprintf(ctx->warn, "%s: %s P=%d%s m=%ld: %s\n",
                    rules_where(ctx, e->rule.line, where, sizeof where),
                    e->m->collective, e->m->procs,
                    rules_ppn_label(e->m, ppn, sizeof ppn), e->m->msg_bytes,
                    why);
        }
        (*kept)++;
    }
    qsort(entries, *kept, sizeof *entries, entry_compare);
    return 0;
}

static int check_duplicate(const struct export_context *ctx,
                           const struct entry *prev, const struct entry *e)
{
    if (strcmp(prev->m->collective, e->m->collective) != 0 ||
        prev->m->procs != e->m->procs || prev->m->ppn != e->m->ppn ||
        prev->rule.msg_min != e->rule.msg_min ||
        same_decision(&prev->rule, &e->rule)) {
        return 0;
    }
    char where[4200], other[64];
    if (ctx->is_lineless) {
        snprintf(other, sizeof other, "the row of %ld B", prev->m->msg_bytes);
    } else {
        snprintf(other, sizeof other, "line %d", prev->rule.line);
    }
    fprintf(stderr,
            "%s: %s P=%d: same library message size %ld as %s with another "
            "method; the library cannot tell them apart\n",
            rules_where(ctx, e->rule.line, where, sizeof where),
            e->m->collective, e->m->procs, e->rule.msg_min, other);
    return -1;
}

/* Where the rule of entry e starts: just above the key of the cut below
 * its row (ctx->msg_cuts, or an insert's), else above the previous
 * measured key. */
static long rule_start(const struct export_context *ctx, rule_map_fn map,
                       const struct entry *prev, const struct entry *e)
{
    long cut = e->cut_below;
    if (cut < prev->m->msg_bytes || cut >= e->m->msg_bytes) {
        return prev->rule.msg_min + 1;
    }
    struct measurement at = *prev->m; /* the library's key of the cut */
    struct rule r = {0};
    char why[256];
    at.msg_bytes = cut;
    map(&at, ctx, &r, why, sizeof why);
    return r.msg_min + 1;
}

/* Where the block of entry e's procs starts: just above the procs cut
 * below it (ctx->procs_cuts), else above the previous measured procs. */
static int block_start(int procs_below, const struct entry *e)
{
    long cut = e->procs_cut_below;
    if (cut < procs_below || cut >= e->m->procs) {
        return procs_below + 1;
    }
    return (int)cut + 1;
}

/* Block b of c, whose keys were computed at key_procs, again for the
 * communicator size procs: each rule's cut (the block bytes just below
 * it) times procs. */
static int scaled_block(const struct block *b, int key_procs, int procs,
                        struct block *out)
{
    out->procs = procs;
    out->n = b->n;
    out->rules = malloc((size_t)b->n * sizeof *out->rules);
    if (!out->rules) {
        return -1;
    }
    for (int r = 0; r < b->n; r++) {
        out->rules[r] = b->rules[r];
        if (r > 0) {
            long cut = (b->rules[r].msg_min - 1) / key_procs;
            out->rules[r].msg_min = cut * procs + 1;
        }
        /* final keys: blocks of two sizes are equal only if these are */
        out->rules[r].key_procs = 0;
    }
    return 0;
}

/* Splits each block of c whose keys scale and that covers several
 * communicator sizes into one block per size (see rules_build). */
static int split_scaled(struct coll_rules *c)
{
    struct coll_rules split = {c->collective, 0, NULL};
    int rc = 0;
    for (int b = 0; b < c->n && rc == 0; b++) {
        struct block *from = &c->blocks[b];
        int key_procs = from->n > 1 ? from->rules[1].key_procs : 0;
        int last = rules_block_max(c, b);
        if (key_procs <= 0 || last < 0) {
            last = from->procs;
        }
        for (int procs = from->procs; procs <= last && rc == 0; procs++) {
            struct block *to = coll_add_block(&split, procs);
            if (!to) {
                rc = -1;
            } else if (key_procs <= 0) {
                *to = *from; /* the rules move to split */
                from->rules = NULL;
            } else if ((rc = scaled_block(from, key_procs, procs, to)) == 0) {
                coll_close_block(&split);
            }
        }
    }
    for (int b = 0; b < c->n; b++) {
        free(c->blocks[b].rules);
    }
    free(c->blocks);
    *c = split;
    return rc;
}

int rules_build(const struct measurement *rows, size_t n,
                const struct export_context *ctx, rule_map_fn map,
                const char *fallback, struct rule_set *set)
{
    int rc = -1;
    size_t kept = 0;
    struct entry *entries =
        calloc(n + ctx->n_inserts ? n + ctx->n_inserts : 1, sizeof *entries);
    memset(set, 0, sizeof *set);
    set->colls = calloc(n ? n : 1, sizeof *set->colls);
    if (!entries || !set->colls) {
        fprintf(stderr, "%s: out of memory\n", ctx->source);
        goto done;
    }
    map_rows(rows, n, ctx, map, fallback, entries, &kept);
    struct coll_rules *c = NULL;
    int procs = 0; /* the measured size of the block being filled */
    for (size_t i = 0; i < kept; i++) {
        const struct entry *e = &entries[i];
        const struct entry *prev = i > 0 ? &entries[i - 1] : NULL;
        if (prev && check_duplicate(ctx, prev, e) != 0) {
            goto done;
        }
        if (!c || strcmp(c->collective, e->m->collective) != 0) {
            if (c && (coll_close_block(c), coll_add_library(c, procs + 1))) {
                goto oom;
            }
            c = &set->colls[set->n++];
            c->collective = e->m->collective;
            if (e->m->procs > 1 && coll_add_library(c, 1) != 0) {
                goto oom; /* below the measured sizes */
            }
            procs = e->m->procs - 1;
        }
        if (c->n == 0 || procs != e->m->procs) {
            coll_close_block(c);
            if (!coll_add_block(c, block_start(procs, e))) {
                goto oom;
            }
            procs = e->m->procs;
            prev = NULL;
        }
        struct rule r = e->rule;
        if (prev) {
            r.msg_min = rule_start(ctx, map, prev, e);
        }
        if (block_add_rule(&c->blocks[c->n - 1], &r) != 0) {
            goto oom;
        }
    }
    if (c && (coll_close_block(c), coll_add_library(c, procs + 1))) {
        goto oom;
    }
    for (int i = 0; i < set->n; i++) {
        if (split_scaled(&set->colls[i]) != 0) {
            goto oom;
        }
    }
    rc = 0;
    goto done;
oom:
    fprintf(stderr, "%s: out of memory\n", ctx->source);
done:
    free(entries);
    if (rc != 0) {
        rules_destroy(set);
    }
    return rc;
}

void rules_destroy(struct rule_set *set)
{
    for (int i = 0; set->colls && i < set->n; i++) {
        for (int b = 0; b < set->colls[i].n; b++) {
            free(set->colls[i].blocks[b].rules);
        }
        free(set->colls[i].blocks);
    }
    free(set->colls);
    memset(set, 0, sizeof *set);
}

int rules_block_max(const struct coll_rules *c, int b)
{
    return b + 1 < c->n ? c->blocks[b + 1].procs - 1 : -1;
}

long rules_msg_max(const struct block *b, int r)
{
    return r + 1 < b->n ? b->rules[r + 1].msg_min - 1 : -1;
}
