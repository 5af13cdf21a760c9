/* MPICH's collective selection file
 * (MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE): nested conditions tried in
 * order, each list ending in an "=any" catch-all, algorithms as leaves. MPICH
 * reads it instead of its compiled-in file and aborts on anything it does not
 * know, so the file lists every collective and is checked here first with
 * MPICH's rules (csel.c). */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "store/json.h"
#include "store/rules.h"

static const char mpich_fallback[] = "MPICH's own size-based choice applies";

static int mpich_map(const struct measurement *m,
                     const struct export_context *ctx, struct rule *r,
                     char *why, size_t why_size)
{
    (void)ctx;
    const struct mpich_coll *c = mpich_coll_of(m->collective);
    if (!c) {
        snprintf(why, why_size,
                 "MPICH's selection file has no such "
                 "collective");
        return -1;
    }
    r->key_procs = c->msg_key == MPICH_KEY_TOTAL ? m->procs : 0;
    r->msg_min = r->key_procs                  ? m->msg_bytes * r->key_procs
                 : c->msg_key == MPICH_KEY_AVG ? m->msg_bytes
                                               : 0;
    if (strcmp(m->algorithm, STORE_DEFAULT_ALGORITHM) == 0) {
        return 0; /* measured faster than every tuned method: MPICH's own */
    }
    const struct mpich_alg *a = mpich_alg_find(m->collective, m->algorithm);
    if (!a && m->procs == 2 && m->segment_bytes == 0) {
        a = mpich_alg_two_procs(m->collective, m->algorithm);
    }
    if (!a) {
        snprintf(why, why_size, "MPICH has no %s algorithm like it",
                 m->collective);
        return 1;
    }
    if (m->segment_bytes > 0) {
        snprintf(why, why_size, "MPICH's %s takes no segment size", a->name);
        return 1;
    }
    r->mpich = a;
    return 0;
}

static void indent(FILE *out, int depth)
{
    fprintf(out, "%*s", 2 * depth, "");
}

/* The length of the k-th space-separated word of a case line, at *word;
 * 0 past the last. */
static size_t case_word(const char *line, int k, const char **word)
{
    const char *w = line;
    for (int i = 0; i < k && w; i++) {
        w = strchr(w, ' ');
        w = w ? w + 1 : NULL;
    }
    *word = w;
    return w ? strcspn(w, " ") : 0;
}

/* Cases lo..hi-1, which share their first k words: one object of their
 * k-th words, in order, or the algorithm where the k-th word is the last. */
static void write_cases(FILE *out, const char *const *cases, int lo, int hi,
                        int k, int depth)
{
    const char *word;
    size_t len = case_word(cases[lo], k, &word);
    if (!strchr(word, ' ')) {
        fprintf(out, "{ \"algorithm=%s\": {} }", word);
        return;
    }
    fprintf(out, "{\n");
    for (int i = lo; i < hi;) {
        int j = i + 1;
        const char *other;
        while (j < hi && case_word(cases[j], k, &other) == len &&
               strncmp(word, other, len) == 0) {
            j++;
        }
        indent(out, depth + 1);
        fprintf(out, "\"%.*s\": ", (int)len, word);
        write_cases(out, cases, i, j, k + 1, depth + 1);
        fprintf(out, "%s\n", j < hi ? "," : "");
        i = j;
        if (i < hi) {
            len = case_word(cases[i], k, &word);
        }
    }
    indent(out, depth);
    fprintf(out, "}");
}

/* MPICH's own choice for the call: its size-based selection for the
 * collectives we tune; for the others one algorithm (or, with MPI_IN_PLACE
 * handled apart, a choice of two). */
static void write_default(FILE *out, const struct mpich_coll *c, int depth)
{
    const char *const *cases = mpich_default_cases(c);
    if (cases) {
        int n = 0;
        while (cases[n]) {
            n++;
        }
        write_cases(out, cases, 0, n, 0, depth);
        return;
    }
    if (!c->intra_inplace) {
        fprintf(out, "{ \"algorithm=%s\": {} }", c->intra);
        return;
    }
    fprintf(out, "{\n");
    indent(out, depth + 1);
    fprintf(out, "\"is_sendbuf_inplace=yes\": { \"algorithm=%s\": {} },\n",
            c->intra_inplace);
    indent(out, depth + 1);
    fprintf(out, "\"is_sendbuf_inplace=no\": { \"algorithm=%s\": {} }\n",
            c->intra);
    indent(out, depth);
    fprintf(out, "}");
}

