/* Open MPI coll/tuned dynamic rules: the classic format (4.1, 5.0), its
 * version 2 with max requests (4.1.8+, 5.0.7+) and the JSON format of 6.0,
 * each checked by a reader that applies the rules Open MPI applies, since
 * Open MPI drops a bad file without a word. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "store/json.h"
#include "store/rules.h"

#define OMPI_COLLCOUNT 22        /* COLLCOUNT: collective IDs are below it */
#define OMPI_CLASSIC_RELEASE 401 /* the classic formats target 4.1 and up */
#define OMPI_JSON_RELEASE 600

static const char ompi_fallback[] = "Open MPI's fixed decision applies";

struct ompi_target {
    int release;          /* algorithms from this Open MPI release on */
    int has_max_requests; /* the format carries max requests */
};

/* The rule for m's own method. */
static int ompi_map_method(const struct measurement *m,
                           const struct export_context *ctx, struct rule *r,
                           char *why, size_t why_size,
                           const struct ompi_target *t)
{
    const struct ompi_coll *c = ompi_coll_find(m->collective);
    if (!c) {
        snprintf(why, why_size, "Open MPI's coll/tuned has no rules for it");
        return -1;
    }
    r->key_procs = c->msg_key == OMPI_KEY_BYTES_X_PROCS ? m->procs : 0;
    r->msg_min = c->msg_key == OMPI_KEY_NONE ? 0
                 : r->key_procs              ? m->msg_bytes * r->key_procs
                                             : m->msg_bytes;
    if (strcmp(m->algorithm, STORE_DEFAULT_ALGORITHM) == 0) {
        return 0; /* measured faster than every tuned method: alg 0 */
    }
    const struct ompi_alg *a = ompi_alg_find(m->collective, m->algorithm);
    if (!a) {
        snprintf(why, why_size, "Open MPI has no %s algorithm like it",
                 m->collective);
    } else if (a->since > t->release) {
        snprintf(why, why_size, "Open MPI's %s %d needs Open MPI %d.%d",
                 m->collective, a->number, a->since / 100, a->since % 100);
    } else if (m->segment_bytes > 0 && !a->is_segmented) {
        snprintf(why, why_size, "Open MPI's %s %d takes no segment size",
                 m->collective, a->number);
    } else if (a->max_requests && !t->has_max_requests) {
        snprintf(why, why_size,
                 "it keeps %d requests outstanding, which this format cannot "
                 "say (use ompi-v2, or add --mca "
                 "coll_tuned_alltoall_max_requests %d)",
                 a->max_requests, a->max_requests);
    } else if ((a->rule_flags & OMPI_RULE_TWO_PROCS) && m->procs != 2) {
        snprintf(why, why_size, "Open MPI's runs on 2 ranks only");
    } else {
        r->alg = a->number;
        r->segsize = a->is_segmented ? m->segment_bytes : 0;
        r->faninout =
            (a->rule_flags & OMPI_RULE_FANINOUT) ? ctx->chain_fanout : 0;
        r->max_requests = t->has_max_requests ? a->max_requests : 0;
        return 0;
    }
    return 1;
}

static int is_reordering(const char *collective, int alg)
{
    const struct ompi_alg *a = alg ? ompi_alg_by_number(collective, alg) : NULL;
    return a && (a->rule_flags & OMPI_RULE_REORDERS);
}

/* m's rule r runs an algorithm that reorders the operands of
 * non-commutative operations: r becomes the fastest method measured at m's
 * point whose rule does not (the library's own decision among them, where
 * it was timed), or the library's own decision; why says which and what it
 * costs. */
static void keep_order(const struct measurement *m,
                       const struct export_context *ctx, struct rule *r,
                       char *why, size_t why_size, const struct ompi_target *t)
{
    const struct measurement *best = NULL;
    struct rule best_rule = {0};
    for (size_t i = 0; i < ctx->n_measured; i++) {
        const struct measurement *c = &ctx->measured[i];
        struct rule cr = {0};
        char unused[256];
        if (strcmp(c->collective, m->collective) != 0 || c->procs != m->procs ||
            c->ppn != m->ppn || c->msg_bytes != m->msg_bytes ||
            !c->is_applicable || c->reps <= 0 ||
            ompi_map_method(c, ctx, &cr, unused, sizeof unused, t) != 0 ||
            is_reordering(c->collective, cr.alg) ||
            (best && c->mean_us >= best->mean_us)) {
            continue;
        }
        best = c;
        best_rule = cr;
    }
    char tuned[STORE_LABEL_MAX], safe[STORE_LABEL_MAX + 32];
    method_label(tuned, sizeof tuned, m->algorithm, m->segment_bytes);
    const struct ompi_alg *a = ompi_alg_by_number(m->collective, r->alg);
    r->alg = best_rule.alg;
    r->faninout = best_rule.faninout;
    r->segsize = best_rule.segsize;
    r->max_requests = best_rule.max_requests;
    if (!best || best_rule.alg == 0) {
        snprintf(safe, sizeof safe, "Open MPI's fixed decision");
    } else {
        method_label(safe, sizeof safe, best->algorithm, best->segment_bytes);
    }
    int n = snprintf(why, why_size,
                     "%s exported as %s: Open MPI's %s %d combines the "
                     "operands of non-commutative operations out of rank "
                     "order",
                     tuned, safe, m->collective, a->number);
    if (n < 0 || (size_t)n >= why_size) {
        return;
    }
    if (!best) {
        snprintf(why + n, why_size - (size_t)n,
                 "; no method that keeps it was measured there");
    } else if (m->mean_us > 0) {
        snprintf(why + n, why_size - (size_t)n,
                 "; %.3f us against the tuned %.3f us (%+.1f %%)",
                 best->mean_us, m->mean_us,
                 100.0 * (best->mean_us - m->mean_us) / m->mean_us);
    }
}

