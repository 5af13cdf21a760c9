/* Open MPI's coll/tuned applying a classic rules file (see ompi_eval.h). */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "store/libraries.h"
#include "store/ompi_eval.h"

/* Open MPI's tokenizer: numbers as %li, '#' to the end of the line, other
 * characters skipped. */
static long ompi_eval_next(const char **p)
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

int ompi_eval_load(const char *text, struct ompi_eval *e)
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

long ompi_eval_alg(const struct ompi_eval *e, const char *collective, int procs,
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
