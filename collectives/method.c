/* Methods by name (collectives/method.h): the node-aware methods' grammar
 * and the registry that numbers them after the table's algorithms. */
#include "collectives/method.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What a phase's count is, in the composed collective's counts (as
 * collectives/node.c passes it): the same, one node's (ppn times), or the
 * whole communicator's (P times). */
enum { PER_RANK = 1, PER_NODE, PER_ALL, PER_NODE_PAIR };

/* Each composition: the collectives of its phases (NULL: unused), each
 * phase's count (on nodes of equal size), and whether it pads node blocks
 * on nodes of unequal size. */
static const struct {
    const char *collective;
    const char *phase[NODE_N_PHASES]; /* up, inter, down */
    int count[NODE_N_PHASES];
    int is_padded; /* moves node blocks, padded to the largest node's */
} compositions[] = {
    {"bcast", {NULL, "bcast", "bcast"}, {0, PER_RANK, PER_RANK}, 0},
    {"reduce", {"reduce", "reduce", NULL}, {PER_RANK, PER_RANK, 0}, 0},
    {"allreduce",
     {"reduce", "allreduce", "bcast"},
     {PER_RANK, PER_RANK, PER_RANK},
     0},
    {"allgather",
     {"gather", "allgather", "bcast"},
     {PER_RANK, PER_NODE, PER_ALL},
     1},
    {"gather", {"gather", "gather", NULL}, {PER_RANK, PER_NODE, 0}, 1},
    {"scatter", {NULL, "scatter", "scatter"}, {0, PER_NODE, PER_RANK}, 1},
    {"alltoall",
     {"gather", "alltoall", "scatter"},
     {PER_ALL, PER_NODE_PAIR, PER_ALL},
     1},
    {"barrier", {"barrier", "barrier", "barrier"}, {0, 0, 0}, 0},
};
enum { N_COMPOSITIONS = sizeof compositions / sizeof compositions[0] };

static int composition_of(const struct coll_def *c)
{
    for (int i = 0; c && i < N_COMPOSITIONS; i++) {
        if (strcmp(compositions[i].collective, c->name) == 0) {
            return i;
        }
    }
    return -1;
}

int node_is_method_name(const char *name)
{
    size_t n = strlen(NODE_METHOD_PREFIX);
    if (strncmp(name, NODE_METHOD_PREFIX, n) != 0) {
        return 0;
    }
    name += n;
    while (*name >= '0' && *name <= '9') {
        name++;
    }
    return *name == ':';
}

const struct coll_def *node_phase_coll(const struct coll_def *c,
                                       enum node_phase_id ph)
{
    int i = composition_of(c);
    return i < 0 || !compositions[i].phase[ph]
               ? NULL
               : coll_find(compositions[i].phase[ph]);
}

long node_phase_count(const struct coll_def *c, enum node_phase_id ph,
                      long count, int ppn, int n_ranks)
{
    int i = composition_of(c);
    int per = i < 0 ? 0 : compositions[i].count[ph];
    return per == PER_NODE_PAIR ? count * ppn * ppn
           : per == PER_ALL     ? count * n_ranks
           : per == PER_NODE    ? count * ppn
           : per == PER_RANK    ? count
                                : 0;
}

int node_has_methods(const struct coll_def *c)
{
    return composition_of(c) >= 0;
}

int node_pads_blocks(const struct coll_def *c)
{
    int i = composition_of(c);
    return i >= 0 && compositions[i].is_padded;
}

const struct node_phase *node_plan_phase(const struct node_plan *plan,
                                         enum node_phase_id ph)
{
    return ph == NODE_UP      ? &plan->up
           : ph == NODE_INTER ? &plan->inter
                              : &plan->down;
}

void node_plan_set(struct node_plan *plan, enum node_phase_id ph,
                   struct node_phase phase)
{
    *(ph == NODE_UP      ? &plan->up
      : ph == NODE_INTER ? &plan->inter
                         : &plan->down) = phase;
}

/* Parses one phase "ALG" or "ALG/SEG" (len characters of s) of collective
 * pc into *out. */