static int ompi_map(const struct measurement *m,
                    const struct export_context *ctx, struct rule *r, char *why,
                    size_t why_size, const struct ompi_target *t)
{
    int rc = ompi_map_method(m, ctx, r, why, why_size, t);
    if (rc != 0 || ctx->assume_commutative ||
        !is_reordering(m->collective, r->alg)) {
        return rc;
    }
    keep_order(m, ctx, r, why, why_size, t);
    return 2;
}

static const struct ompi_target classic_target = {OMPI_CLASSIC_RELEASE, 0};
static const struct ompi_target classic_v2_target = {OMPI_CLASSIC_RELEASE, 1};
static const struct ompi_target json_target = {OMPI_JSON_RELEASE, 1};

static int map_classic(const struct measurement *m,
                       const struct export_context *ctx, struct rule *r,
                       char *why, size_t why_size)
{
    return ompi_map(m, ctx, r, why, why_size, &classic_target);
}

static int map_classic_v2(const struct measurement *m,
                          const struct export_context *ctx, struct rule *r,
                          char *why, size_t why_size)
{
    return ompi_map(m, ctx, r, why, why_size, &classic_v2_target);
}

static int map_json(const struct measurement *m,
                    const struct export_context *ctx, struct rule *r, char *why,
                    size_t why_size)
{
    return ompi_map(m, ctx, r, why, why_size, &json_target);
}

/* What a loaded file changes about results, on stderr once per export
 * (of its n_sets rule sets, ctxs[k] the rows of sets[k]):
 * the rows whose tuned algorithm would reorder the operands of
 * non-commutative operations, and the collectives whose forced algorithms
 * split a message by each rank's own count and datatype. */
static void ompi_notes(const struct rule_set *sets,
                       const struct export_context *ctxs, int n_sets,
                       const struct measurement *rows, size_t n,
                       const struct ompi_target *t)
{
    const struct export_context *ctx = &ctxs[0];
    int n_reordering = 0, is_splitting = 0;
    for (size_t i = 0; i < n + ctx->n_inserts; i++) {
        const struct measurement *m = i < n ? &rows[i] : &ctx->inserts[i - n].m;
        struct rule r = {0};
        char why[256];
        int is_kept = 0;
        for (int k = 0; k < n_sets; k++) {
            is_kept |= export_keeps(&ctxs[k], m);
        }
        if (!is_kept) {
            continue;
        }
        n_reordering += ompi_map_method(m, ctx, &r, why, sizeof why, t) == 0 &&
                        is_reordering(m->collective, r.alg);
    }
    if (n_reordering > 0 && !ctx->assume_commutative) {
        fprintf(ctx->warn,
                "note: %d reduce and allreduce rows exported with an "
                "algorithm that keeps the operand order of non-commutative "
                "operations (above); --assume-commutative exports the tuned "
                "ones, for programs whose reduction operations all commute\n",
                n_reordering);
    } else if (n_reordering > 0) {
        fprintf(ctx->warn,
                "note: --assume-commutative: %d reduce and allreduce rows run "
                "an algorithm that gives wrong results for non-commutative "
                "operations\n",
                n_reordering);
    }
    for (int k = 0; k < n_sets; k++) {
        for (int i = 0; i < sets[k].n; i++) {
            const struct coll_rules *c = &sets[k].colls[i];
            if (strcmp(c->collective, "bcast") != 0 &&
                strcmp(c->collective, "scatter") != 0 &&
                strcmp(c->collective, "gather") != 0) {
                continue;
            }
            for (int b = 0; b < c->n; b++) {
                for (int r = 0; r < c->blocks[b].n; r++) {
                    is_splitting |= c->blocks[b].rules[r].alg != 0;
                }
            }
        }
    }
    if (is_splitting) {
        fprintf(ctx->warn,
                "note: Open MPI chooses and splits a bcast, scatter or gather "
                "by each rank's own count and datatype: where ranks pass "
                "different counts of one type signature, this file can hang "
                "the call or corrupt its data (libautotune is correct)\n");
    }
}

