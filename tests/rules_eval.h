/* What Open MPI and MPICH would run with an exported file, for tests: the
 * classic rules file read as coll_tuned_dynamic_file.c reads it and matched
 * as coll_tuned_dynamic_rules.c matches (largest communicator size <= the
 * call's, else the first; last message rule <= the key), and MPICH's
 * selection JSON walked as csel.c walks it (first condition that holds). */
#ifndef TESTS_RULES_EVAL_H
#define TESTS_RULES_EVAL_H

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "store/export.h"
#include "store/json.h"
#include "store/libraries.h"
#include "tests/check.h"

#define EVAL_MAX_RULES 4096

struct ompi_eval_rule {
    int coll_id;
    long procs, msg;
    long alg, segsize;
};

struct ompi_eval {
    int n;
    struct ompi_eval_rule rules[EVAL_MAX_RULES];
};

/* Open MPI's tokenizer: numbers as %li, '#' to the end of the line, other
 * characters skipped. */
static inline long ompi_eval_next(const char **p)
{
    while (**p && !isdigit((unsigned char)**p)) {
        if (**p == '#') {
            while (**p && **p != '\n') {
                (*p)++;
            }
        } else {
            (*p)++;
        }
    }
    return strtol(*p, (char **)p, 0);
}

/* The rules of a classic file, flattened; 0 or -1 when too many. */
static inline int ompi_eval_load(const char *text, struct ompi_eval *e)
{
    const char *p = text;
    int version = 1;
    e->n = 0;
    if (strncmp(p, "rule-file-version-", 18) == 0) {
        p += 18;
        version = (int)strtol(p, (char **)&p, 10);
    }
    long n_colls = ompi_eval_next(&p);
    for (long c = 0; c < n_colls; c++) {
        long id = ompi_eval_next(&p), n_comms = ompi_eval_next(&p);
        for (long b = 0; b < n_comms; b++) {
            long procs = ompi_eval_next(&p), n_msgs = ompi_eval_next(&p);
            for (long r = 0; r < n_msgs; r++) {
                if (e->n == EVAL_MAX_RULES) {
                    return -1;
                }
                struct ompi_eval_rule *ru = &e->rules[e->n++];
                ru->coll_id = (int)id;
                ru->procs = procs;
                ru->msg = ompi_eval_next(&p);
                ru->alg = ompi_eval_next(&p);
                ompi_eval_next(&p); /* fan-in/out */
                ru->segsize = ompi_eval_next(&p);
                const char *q = p;
                while (*q == ' ' || *q == '\t') {
                    q++;
                }
                if (version > 1 && isdigit((unsigned char)*q)) {
                    ompi_eval_next(&p);
                }
            }
        }
    }
    return 0;
}

/* Open MPI's algorithm for collective (ours) on procs ranks and msg_bytes
 * per rank (our definition): 0 for its fixed decision; *segsize its
 * segment size. */
static inline long ompi_eval_alg(const struct ompi_eval *e,
                                 const char *collective, int procs,
                                 long msg_bytes, long *segsize)
{
    const struct ompi_coll *c = ompi_coll_find(collective);
    long key = c->msg_key == OMPI_KEY_NONE            ? 0
               : c->msg_key == OMPI_KEY_BYTES_X_PROCS ? msg_bytes * procs
                                                      : msg_bytes;
    long block = -1, first = -1;
    for (int i = 0; i < e->n; i++) {
        const struct ompi_eval_rule *r = &e->rules[i];
        if (r->coll_id != c->coll_id) {
            continue;
        }
        first = first < 0 ? r->procs : first;
        if (r->procs <= procs) {
            block = r->procs;
        }
    }
    *segsize = 0;
    if (first < 0) {
        return 0; /* no rules for it: the fixed decision */
    }
    block = block < 0 ? first : block;
    long alg = 0;
    for (int i = 0; i < e->n; i++) {
        const struct ompi_eval_rule *r = &e->rules[i];
        if (r->coll_id == c->coll_id && r->procs == block) {
            if (r->msg > key) {
                break;
            }
            alg = r->alg;
            *segsize = r->segsize;
        }
    }
    return alg;
}

/* The call MPICH's conditions are asked about: built-in op, not in place,
 * count as given. */
struct mpich_call {
    int procs;
    long avg_bytes, total_bytes, count;
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
    if (strcmp(key, "comm_size=pow2") == 0) {
        return mpich_eval_is_pow2(call->procs);
    }
    if (strcmp(key, "count<pow2") == 0) {
        return call->count < mpich_eval_pof2(call->procs);
    }
    return strcmp(key, "comm_type=intra") == 0 ||
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
 * measured sizes msg_cuts and procs_cuts (NULL: none); caller frees, NULL on
 * failure (a failed check). */
static inline char *
export_text(int (*write)(FILE *, const struct measurement *, size_t,
                         const struct export_context *),
            const struct measurement *rows, size_t n, const char *source,
            const long *msg_cuts, const long *procs_cuts)
{
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    FILE *warn = fopen("/dev/null", "w");
    struct export_context ctx = {source, "own",    "",        4,
                                 warn,   msg_cuts, procs_cuts};
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