/* Where MPICH's algorithm may not run, a condition sends the call to the
 * default instead; the first listed is written outermost. */
static const struct {
    unsigned restriction;
    const char *first, *second; /* the two cases, in the file's order */
    int is_first_ours;          /* the first case runs MPICH's algorithm */
} guards[] = {
    {MPICH_TWO_PROCS, "comm_size<3", "comm_size=any", 1},
    {MPICH_NOT_IN_PLACE, "is_sendbuf_inplace=no", "is_sendbuf_inplace=yes", 1},
    {MPICH_POW2_PROCS, "comm_size=pow2", "comm_size=any", 1},
    {MPICH_BUILTIN_OP, "is_op_built_in=yes", "is_op_built_in=no", 1},
    {MPICH_COUNT_GE_POF2, "count<pow2", "count=any", 0},
};

static void write_leaf(FILE *out, const struct mpich_coll *c,
                       const struct mpich_alg *a, unsigned remaining, int depth)
{
    if (!a) {
        write_default(out, c, depth);
        return;
    }
    for (size_t g = 0; g < sizeof guards / sizeof guards[0]; g++) {
        if (!(remaining & guards[g].restriction)) {
            continue;
        }
        fprintf(out, "{\n");
        for (int k = 0; k < 2; k++) {
            int is_ours =
                k ? !guards[g].is_first_ours : guards[g].is_first_ours;
            indent(out, depth + 1);
            fprintf(out, "\"%s\": ", k ? guards[g].second : guards[g].first);
            if (is_ours) {
                write_leaf(out, c, a, remaining & ~guards[g].restriction,
                           depth + 1);
            } else {
                write_default(out, c, depth + 1);
            }
            fprintf(out, "%s\n", k == 0 ? "," : "");
        }
        indent(out, depth);
        fprintf(out, "}");
        return;
    }
    fprintf(out, "{ \"algorithm=%s\": {} }", a->name);
}

static const char *msg_key_name(enum mpich_msg_key key)
{
    return key == MPICH_KEY_TOTAL ? "total_msg_size" : "avg_msg_size";
}

/* *is_warned: the collective's blocks share one warning (a block split
 * per communicator size would repeat it at every size). */
static void write_block(FILE *out, const struct mpich_coll *c,
                        const struct block *b, const struct export_context *ctx,
                        int depth, int *is_warned)
{
    int n = b->n;
    /* MPICH reads the sizes with atoi: breakpoints past INT_MAX cannot be
     * written, the rule before them covers the rest (rules ascend). */
    for (int r = 1; r < n; r++) {
        if (b->rules[r].msg_min > INT_MAX) {
            if (!*is_warned) {
                char where[4200];
                fprintf(ctx->warn,
                        "%s: %s P=%d: message sizes from %ld on are past "
                        "what MPICH reads (int); the rule before covers "
                        "them (here and at any other communicator size)\n",
                        rules_where(ctx, b->rules[r].line, where, sizeof where),
                        c->name, b->procs, b->rules[r].msg_min);
                *is_warned = 1;
            }
            n = r;
            break;
        }
    }
    if (c->msg_key == MPICH_KEY_NONE || n == 1) {
        write_leaf(out, c, b->rules[0].mpich,
                   b->rules[0].mpich ? b->rules[0].mpich->restrictions : 0,
                   depth);
        return;
    }
    fprintf(out, "{\n");
    for (int r = 0; r < n; r++) {
        indent(out, depth + 1);
        if (r + 1 < n) {
            fprintf(out, "\"%s<%ld\": ", msg_key_name(c->msg_key),
                    b->rules[r + 1].msg_min);
        } else {
            fprintf(out, "\"%s=any\": ", msg_key_name(c->msg_key));
        }
        const struct mpich_alg *a = b->rules[r].mpich;
        write_leaf(out, c, a, a ? a->restrictions : 0, depth + 1);
        fprintf(out, "%s\n", r + 1 < n ? "," : "");
    }
    indent(out, depth);
    fprintf(out, "}");
}

/* The block of c that covers communicator size procs; NULL where it is
 * MPICH's own choice (c NULL: at every size). */
static const struct block *block_at(const struct coll_rules *c, int procs)
{
    if (!c) {
        return NULL;
    }
    int b = 0;
    while (b + 1 < c->n && c->blocks[b + 1].procs <= procs) {
        b++;
    }
    const struct block *at = &c->blocks[b];
    return at->n == 1 && !at->rules[0].mpich ? NULL : at;
}