static const char *alg_name(const char *collective, int number)
{
    const struct ompi_alg *a = ompi_alg_by_number(collective, number);
    return a ? a->algorithm : "Open MPI's fixed decision";
}

/* The ranks per node of the rules (ctx->ppn, which export_write sets for
 * these formats), said on stderr when the table holds others or it is not
 * one rank per node; *ppn 0 where the table is empty. */
static int classic_ppn(const struct measurement *rows, size_t n,
                       const struct export_context *ctx, const char *format,
                       int *ppn, char *others, size_t others_size)
{
    int *values, n_values;
    if (export_ppn_values(rows, n, ctx, 0, &values, &n_values) != 0) {
        fprintf(stderr, "%s: out of memory\n", ctx->source);
        return -1;
    }
    *ppn = ctx->ppn ? ctx->ppn : n_values == 1 ? values[0] : 0;
    size_t len = 0;
    others[0] = '\0';
    for (int i = 0; i < n_values && len < others_size; i++) {
        if (values[i] != *ppn) {
            int k = snprintf(others + len, others_size - len, "%s%d",
                             len ? ", " : "", values[i]);
            len += k > 0 ? (size_t)k : 0;
        }
    }
    if (*ppn > 1 || n_values > 1) {
        fprintf(ctx->warn,
                "note: %s rules of %d ranks per node%s%s%s: the format has "
                "no ranks-per-node key, so Open MPI applies them at every "
                "ranks per node\n",
                format, *ppn, *others ? " (not " : "", others,
                *others ? ")" : "");
    }
    free(values);
    return 0;
}

static int write_classic(FILE *out, const struct measurement *rows, size_t n,
                         const struct export_context *ctx, int version)
{
    int ppn;
    char others[256];
    if (classic_ppn(rows, n, ctx, version > 1 ? "ompi-v2" : "ompi", &ppn,
                    others, sizeof others) != 0) {
        return -1;
    }
    struct rule_set set;
    if (rules_build(rows, n, ctx, version > 1 ? map_classic_v2 : map_classic,
                    ompi_fallback, &set) != 0) {
        return -1;
    }
    ompi_notes(&set, ctx, 1, rows, n,
               version > 1 ? &classic_v2_target : &classic_target);
    if (version > 1) {
        fprintf(out, "rule-file-version-%d\n", version);
    }
    fprintf(
        out,
        "# Open MPI coll/tuned dynamic rules (%s), written by autotune "
        "from %s.\n"
        "# Load with: mpirun --mca coll_tuned_use_dynamic_rules 1 "
        "--mca coll_tuned_dynamic_rules_filename FILE\n"
        "# A communicator size covers up to the next one, a message size "
        "up to the next\n"
        "# one: each starts just above the previous tuned size. "
        "Algorithm 0: Open MPI's\n"
        "# fixed decision (outside the tuned communicator sizes, where "
        "a method has no\n"
        "# counterpart, and where the library was measured faster).\n"
        "# Ranks per node: %d. The format has no ranks-per-node key: "
        "Open MPI applies\n# these rules at every ranks per node.%s%s%s\n%s",
        version > 1 ? "version 2: Open MPI 4.1.8+, 5.0.7+"
                    : "classic format: Open MPI 4.1 and 5.0",
        ctx->source, ppn, *others ? " The run also tuned " : "", others,
        *others ? " (--ppn)." : "",
        ctx->assume_commutative
            ? "# Exported with --assume-commutative: reduce and allreduce "
              "rules may reorder\n# the operands of a reduction: wrong "
              "results for non-commutative operations.\n"
            : "# Reduce and allreduce rules keep the operand order of "
              "non-commutative\n# operations (the tuned algorithm where "
              "it does, else the fastest measured\n# one that does; "
              "autotune export --assume-commutative lifts this).\n");
    fprintf(out, "%d # collectives\n", set.n);
    for (int i = 0; i < set.n; i++) {
        const struct coll_rules *c = &set.colls[i];
        fprintf(out, "%d # %s\n%d # communicator sizes\n",
                ompi_coll_find(c->collective)->coll_id, c->collective, c->n);
        for (int b = 0; b < c->n; b++) {
            const struct block *blk = &c->blocks[b];
            fprintf(out, "%d # communicator size\n%d # message sizes\n",
                    blk->procs, blk->n);
            for (int r = 0; r < blk->n; r++) {
                const struct rule *ru = &blk->rules[r];
                fprintf(out, "%ld %d %d %d", ru->msg_min, ru->alg, ru->faninout,
                        ru->segsize);
                if (version > 1) {
                    fprintf(out, " %d", ru->max_requests);
                }
                fprintf(out, " # %s", alg_name(c->collective, ru->alg));
                if (ru->line > 0) {
                    fprintf(out, " (line %d)\n", ru->line);
                } else {
                    fprintf(out, " (outside the tuned communicator sizes)\n");
                }
            }
        }
    }
    rules_destroy(&set);
    return ferror(out) ? -1 : 0;
}