static int parse_phase(const struct coll_def *pc, const char *s, size_t len,
                       struct node_phase *out, char *err, size_t err_size)
{
    char text[COLL_METHOD_MAX];
    if (len == 0 || len >= sizeof text) {
        snprintf(err, err_size, "an empty or too long %s phase", pc->name);
        return -1;
    }
    memcpy(text, s, len);
    text[len] = '\0';
    char *slash = strchr(text, '/');
    long seg = 0;
    if (slash) {
        char *end;
        *slash = '\0';
        errno = 0;
        seg = strtol(slash + 1, &end, 10);
        if (errno || end == slash + 1 || *end || seg < 0 || seg > 1L << 30) {
            snprintf(err, err_size, "segment '%s' of %s phase %s is not a size",
                     slash + 1, pc->name, text);
            return -1;
        }
    }
    int a = coll_find_alg(pc, text);
    if (a < 0) {
        snprintf(err, err_size, "no %s algorithm '%s'", pc->name, text);
        return -1;
    }
    if (!pc->algs[a].is_segmented && seg != 0) {
        snprintf(err, err_size, "%s %s takes no segment size (%ld given)",
                 pc->name, text, seg);
        return -1;
    }
    *out = (struct node_phase){&pc->algs[a], (int)seg};
    return 0;
}

/* "inter bcast + down bcast": c's phases, for errors (static buffer). */
static const char *phase_list(const struct coll_def *c)
{
    static const char *const where[] = {"up", "inter", "down"};
    static char list[96];
    size_t used = 0;
    list[0] = '\0';
    for (int ph = 0; ph < NODE_N_PHASES; ph++) {
        const struct coll_def *pc = node_phase_coll(c, (enum node_phase_id)ph);
        if (pc && used < sizeof list) {
            int n = snprintf(list + used, sizeof list - used, "%s%s %s",
                             used ? " + " : "", where[ph], pc->name);
            used += n > 0 ? (size_t)n : 0;
        }
    }
    return list;
}

int node_plan_parse(const struct coll_def *c, const char *name,
                    struct node_plan *plan, char *err, size_t err_size)
{
    int ci = composition_of(c);
    *plan = (struct node_plan){.leaders = 1};
    if (!node_is_method_name(name)) {
        snprintf(err, err_size, "'%s' is not a node-aware method", name);
        return -1;
    }
    if (ci < 0) {
        snprintf(err, err_size, "%s has no node-aware methods", c->name);
        return -1;
    }
    const char *s = name + strlen(NODE_METHOD_PREFIX);
    if (*s != ':') {
        plan->leaders = (int)strtol(s, NULL, 10);
        if (plan->leaders < 2 || plan->leaders > 64) {
            snprintf(err, err_size, "'%s': leaders per node must be 2 to 64",
                     name);
            return -1;
        }
        if (strcmp(c->name, "allreduce") != 0) {
            snprintf(err, err_size,
                     "'%s': several leaders per node only for allreduce", name);
            return -1;
        }
    }
    s = strchr(s, ':') + 1;
    for (int ph = 0; ph < NODE_N_PHASES; ph++) {
        const struct coll_def *pc = node_phase_coll(c, (enum node_phase_id)ph);
        if (!pc) {
            continue;
        }
        const char *end = strchr(s, '+');
        size_t len = end ? (size_t)(end - s) : strlen(s);
        struct node_phase phase;
        if (parse_phase(pc, s, len, &phase, err, err_size) != 0) {
            return -1;
        }
        node_plan_set(plan, (enum node_phase_id)ph, phase);
        s += len;
        if (*s == '+') {
            s++;
        } else {
            /* the last phase must have been this one */
            for (int next = ph + 1; next < NODE_N_PHASES; next++) {
                if (node_phase_coll(c, (enum node_phase_id)next)) {
                    snprintf(err, err_size,
                             "'%s': too few phases for a %s node-aware "
                             "method (%s)",
                             name, c->name, phase_list(c));
                    return -1;
                }
            }
            return 0;
        }
    }
    snprintf(err, err_size,
             "'%s': too many phases for a %s node-aware method (%s)", name,
             c->name, phase_list(c));
    return -1;
}