static int same_rules(const struct block *a, const struct block *b)
{
    if (a == b) {
        return 1;
    }
    if (!a || !b || a->n != b->n) {
        return 0;
    }
    for (int r = 0; r < a->n; r++) {
        if (a->rules[r].msg_min != b->rules[r].msg_min ||
            a->rules[r].mpich != b->rules[r].mpich) {
            return 0;
        }
    }
    return 1;
}

static void write_block_or_default(FILE *out, const struct mpich_coll *c,
                                   const struct block *b,
                                   const struct export_context *ctx, int depth,
                                   int *is_warned)
{
    if (b) {
        write_block(out, c, b, ctx, depth, is_warned);
    } else {
        write_default(out, c, depth);
    }
}

/* The rules of one communicator-size range, blocks[k] those of ppn[k]
 * ranks per node (ascending): one block where they agree, else one case
 * per ranks per node, "comm_avg_ppn<=N" (MPICH 4.0 knows no other
 * ranks-per-node key): an average between two tuned values takes the
 * larger one's rules, above the largest the largest one's. */
static void write_ppn_cases(FILE *out, const struct mpich_coll *c,
                            const struct block *const *blocks, const int *ppn,
                            int n_ppn, const struct export_context *ctx,
                            int depth, int *is_warned)
{
    int is_same = 1;
    for (int k = 1; k < n_ppn; k++) {
        is_same &= same_rules(blocks[0], blocks[k]);
    }
    if (is_same) {
        write_block_or_default(out, c, blocks[0], ctx, depth, is_warned);
        return;
    }
    fprintf(out, "{\n");
    for (int k = 0; k < n_ppn; k++) {
        if (k + 1 < n_ppn && same_rules(blocks[k], blocks[k + 1])) {
            continue; /* the next case's "<=" covers this one's */
        }
        indent(out, depth + 1);
        if (k + 1 < n_ppn) {
            fprintf(out, "\"comm_avg_ppn<=%d\": ", ppn[k]);
        } else {
            /* MPICH 4.0 reads "comm_avg_ppn=any" as an unknown key */
            fprintf(out, "\"comm_size=any\": ");
        }
        write_block_or_default(out, c, blocks[k], ctx, depth + 1, is_warned);
        fprintf(out, "%s\n", k + 1 < n_ppn ? "," : "");
    }
    indent(out, depth);
    fprintf(out, "}");
}

/* tuned[k]: the collective's rules at ppn[k] ranks per node (NULL: none).
 * The communicator sizes are cut where any ranks per node's rules change,
 * and at each size the ranks per node tell the rules apart. */
static int write_intra(FILE *out, const struct mpich_coll *c,
                       const struct coll_rules *const *tuned, const int *ppn,
                       int n_ppn, const struct export_context *ctx, int depth)
{
    int n_starts = 0, is_tuned = 0;
    for (int k = 0; k < n_ppn; k++) {
        n_starts += tuned[k] ? tuned[k]->n : 0;
        is_tuned |= tuned[k] != NULL;
    }
    if (!is_tuned) {
        write_default(out, c, depth);
        return 0;
    }
    /* the sizes where a block starts, ascending, those where no ranks per
     * node's block changes dropped */
    int *starts = malloc((size_t)n_starts * sizeof *starts);
    const struct block **at = malloc((size_t)n_ppn * 2 * sizeof *at);
    if (!starts || !at) {
        free(starts);
        free(at);
        fprintf(stderr, "%s: out of memory\n", ctx->source);
        return -1;
    }
    int n = 0;
    for (int last = 0;; n++) { /* each set's blocks ascend: merge them */
        int next = INT_MAX;
        for (int k = 0; k < n_ppn; k++) {
            for (int b = 0; tuned[k] && b < tuned[k]->n; b++) {
                int procs = tuned[k]->blocks[b].procs;
                next = procs > last && procs < next ? procs : next;
            }
        }
        if (next == INT_MAX) {
            break;
        }
        starts[n] = last = next;
    }
    const struct block **cur = at, **next = at + n_ppn;
    int kept = 0;
    for (int i = 0; i < n; i++) {
        int is_changed = i == 0;
        for (int k = 0; k < n_ppn; k++) {
            next[k] = block_at(tuned[k], starts[i]);
            is_changed |= i > 0 && next[k] != cur[k];
        }
        if (is_changed) {
            starts[kept++] = starts[i];
            memcpy(cur, next, (size_t)n_ppn * sizeof *cur);
        }
    }
    int is_warned = 0;
    fprintf(out, "{\n");
    for (int i = 0; i < kept; i++) {
        for (int k = 0; k < n_ppn; k++) {
            cur[k] = block_at(tuned[k], starts[i]);
        }
        indent(out, depth + 1);
        if (i + 1 < kept) {
            fprintf(out, "\"comm_size<%d\": ", starts[i + 1]);
        } else {
            fprintf(out, "\"comm_size=any\": ");
        }
        write_ppn_cases(out, c, cur, ppn, n_ppn, ctx, depth + 1, &is_warned);
        fprintf(out, "%s\n", i + 1 < kept ? "," : "");
    }
    indent(out, depth);
    fprintf(out, "}");
    free(starts);
    free(at);
    return 0;
}