int export_ompi(FILE *out, const struct measurement *rows, size_t n,
                const struct export_context *ctx)
{
    return write_classic(out, rows, n, ctx, 1);
}

/* Releases before 4.1.8 and 5.0.7 ignore a rule-file-version-2 file without
 * a word (Open MPI 4.1.4 was seen to). */
static void warn_version_2(const struct export_context *ctx)
{
    const char *v = strstr(ctx->library, "Open");
    int major, minor, patch;
    v = v ? strpbrk(v, "v") : NULL;
    if (v && sscanf(v, "v%d.%d.%d", &major, &minor, &patch) == 3 &&
        ((major == 4 && (minor < 1 || (minor == 1 && patch < 8))) ||
         (major == 5 && minor == 0 && patch < 7) || major < 4)) {
        fprintf(ctx->warn,
                "note: the run measured %s, which ignores rule-file-version-2 "
                "files; load --format ompi there\n",
                ctx->library);
    }
}

int export_ompi_v2(FILE *out, const struct measurement *rows, size_t n,
                   const struct export_context *ctx)
{
    warn_version_2(ctx);
    return write_classic(out, rows, n, ctx, 2);
}

static void json_bound(FILE *out, const char *key, long value)
{
    if (value < 0) {
        fprintf(out, "\"%s\": \"inf\"", key);
    } else {
        fprintf(out, "\"%s\": %ld", key, value);
    }
}

/* One collective's communicator rules, from 0 to any size, for the
 * communicators dist names (NULL: every one, no distribution key). */
static void json_chain(FILE *out, const struct coll_rules *c, const char *dist,
                       const char **sep)
{
    for (int b = 0; b < c->n; b++) {
        const struct block *blk = &c->blocks[b];
        fprintf(out, "%s\n      { \"comm_size_min\": %d, ", *sep,
                b ? blk->procs : 0);
        *sep = ",";
        json_bound(out, "comm_size_max", rules_block_max(c, b));
        if (dist) {
            fprintf(out, ", \"comm_rank_distribution\": \"%s\"", dist);
        }
        fprintf(out, ",\n        \"rules\": [");
        for (int r = 0; r < blk->n; r++) {
            const struct rule *ru = &blk->rules[r];
            fprintf(out, "%s\n          { \"msg_size_min\": %ld, ",
                    r ? "," : "", ru->msg_min);
            json_bound(out, "msg_size_max", rules_msg_max(blk, r));
            fprintf(out, ", \"alg\": %d", ru->alg);
            if (ru->faninout) {
                fprintf(out, ", \"faninout\": %d", ru->faninout);
            }
            if (ru->segsize) {
                fprintf(out, ", \"seg_size\": %d", ru->segsize);
            }
            if (ru->max_requests) {
                fprintf(out, ", \"reqs\": %d", ru->max_requests);
            }
            fprintf(out, " }");
        }
        fprintf(out, " ] }");
    }
}

static const struct coll_rules *set_find(const struct rule_set *set,
                                         const char *collective)
{
    for (int i = 0; i < set->n; i++) {
        if (strcmp(set->colls[i].collective, collective) == 0) {
            return &set->colls[i];
        }
    }
    return NULL;
}

/* The JSON format says which ranks share a node by its distributions only:
 * one rank per node ("one-per-node"), all on one node ("single-node"), or
 * any; so the file holds the one-rank-per-node rules, then those of the
 * rows on one node (procs = ranks per node), each marked, then the rules
 * of one ranks per node for every communicator (ctx->ppn, or the table's
 * only other value on several nodes). Open MPI takes the first rule whose
 * distribution and size match. A table of one ranks per node marks
 * nothing. */
enum { JSON_ONE_PER_NODE, JSON_SINGLE_NODE, JSON_ANY, JSON_SETS };