int node_plan_format(const struct coll_def *c, const struct node_plan *plan,
                     char *buf, size_t size)
{
    int n = plan->leaders > 1 ? snprintf(buf, size, "%s%d:", NODE_METHOD_PREFIX,
                                         plan->leaders)
                              : snprintf(buf, size, "%s:", NODE_METHOD_PREFIX);
    size_t used = 0;
    const char *sep = "";
    for (int ph = 0; ph < NODE_N_PHASES; ph++) {
        if (n < 0 || (size_t)n >= size - used) {
            return -1;
        }
        used += (size_t)n;
        n = 0;
        if (!node_phase_coll(c, (enum node_phase_id)ph)) {
            continue;
        }
        const struct node_phase *p =
            node_plan_phase(plan, (enum node_phase_id)ph);
        n = p->alg->is_segmented
                ? snprintf(buf + used, size - used, "%s%s/%d", sep,
                           p->alg->name, p->seg_bytes)
                : snprintf(buf + used, size - used, "%s%s", sep, p->alg->name);
        sep = "+";
    }
    return n >= 0 && (size_t)n < size - used ? 0 : -1;
}

/* The node-aware methods named so far, per collective of coll_table
 * (which has fewer than MAX_COLLS). */
enum { MAX_COLLS = 16 };
struct registered {
    char name[COLL_METHOD_MAX];
    struct node_plan plan;
};
static struct registry {
    struct registered *methods;
    int n, cap;
} registries[MAX_COLLS];

static struct registry *registry_of(const struct coll_def *c)
{
    for (int i = 0; i < coll_table_size && i < MAX_COLLS; i++) {
        if (coll_table[i] == c) {
            return &registries[i];
        }
    }
    return NULL;
}

int coll_plan_method(const struct coll_def *c, const struct node_plan *plan)
{
    struct registry *r = registry_of(c);
    char name[COLL_METHOD_MAX];
    if (!r || node_plan_format(c, plan, name, sizeof name) != 0) {
        return -1;
    }
    for (int k = 0; k < r->n; k++) {
        if (strcmp(r->methods[k].name, name) == 0) {
            return c->n_algs + k;
        }
    }
    if (r->n == r->cap) {
        int cap = r->cap ? 2 * r->cap : 16;
        struct registered *grown =
            realloc(r->methods, (size_t)cap * sizeof *grown);
        if (!grown) {
            return -1;
        }
        r->methods = grown;
        r->cap = cap;
    }
    struct registered *m = &r->methods[r->n];
    memcpy(m->name, name, sizeof name);
    m->plan = *plan;
    return c->n_algs + r->n++;
}

int coll_find_method(const struct coll_def *c, const char *name, char *err,
                     size_t err_size)
{
    char ignored[8];
    if (!err) {
        err = ignored;
        err_size = sizeof ignored;
    }
    if (!node_is_method_name(name)) {
        int a = coll_find_alg(c, name);
        if (a < 0) {
            snprintf(err, err_size, "no %s algorithm '%s'", c->name, name);
        }
        return a;
    }
    struct node_plan plan;
    if (node_plan_parse(c, name, &plan, err, err_size) != 0) {
        return -1;
    }
    int m = coll_plan_method(c, &plan);
    if (m < 0) {
        snprintf(err, err_size, "'%s': out of memory or too long", name);
    }
    return m;
}

static const struct registered *registered_of(const struct coll_def *c, int m)
{
    struct registry *r = registry_of(c);
    int k = m - c->n_algs;
    return r && k >= 0 && k < r->n ? &r->methods[k] : NULL;
}

const char *coll_method_name(const struct coll_def *c, int m)
{
    if (m >= 0 && m < c->n_algs) {
        return c->algs[m].name;
    }
    const struct registered *reg = registered_of(c, m);
    return reg ? reg->name : "?";
}

const struct coll_alg *coll_method_alg(const struct coll_def *c, int m)
{
    return m >= 0 && m < c->n_algs ? &c->algs[m] : NULL;
}

const struct node_plan *coll_method_plan(const struct coll_def *c, int m)
{
    const struct registered *reg = registered_of(c, m);
    return reg ? &reg->plan : NULL;
}

int coll_method_is_segmented(const struct coll_def *c, int m)
{
    return m >= 0 && m < c->n_algs && c->algs[m].is_segmented;
}