/* One rule set per ranks per node of the table (or ctx->ppn's alone):
 * the file keys the rules on MPICH's average ranks per node only where
 * they differ, so a table of one ranks per node reads as before it was
 * tuned (its rules apply at every ranks per node). */
int export_mpich(FILE *out, const struct measurement *rows, size_t n,
                 const struct export_context *ctx)
{
    int *ppn = NULL, n_ppn = 0, n_built = 0, rc = -1;
    struct rule_set *sets = NULL;
    const struct coll_rules **tuned = NULL;
    if (export_ppn_values(rows, n, ctx, 0, &ppn, &n_ppn) != 0) {
        goto oom;
    }
    if ((ctx->ppn > 0 || (n_ppn == 1 && ppn[0] > 1))) {
        fprintf(ctx->warn,
                "note: mpich rules of %d ranks per node%s: MPICH applies "
                "them at every ranks per node\n",
                ctx->ppn > 0 ? ctx->ppn : ppn[0], n_ppn > 1 ? " (--ppn)" : "");
    }
    if (ctx->ppn || n_ppn == 0) {
        ppn[0] = ctx->ppn;
        n_ppn = 1;
    }
    sets = calloc((size_t)n_ppn, sizeof *sets);
    tuned = calloc((size_t)n_ppn, sizeof *tuned);
    if (!sets || !tuned) {
        goto oom;
    }
    for (; n_built < n_ppn; n_built++) {
        struct export_context one = *ctx;
        one.ppn = n_ppn > 1 ? ppn[n_built] : ctx->ppn;
        if (rules_build(rows, n, &one, mpich_map, mpich_fallback,
                        &sets[n_built]) != 0) {
            goto done;
        }
    }
    fprintf(out, "{\n");
    for (int i = 0; i < mpich_colls_size; i++) {
        const struct mpich_coll *c = &mpich_colls[i];
        for (int k = 0; k < n_ppn; k++) {
            tuned[k] = NULL;
            for (int j = 0; j < sets[k].n && c->collective; j++) {
                if (strcmp(sets[k].colls[j].collective, c->collective) == 0) {
                    tuned[k] = &sets[k].colls[j];
                }
            }
        }
        fprintf(out,
                "  \"collective=%s\": {\n    \"comm_type=intra\": ", c->name);
        if (write_intra(out, c, tuned, ppn, n_ppn, ctx, 2) != 0) {
            goto done;
        }
        if (c->inter) {
            fprintf(out, ",\n    \"comm_type=inter\": { \"algorithm=%s\": {} }",
                    c->inter);
        }
        fprintf(out, "\n  }%s\n", i + 1 < mpich_colls_size ? "," : "");
    }
    fprintf(out, "}\n");
    rc = ferror(out) ? -1 : 0;
    goto done;
oom:
    fprintf(stderr, "%s: out of memory\n", ctx->source);
done:
    for (int k = 0; k < n_built; k++) {
        rules_destroy(&sets[k]);
    }
    free(sets);
    free(tuned);
    free(ppn);
    return rc;
}

/* The conditions MPICH 4.0 knows (csel.c) that the file may use, and the
 * collectives for which MPICH can evaluate them (it aborts otherwise). */