int export_ompi_json(FILE *out, const struct measurement *rows, size_t n,
                     const struct export_context *ctx)
{
    static const char *const dists[JSON_SETS] = {"one-per-node", "single-node",
                                                 NULL};
    int *values, n_values, *spread, n_spread, rc = -1;
    if (export_ppn_values(rows, n, ctx, 0, &values, &n_values) != 0 ||
        export_ppn_values(rows, n, ctx, 1, &spread, &n_spread) != 0) {
        free(values);
        fprintf(stderr, "%s: out of memory\n", ctx->source);
        return -1;
    }
    int has_1 = n_spread > 0 && spread[0] == 1;
    int any_ppn = ctx->ppn                ? ctx->ppn
                  : n_spread - has_1 == 1 ? spread[n_spread - 1]
                  : has_1                 ? 1
                  : n_values > 0          ? values[n_values - 1]
                                          : 0;
    int is_several = n_values > 1;
    int is_on_one_node = 0;
    for (size_t i = 0; i < n && !is_on_one_node; i++) {
        is_on_one_node = export_is_single_node(&rows[i]);
    }
    free(values);
    free(spread);
    struct export_context ctxs[JSON_SETS] = {*ctx, *ctx, *ctx};
    struct rule_set sets[JSON_SETS] = {{0, NULL}, {0, NULL}, {0, NULL}};
    int is_used[JSON_SETS] = {is_several && has_1 && any_ppn != 1,
                              is_several && is_on_one_node, 1};
    ctxs[JSON_ONE_PER_NODE].ppn = 1;
    ctxs[JSON_SINGLE_NODE].ppn = EXPORT_PPN_SINGLE_NODE;
    ctxs[JSON_ANY].ppn = is_several ? any_ppn : 0;
    /* rows on one node of the value for every communicator are in two
     * sets: their warnings said once, by the set for every communicator */
    FILE *quiet = fopen("/dev/null", "w");
    if (!quiet) {
        fprintf(stderr, "/dev/null: cannot open it\n");
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        if (export_is_single_node(&rows[i]) && rows[i].ppn == any_ppn) {
            ctxs[JSON_SINGLE_NODE].warn = quiet;
        }
    }
    for (int k = 0; k < JSON_SETS; k++) {
        if (is_used[k] && rules_build(rows, n, &ctxs[k], map_json,
                                      ompi_fallback, &sets[k]) != 0) {
            goto done;
        }
    }
    /* the sets in use, first */
    struct rule_set used[JSON_SETS];
    struct export_context used_ctxs[JSON_SETS];
    int n_used = 0;
    for (int k = 0; k < JSON_SETS; k++) {
        if (is_used[k]) {
            used[n_used] = sets[k];
            used_ctxs[n_used++] = ctxs[k];
        }
    }
    used_ctxs[0].warn = ctx->warn;
    ompi_notes(used, used_ctxs, n_used, rows, n, &json_target);
    if (any_ppn > 1 || is_several) {
        fprintf(ctx->warn,
                "note: ompi-json rules of %d ranks per node for every "
                "communicator%s%s\n",
                any_ppn,
                is_used[JSON_ONE_PER_NODE]
                    ? ", of 1 rank per node marked one-per-node"
                    : "",
                is_used[JSON_SINGLE_NODE]
                    ? ", of the rows on one node marked single-node"
                    : "");
    }
    fprintf(out, "{\n  \"rule_file_version\": 3,\n  \"module\": \"tuned\",\n"
                 "  \"collectives\": {");
    /* Each collective of any set once, in name order (every set's). */
    const char *coll_sep = "", *last = NULL;
    for (;;) {
        const char *name = NULL;
        for (int k = 0; k < JSON_SETS; k++) {
            for (int i = 0; i < sets[k].n; i++) {
                const char *c = sets[k].colls[i].collective;
                if ((!last || strcmp(c, last) > 0) &&
                    (!name || strcmp(c, name) < 0)) {
                    name = c;
                }
            }
        }
        if (!name) {
            break;
        }
        const char *sep = "";
        fprintf(out, "%s\n    \"%s\": [", coll_sep,
                ompi_coll_find(name)->json_name);
        coll_sep = ",";
        for (int k = 0; k < JSON_SETS; k++) {
            const struct coll_rules *c = set_find(&sets[k], name);
            if (c) {
                json_chain(out, c, dists[k], &sep);
            }
        }
        fprintf(out, " ]");
        last = name;
    }
    fprintf(out, "\n  }\n}\n");
    rc = ferror(out) ? -1 : 0;
done:
    for (int k = 0; k < JSON_SETS; k++) {
        rules_destroy(&sets[k]);
    }
    fclose(quiet);
    return rc;
}

/* The checks both readers share: algorithm numbers the target release has;
 * *is_two_procs set when the algorithm runs on two ranks only. */
static int check_alg(const char *what, int line, const char *collective,
                     long alg, int release, int *is_two_procs)
{
    if (alg == 0) {
        return 0;
    }
    const struct ompi_alg *a =
        alg > 0 && alg < 100 ? ompi_alg_by_number(collective, (int)alg) : NULL;
    if (!a || a->since > release) {
        fprintf(stderr,
                "%s:%d: %s algorithm %ld is not one Open MPI %d.%d has\n", what,
                line, collective, alg, release / 100, release % 100);
        return -1;
    }
    *is_two_procs |= (a->rule_flags & OMPI_RULE_TWO_PROCS) != 0;
    return 0;
}

/* A block holding a two-rank algorithm must cover no other size than 2
 * (and 1, which coll/self serves). procs_max -1: no limit. */
static int check_two_procs(const char *what, int line, const char *collective,
                           int is_two_procs, long procs_max)
{
    if (is_two_procs && procs_max != 2) {
        fprintf(stderr,
                "%s:%d: %s: a two-rank algorithm in rules that cover "
                "communicators of more than 2 ranks\n",
                what, line, collective);
        return -1;
    }
    return 0;
}

/* The classic reader's tokenizer (coll_base_util.c): numbers read as %li,
 * anything else skipped, '#' to the end of the line. */
struct classic_reader {
    const char *p, *end;
    int line;
    const char *what;
};

/* Skips to the next number (or a minus sign before one); 1 if there is
 * one. */
static int classic_has_more(struct classic_reader *rd)
{
    while (rd->p < rd->end && !isdigit((unsigned char)*rd->p) &&
           !(*rd->p == '-' && rd->p + 1 < rd->end &&
             isdigit((unsigned char)rd->p[1]))) {
        if (*rd->p == '#') {
            while (rd->p < rd->end && *rd->p != '\n') {
                rd->p++;
            }
            continue;
        }
        rd->line += *rd->p == '\n';
        rd->p++;
    }
    return rd->p < rd->end;
}

static int classic_next(struct classic_reader *rd, const char *name,
                        long *value)
{
    if (!classic_has_more(rd)) {
        fprintf(stderr, "%s:%d: file ends where %s should be\n", rd->what,
                rd->line, name);
        return -1;
    }
    if (*rd->p == '-') {
        fprintf(stderr, "%s:%d: %s is negative\n", rd->what, rd->line, name);
        return -1;
    }
    if (*rd->p == '0' && rd->p + 1 < rd->end &&
        isalnum((unsigned char)rd->p[1])) {
        fprintf(stderr,
                "%s:%d: %s starts with 0 (Open MPI reads it as octal or "
                "hex)\n",
                rd->what, rd->line, name);
        return -1;
    }
    char *stop;
    *value = strtol(rd->p, &stop, 10);
    rd->p = stop;
    return 0;
}

/* The optional max requests: a digit after spaces and tabs on the line. */
static int classic_has_digit(const struct classic_reader *rd)
{
    const char *p = rd->p;
    while (p < rd->end && (*p == ' ' || *p == '\t')) {
        p++;
    }
    return p < rd->end && isdigit((unsigned char)*p);
}

static int classic_block(struct classic_reader *rd, const char *collective,
                         int version, int *is_two_procs)
{
    long n_msgs, prev = -1;
    if (classic_next(rd, "the number of message sizes", &n_msgs) != 0) {
        return -1;
    }
    if (n_msgs < 1) {
        fprintf(stderr, "%s:%d: %s: a communicator size without rules\n",
                rd->what, rd->line, collective);
        return -1;
    }
    for (long i = 0; i < n_msgs; i++) {
        long msg, alg, faninout, segsize, max_requests = 0;
        if (classic_next(rd, "a message size", &msg) != 0 ||
            classic_next(rd, "an algorithm", &alg) != 0 ||
            classic_next(rd, "a fan-in/out", &faninout) != 0 ||
            classic_next(rd, "a segment size", &segsize) != 0 ||
            (version > 1 && classic_has_digit(rd) &&
             classic_next(rd, "max requests", &max_requests) != 0)) {
            return -1;
        }
        if (i == 0 && msg != 0) {
            fprintf(stderr,
                    "%s:%d: %s: the first rule of a communicator size must be "
                    "for message size 0, not %ld\n",
                    rd->what, rd->line, collective, msg);
            return -1;
        }
        if (msg <= prev) {
            fprintf(stderr,
                    "%s:%d: %s: message size %ld does not ascend (after "
                    "%ld)\n",
                    rd->what, rd->line, collective, msg, prev);
            return -1;
        }
        prev = msg;
        if (check_alg(rd->what, rd->line, collective, alg, OMPI_CLASSIC_RELEASE,
                      is_two_procs) != 0) {
            return -1;
        }
    }
    return 0;
}

/* One collective's communicator sizes; a block reaches the next size. */
static int classic_collective(struct classic_reader *rd, int version, int *seen)
{
    long id, n_comms, procs, prev_procs = -1;
    int prev_two_procs = 0, prev_line = 0;
    if (classic_next(rd, "a collective id", &id) != 0 ||
        classic_next(rd, "the number of communicator sizes", &n_comms) != 0) {
        return -1;
    }
    const struct ompi_coll *c =
        id < OMPI_COLLCOUNT ? ompi_coll_by_id((int)id) : NULL;
    if (!c || seen[id] || n_comms < 1) {
        fprintf(stderr, "%s:%d: collective id %ld %s\n", rd->what, rd->line, id,
                !c         ? "is not one autotune exports"
                : seen[id] ? "appears twice"
                           : "has no communicator sizes");
        return -1;
    }
    seen[id] = 1;
    for (long b = 0; b < n_comms; b++) {
        int is_two_procs = 0;
        if (classic_next(rd, "a communicator size", &procs) != 0) {
            return -1;
        }
        if (procs <= prev_procs) {
            fprintf(stderr,
                    "%s:%d: %s: communicator size %ld does not ascend\n",
                    rd->what, rd->line, c->collective, procs);
            return -1;
        }
        if (b > 0 && check_two_procs(rd->what, prev_line, c->collective,
                                     prev_two_procs, procs - 1) != 0) {
            return -1;
        }
        prev_line = rd->line;
        if (classic_block(rd, c->collective, version, &is_two_procs) != 0) {
            return -1;
        }
        prev_procs = procs;
        prev_two_procs = is_two_procs;
    }
    return check_two_procs(rd->what, prev_line, c->collective, prev_two_procs,
                           -1);
}