enum cond_kind { COND_ANY, COND_BOOL, COND_RANGE };
static const struct {
    const char *key; /* exact key, or prefix followed by a number */
    int has_number;
    enum cond_kind kind;
    const char *colls; /* space-separated; NULL = every collective */
} conds[] = {
    {"comm_type=intra", 0, COND_BOOL, NULL},
    {"comm_type=inter", 0, COND_BOOL, NULL},
    {"comm_size<=", 1, COND_RANGE, NULL},
    {"comm_size<", 1, COND_RANGE, NULL},
    {"comm_size=pow2", 0, COND_RANGE, NULL},
    {"comm_hierarchy=parent", 0, COND_RANGE, NULL},
    {"comm_avg_ppn<=", 1, COND_RANGE, NULL},
    {"avg_msg_size<=", 1, COND_RANGE,
     " allreduce iallreduce bcast ibcast reduce ireduce alltoall ialltoall "},
    {"avg_msg_size<", 1, COND_RANGE,
     " allreduce iallreduce bcast ibcast reduce ireduce alltoall ialltoall "},
    {"total_msg_size<=", 1, COND_RANGE,
     " allreduce bcast reduce alltoall allgather gather scatter "},
    {"total_msg_size<", 1, COND_RANGE,
     " allreduce bcast reduce alltoall allgather gather scatter "},
    {"count<pow2", 0, COND_RANGE, " allreduce iallreduce reduce ireduce "},
    {"is_op_built_in=yes", 0, COND_BOOL,
     " allreduce iallreduce reduce ireduce "},
    {"is_op_built_in=no", 0, COND_BOOL,
     " allreduce iallreduce reduce ireduce "},
    {"is_commutative=yes", 0, COND_BOOL,
     " allreduce iallreduce reduce ireduce reduce_scatter ireduce_scatter "
     "reduce_scatter_block ireduce_scatter_block "},
    {"is_commutative=no", 0, COND_BOOL,
     " allreduce iallreduce reduce ireduce reduce_scatter ireduce_scatter "
     "reduce_scatter_block ireduce_scatter_block "},
    {"is_sendbuf_inplace=yes", 0, COND_BOOL,
     " alltoall ialltoall alltoallv ialltoallv alltoallw ialltoallw "},
    {"is_sendbuf_inplace=no", 0, COND_BOOL,
     " alltoall ialltoall alltoallv ialltoallv alltoallw ialltoallw "},
};

struct mpich_check {
    const char *what;
    const struct mpich_coll *coll;
    const char *comm_type; /* "intra", "inter" or NULL above comm_type */
};

static int check_list(const struct mpich_check *ck, const struct json *obj);

static int check_leaf(const struct mpich_check *ck, const struct json *obj)
{
    const char *name = obj->keys[0] + strlen("algorithm=");
    char kind[16];
    snprintf(kind, sizeof kind, "_%s_", ck->comm_type ? ck->comm_type : "");
    if (obj->n != 1 || obj->items[0]->type != JSON_OBJECT ||
        obj->items[0]->n != 0) {
        fprintf(stderr,
                "%s:%d: an algorithm must stand alone, with no parameters\n",
                ck->what, obj->line);
        return -1;
    }
    if (!mpich_alg_exists(ck->coll, name) ||
        (!strstr(name, kind) && !strstr(name, "_allcomm_"))) {
        fprintf(stderr, "%s:%d: %s is not a %s%s algorithm MPICH 4.0 has\n",
                ck->what, obj->items[0]->line, name, ck->coll->name,
                ck->comm_type && strcmp(ck->comm_type, "inter") == 0
                    ? " inter-communicator"
                    : "");
        return -1;
    }
    return 0;
}

static int cond_find(const struct mpich_check *ck, const char *key, int line)
{
    /* MPICH 4.0 knows these "=any" keys only (4.1 on, any "X=any") */
    static const char *const anys[] = {"comm_size=any", "avg_msg_size=any",
                                       "total_msg_size=any", "count=any",
                                       "comm_hierarchy=any"};
    for (size_t i = 0; i < sizeof anys / sizeof anys[0]; i++) {
        if (strcmp(key, anys[i]) == 0) {
            return -2;
        }
    }
    for (size_t i = 0; i < sizeof conds / sizeof conds[0]; i++) {
        size_t klen = strlen(conds[i].key);
        if (strncmp(key, conds[i].key, klen) != 0 ||
            (!conds[i].has_number && key[klen] != '\0')) {
            continue;
        }
        char *stop;
        long v = conds[i].has_number ? strtol(key + klen, &stop, 10) : 0;
        if (conds[i].has_number &&
            (stop == key + klen || *stop || v < 0 || v > INT_MAX)) {
            fprintf(stderr, "%s:%d: \"%s\": the number must be 0..%d\n",
                    ck->what, line, key, INT_MAX);
            return -1;
        }
        char name[40];
        snprintf(name, sizeof name, " %s ", ck->coll->name);
        if (conds[i].colls && !strstr(conds[i].colls, name)) {
            fprintf(stderr,
                    "%s:%d: \"%s\": MPICH cannot evaluate it for %s and "
                    "aborts\n",
                    ck->what, line, key, ck->coll->name);
            return -1;
        }
        return (int)i;
    }
    fprintf(stderr, "%s:%d: \"%s\": MPICH does not know this key and aborts\n",
            ck->what, line, key);
    return -1;
}