int export_check_ompi(const char *text, size_t len, const char *what)
{
    struct classic_reader rd = {text, text + len, 1, what};
    static const char header[] = "rule-file-version-";
    int version = 1;
    int seen[OMPI_COLLCOUNT] = {0};
    long n_colls;
    if (len > strlen(header) && memcmp(text, header, strlen(header)) == 0) {
        version = atoi(text + strlen(header));
        rd.p += strlen(header);
        if (version < 1 || version > 2) {
            fprintf(stderr, "%s:1: unknown rule-file-version %d\n", what,
                    version);
            return -1;
        }
        while (rd.p < rd.end && isdigit((unsigned char)*rd.p)) {
            rd.p++;
        }
    }
    if (classic_next(&rd, "the number of collectives", &n_colls) != 0) {
        return -1;
    }
    if (n_colls > OMPI_COLLCOUNT) {
        fprintf(stderr, "%s:%d: %ld collectives, more than Open MPI has\n",
                what, rd.line, n_colls);
        return -1;
    }
    for (long i = 0; i < n_colls; i++) {
        if (classic_collective(&rd, version, seen) != 0) {
            return -1;
        }
    }
    if (classic_has_more(&rd)) {
        fprintf(stderr,
                "%s:%d: numbers after the last collective: the counts do not "
                "match the rules\n",
                what, rd.line);
        return -1;
    }
    return 0;
}

/* JSON: an integer field, or "inf" where allowed (-1). */
static int json_long(const struct json *obj, const char *key, int is_required,
                     int inf_ok, long *value, const char *what)
{
    const struct json *v = json_get(obj, key);
    if (!v) {
        if (is_required) {
            fprintf(stderr, "%s:%d: \"%s\" is missing\n", what, obj->line, key);
            return -1;
        }
        return 1;
    }
    if (inf_ok && v->type == JSON_STRING && strcmp(v->string, "inf") == 0) {
        *value = -1;
        return 0;
    }
    if (v->type != JSON_NUMBER || !v->is_integer || v->integer < 0) {
        fprintf(stderr, "%s:%d: \"%s\" must be a non-negative integer%s\n",
                what, v->line, key, inf_ok ? " or \"inf\"" : "");
        return -1;
    }
    *value = (long)v->integer;
    return 0;
}

static int json_keys_known(const struct json *obj, const char *const *keys,
                           const char *what)
{
    for (int i = 0; i < obj->n; i++) {
        int known = 0;
        for (const char *const *k = keys; *k; k++) {
            known |= strcmp(obj->keys[i], *k) == 0;
        }
        if (!known) {
            fprintf(stderr, "%s:%d: unknown key \"%s\"\n", what,
                    obj->items[i]->line, obj->keys[i]);
            return -1;
        }
    }
    return 0;
}

/* Ranges [min, max] that start at 0, follow each other and end at inf. */
static int json_range(const char *what, int line, const char *name, long min,
                      long max, long *expect_min)
{
    if (min != *expect_min || (max >= 0 && max < min) || *expect_min < 0) {
        char upper[32] = "inf";
        if (max >= 0) {
            snprintf(upper, sizeof upper, "%ld", max);
        }
        fprintf(stderr,
                "%s:%d: %s range [%ld, %s] does not continue the previous "
                "one (%s)\n",
                what, line, name, min, upper,
                *expect_min < 0 ? "which reached inf" : "a gap or overlap");
        return -1;
    }
    *expect_min = max < 0 ? -1 : max + 1;
    return 0;
}

static int json_msg_rules(const struct json *rules, const char *collective,
                          long procs_max, const char *what)
{
    static const char *const keys[] = {
        "msg_size_min", "msg_size_max", "alg", "faninout",
        "seg_size",     "reqs",         NULL};
    long expect = 0;
    int is_two_procs = 0;
    if (!rules || rules->type != JSON_ARRAY || rules->n == 0) {
        fprintf(stderr, "%s:%d: \"rules\" must be a non-empty array\n", what,
                rules ? rules->line : 0);
        return -1;
    }
    for (int r = 0; r < rules->n; r++) {
        const struct json *ru = rules->items[r];
        long min, max, alg, unused;
        if (ru->type != JSON_OBJECT || json_keys_known(ru, keys, what) != 0 ||
            json_long(ru, "msg_size_min", 1, 0, &min, what) != 0 ||
            json_long(ru, "msg_size_max", 1, 1, &max, what) != 0 ||
            json_long(ru, "alg", 1, 0, &alg, what) != 0 ||
            json_long(ru, "faninout", 0, 0, &unused, what) < 0 ||
            json_long(ru, "seg_size", 0, 0, &unused, what) < 0 ||
            json_long(ru, "reqs", 0, 0, &unused, what) < 0 ||
            json_range(what, ru->line, "message size", min, max, &expect) !=
                0 ||
            check_alg(what, ru->line, collective, alg, OMPI_JSON_RELEASE,
                      &is_two_procs) != 0) {
            return -1;
        }
    }
    if (check_two_procs(what, rules->line, collective, is_two_procs,
                        procs_max) != 0) {
        return -1;
    }
    if (expect >= 0) {
        fprintf(stderr,
                "%s:%d: the last message size rule must reach \"inf\"\n", what,
                rules->line);
        return -1;
    }
    return 0;
}