/* Siblings are tried in order; a condition that can fail needs one after
 * it, "=any" must come last, and a list must decide every call: it ends in
 * "=any" or holds both sides of a yes/no condition. */
static int check_list(const struct mpich_check *ck, const struct json *obj)
{
    if (obj->type != JSON_OBJECT || obj->n == 0) {
        fprintf(stderr, "%s:%d: expected an object of conditions\n", ck->what,
                obj->line);
        return -1;
    }
    if (strncmp(obj->keys[0], "algorithm=", strlen("algorithm=")) == 0) {
        return check_leaf(ck, obj);
    }
    int is_complete = 0;
    for (int i = 0; i < obj->n; i++) {
        const char *key = obj->keys[i];
        int line = obj->items[i]->line;
        int c = cond_find(ck, key, line);
        if (c == -1) {
            return -1;
        }
        if (c == -2 && i + 1 < obj->n) {
            fprintf(stderr, "%s:%d: \"%s\" must be the last of its list\n",
                    ck->what, line, key);
            return -1;
        }
        is_complete |= c == -2;
        if (c >= 0 && conds[c].kind == COND_BOOL) {
            /* yes/no and intra/inter pairs: the other side present */
            const char *eq = strchr(key, '=');
            for (int k = 0; k < obj->n; k++) {
                is_complete |= k != i && strncmp(obj->keys[k], key,
                                                 (size_t)(eq - key + 1)) == 0;
            }
        }
        if (c >= 0 && conds[c].kind == COND_RANGE && i + 1 == obj->n) {
            fprintf(stderr,
                    "%s:%d: \"%s\" needs a following case for when it does "
                    "not hold\n",
                    ck->what, line, key);
            return -1;
        }
        struct mpich_check sub = *ck;
        if (strncmp(key, "comm_type=", strlen("comm_type=")) == 0) {
            sub.comm_type = key + strlen("comm_type=");
        }
        if (!sub.comm_type) {
            fprintf(stderr, "%s:%d: \"%s\" before comm_type\n", ck->what, line,
                    key);
            return -1;
        }
        if (check_list(&sub, obj->items[i]) != 0) {
            return -1;
        }
    }
    int is_intra_only = !ck->comm_type && !ck->coll->inter && obj->n == 1 &&
                        strcmp(obj->keys[0], "comm_type=intra") == 0;
    if (!is_complete && !is_intra_only) {
        fprintf(stderr,
                "%s:%d: %s: some calls match no case (end the list with "
                "\"=any\")\n",
                ck->what, obj->line, ck->coll->name);
        return -1;
    }
    return 0;
}

int export_check_mpich(const char *text, size_t len, const char *what)
{
    struct json *root;
    if (json_parse(text, len, what, &root) != 0) {
        return -1;
    }
    int rc = -1;
    if (root->type != JSON_OBJECT) {
        fprintf(stderr, "%s:1: expected an object of collectives\n", what);
        goto done;
    }
    for (int i = 0; i < root->n; i++) {
        const char *key = root->keys[i];
        const struct mpich_coll *c =
            strncmp(key, "collective=", strlen("collective=")) == 0
                ? mpich_coll_find(key + strlen("collective="))
                : NULL;
        if (!c) {
            fprintf(stderr, "%s:%d: \"%s\" is not a collective MPICH knows\n",
                    what, root->items[i]->line, key);
            goto done;
        }
        struct mpich_check ck = {what, c, NULL};
        if (check_list(&ck, root->items[i]) != 0) {
            goto done;
        }
    }
    for (int i = 0; i < mpich_colls_size; i++) {
        char key[64];
        snprintf(key, sizeof key, "collective=%s", mpich_colls[i].name);
        if (!json_get(root, key)) {
            fprintf(stderr,
                    "%s:1: no \"%s\": MPICH reads only this file and would "
                    "crash on that collective\n",
                    what, key);
            goto done;
        }
    }
    rc = 0;
done:
    json_destroy(root);
    return rc;
}