static int json_collective(const char *name, const struct json *blocks,
                           const char *what)
{
    static const char *const keys[] = {"comm_size_min", "comm_size_max",
                                       "comm_rank_distribution", "rules", NULL};
    const struct ompi_coll *c = NULL;
    for (int id = 0; id < OMPI_COLLCOUNT && !c; id++) {
        const struct ompi_coll *k = ompi_coll_by_id(id);
        c = k && strcmp(k->json_name, name) == 0 ? k : NULL;
    }
    if (!c || blocks->type != JSON_ARRAY || blocks->n == 0) {
        fprintf(stderr, "%s:%d: \"%s\": %s\n", what, blocks->line, name,
                c ? "must be a non-empty array of communicator rules"
                  : "not a collective autotune exports");
        return -1;
    }
    /* Open MPI takes the first rule whose distribution and sizes match
     * the communicator: each distribution's rules one chain from 0 to inf,
     * the chain for any communicator last. */
    long expect = 0;
    const char *chain = NULL;
    int seen[3] = {0};
    static const char *const dists[] = {"one-per-node", "single-node", "any"};
    for (int b = 0; b < blocks->n; b++) {
        const struct json *blk = blocks->items[b];
        const struct json *dist = json_get(blk, "comm_rank_distribution");
        long min, max;
        int d = 2;
        if (blk->type != JSON_OBJECT || json_keys_known(blk, keys, what) != 0) {
            return -1;
        }
        if (dist) {
            for (d = 0; d < 3 && (dist->type != JSON_STRING ||
                                  strcmp(dist->string, dists[d]) != 0);
                 d++) {
            }
            if (d == 3) {
                fprintf(stderr,
                        "%s:%d: comm_rank_distribution must be \"any\", "
                        "\"one-per-node\" or \"single-node\" (Open MPI "
                        "reads another as \"any\")\n",
                        what, dist->line);
                return -1;
            }
        }
        if (chain != dists[d]) {
            if (chain && expect >= 0) {
                fprintf(stderr,
                        "%s:%d: \"%s\": the %s communicator rules must reach "
                        "\"inf\"\n",
                        what, blk->line, name, chain);
                return -1;
            }
            if (seen[d] || seen[2]) {
                fprintf(stderr,
                        "%s:%d: \"%s\": %s rules after the %s ones are never "
                        "reached\n",
                        what, blk->line, name, dists[d],
                        seen[2] ? "any" : dists[d]);
                return -1;
            }
            seen[d] = 1;
            chain = dists[d];
            expect = 0;
        }
        if (json_long(blk, "comm_size_min", 1, 0, &min, what) != 0 ||
            json_long(blk, "comm_size_max", 1, 1, &max, what) != 0 ||
            json_range(what, blk->line, "communicator size", min, max,
                       &expect) != 0) {
            return -1;
        }
        if (json_msg_rules(json_get(blk, "rules"), c->collective, max, what) !=
            0) {
            return -1;
        }
    }
    if (expect >= 0) {
        fprintf(stderr,
                "%s:%d: \"%s\": the last communicator rule must reach "
                "\"inf\"\n",
                what, blocks->line, name);
        return -1;
    }
    return 0;
}

int export_check_ompi_json(const char *text, size_t len, const char *what)
{
    static const char *const keys[] = {"rule_file_version", "module",
                                       "collectives", NULL};
    struct json *root;
    if (json_parse(text, len, what, &root) != 0) {
        return -1;
    }
    int rc = -1;
    long version;
    const struct json *module = json_get(root, "module");
    const struct json *colls = json_get(root, "collectives");
    if (root->type != JSON_OBJECT || json_keys_known(root, keys, what) != 0 ||
        json_long(root, "rule_file_version", 1, 0, &version, what) != 0) {
        goto done;
    }
    if (version != 3 || !module || module->type != JSON_STRING ||
        strcmp(module->string, "tuned") != 0 || !colls ||
        colls->type != JSON_OBJECT) {
        fprintf(stderr,
                "%s:1: expected rule_file_version 3, module \"tuned\" and a "
                "\"collectives\" object\n",
                what);
        goto done;
    }
    for (int i = 0; i < colls->n; i++) {
        if (json_collective(colls->keys[i], colls->items[i], what) != 0) {
            goto done;
        }
    }
    rc = 0;
done:
    json_destroy(root);
    return rc;
}
