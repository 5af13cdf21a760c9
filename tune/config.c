/* Reads tune.cfg with libconfig. Every check happens here, before anything
 * is measured or written, and names the file, the line and the key. */
#include <assert.h>
#include <ctype.h>
#include <errno.h>
#include <libconfig.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collectives/method.h"
#include "collectives/nodes.h"
#include "search/refine.h"
#include "store/profile.h"
#include "tune/config.h"
#include "util/tuning.h"

#define MAX_LIST 4096
#define MAX_OVERFLOWS 16
/* The largest buffer a P-block collective may need at one point: far
 * beyond any machine, and no product of sizes overflows a long below it. */
#define MAX_BUFFER_BYTES (1L << 62)

/* An integer literal of the file too large for 64 bits, by its line. */
struct overflow {
    int line;
    char text[48];
};

struct reader {
    const char *path;
    int is_quiet; /* config_peek_native: errors are config_load's to report */
    config_t cfg;
    struct overflow overflows[MAX_OVERFLOWS];
    int n_overflows;
};

static void __attribute__((format(printf, 2, 3)))
reader_say(const struct reader *r, const char *fmt, ...)
{
    va_list ap;
    if (r->is_quiet) {
        return;
    }
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
}

static void __attribute__((format(printf, 4, 5)))
report(const struct reader *r, const config_setting_t *s, const char *key,
       const char *fmt, ...)
{
    va_list ap;
    if (s) {
        fprintf(stderr, "%s:%d: %s: ", r->path, config_setting_source_line(s),
                key);
    } else {
        fprintf(stderr, "%s: %s: ", r->path, key);
    }
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

static int is_integer(const config_setting_t *s)
{
    int t = config_setting_type(s);
    return t == CONFIG_TYPE_INT || t == CONFIG_TYPE_INT64;
}

/* An integer in [min, max]; what describes the expected value. */
static int read_int(const struct reader *r, const config_setting_t *s,
                    const char *key, long long min, long long max,
                    const char *what, long long *out)
{
    if (!is_integer(s)) {
        report(r, s, key, "expected %s, got a %s", what,
               config_setting_type(s) == CONFIG_TYPE_FLOAT ? "float"
               : config_setting_type(s) == CONFIG_TYPE_STRING
                   ? "string"
                   : "list or group");
        return -1;
    }
    long long v = config_setting_get_int64(s);
    if (v == LLONG_MAX || v == LLONG_MIN) { /* see rewrite_integers */
        const char *text = "the value";
        for (int i = 0; i < r->n_overflows; i++) {
            if (r->overflows[i].line == (int)config_setting_source_line(s)) {
                text = r->overflows[i].text;
                break;
            }
        }
        report(r, s, key, "%s does not fit in 64 bits; expected %s", text,
               what);
        return -1;
    }
    if (v < min || v > max) {
        report(r, s, key, "%lld is not %s", v, what);
        return -1;
    }
    *out = v;
    return 0;
}

static int read_number(const struct reader *r, const config_setting_t *s,
                       const char *key, double *out)
{
    if (config_setting_type(s) == CONFIG_TYPE_FLOAT) {
        *out = config_setting_get_float(s);
    } else if (is_integer(s)) {
        *out = (double)config_setting_get_int64(s);
    } else {
        report(r, s, key, "expected a number");
        return -1;
    }
    return 0;
}

static int read_string(const struct reader *r, const config_setting_t *s,
                       const char *key, const char **out)
{
    if (config_setting_type(s) != CONFIG_TYPE_STRING) {
        report(r, s, key, "expected a string in double quotes");
        return -1;
    }
    *out = config_setting_get_string(s);
    return 0;
}

/* Appends name to a ", "-separated list in buf (for "valid: ..." hints). */
static void list_append(char *buf, size_t size, const char *name)
{
    size_t used = strlen(buf);
    snprintf(buf + used, size - used, "%s%s", used ? ", " : "", name);
}

static int is_sequence(const config_setting_t *s)
{
    return config_setting_is_array(s) || config_setting_is_list(s);
}

static int cmp_long(const void *a, const void *b)
{
    long x = *(const long *)a, y = *(const long *)b;
    return (x > y) - (x < y);
}

/* A list of sizes, each in [min, max]; sorted, duplicates refused. */
static int read_sizes(const struct reader *r, const config_setting_t *s,
                      const char *key, long min, long max, const char *what,
                      long **out, int *n_out)
{
    if (!is_sequence(s) || config_setting_length(s) == 0) {
        report(r, s, key, "expected a non-empty list like [1, 2, 4]");
        return -1;
    }
    int n = config_setting_length(s);
    if (n > MAX_LIST) {
        report(r, s, key, "more than %d entries", MAX_LIST);
        return -1;
    }
    long *v = malloc((size_t)n * sizeof *v);
    if (!v) {
        return -1;
    }
    for (int i = 0; i < n; i++) {
        long long x;
        if (read_int(r, config_setting_get_elem(s, (unsigned)i), key, min, max,
                     what, &x) != 0) {
            free(v);
            return -1;
        }
        v[i] = (long)x;
    }
    qsort(v, (size_t)n, sizeof *v, cmp_long);
    for (int i = 1; i < n; i++) {
        if (v[i] == v[i - 1]) {
            report(r, s, key, "%ld is listed twice", v[i]);
            free(v);
            return -1;
        }
    }
    *out = v;
    *n_out = n;
    return 0;
}

static int read_int_sizes(const struct reader *r, const config_setting_t *s,
                          const char *key, long min, long max, const char *what,
                          int **out, int *n_out)
{
    long *v;
    if (read_sizes(r, s, key, min, max, what, &v, n_out) != 0) {
        return -1;
    }
    int *iv = malloc((size_t)*n_out * sizeof *iv);
    if (!iv) {
        free(v);
        return -1;
    }
    for (int i = 0; i < *n_out; i++) {
        iv[i] = (int)v[i];
    }
    free(v);
    *out = iv;
    return 0;
}

/* message_sizes: a list, or { min; max; factor; } for a geometric series. */
static int read_message_sizes(const struct reader *r, const config_setting_t *s,
                              struct config *c)
{
    const char *what = "a message size in bytes (1 .. 2^50)";
    c->msg_line = config_setting_source_line(s);
    if (!config_setting_is_group(s)) {
        return read_sizes(r, s, "message_sizes", 1, CONFIG_MAX_MSG_BYTES, what,
                          &c->msg_sizes, &c->n_msgs);
    }
    static const char *const keys[] = {"min", "max", "factor"};
    long long v[3] = {0, 0, 0};
    for (int i = 0; i < config_setting_length(s); i++) {
        config_setting_t *e = config_setting_get_elem(s, (unsigned)i);
        const char *name = config_setting_name(e);
        int k = 0;
        while (k < 3 && strcmp(name, keys[k]) != 0) {
            k++;
        }
        char key[64];
        snprintf(key, sizeof key, "message_sizes.%s", name);
        if (k == 3) {
            report(r, e, key, "unknown key (valid: min, max, factor)");
            return -1;
        }
        if (read_int(r, e, key, k == 2 ? 2 : 1,
                     k == 2 ? 0x7fffffffLL : CONFIG_MAX_MSG_BYTES,
                     k == 2 ? "an integer factor >= 2" : what, &v[k]) != 0) {
            return -1;
        }
    }
    for (int k = 0; k < 3; k++) {
        if (!v[k]) {
            report(r, s, "message_sizes", "missing key '%s'", keys[k]);
            return -1;
        }
    }
    if (v[1] < v[0]) {
        report(r, s, "message_sizes", "max %lld is below min %lld", v[1], v[0]);
        return -1;
    }
    /* m <= max / factor: the next size neither overflows nor passes max. */
    int n = 1;
    for (long long m = v[0]; m <= v[1] / v[2]; m *= v[2]) {
        n++;
    }
    c->n_msgs = 0;
    c->msg_sizes = malloc((size_t)n * sizeof *c->msg_sizes);
    if (!c->msg_sizes) {
        return -1;
    }
    for (long long m = v[0];; m *= v[2]) {
        c->msg_sizes[c->n_msgs++] = (long)m;
        if (m > v[1] / v[2]) {
            break;
        }
    }
    return 0;
}

/* Adds collective d with all its algorithms (all the library can force,
 * for backend native). */
static int add_collective(const struct reader *r, const config_setting_t *s,
                          struct config *c, const struct coll_def *d)
{
    c->n_algs[c->n_colls] = 0;
    for (int a = 0; a < d->n_algs && a < CONFIG_MAX_ALGS; a++) {
        if (c->backend != BACKEND_NATIVE ||
            native_has_algorithm(d->name, d->algs[a].name)) {
            c->algs[c->n_colls][c->n_algs[c->n_colls]++] = a;
        }
    }
    if (c->n_algs[c->n_colls] == 0) {
        report(r, s, "collectives",
               "backend native: the MPI library offers no %s algorithm "
               "that can be forced",
               d->name);
        return -1;
    }
    c->colls[c->n_colls++] = d;
    return 0;
}

static int read_collectives(const struct reader *r, const config_setting_t *s,
                            struct config *c)
{
    if (!is_sequence(s) || config_setting_length(s) == 0 ||
        config_setting_length(s) > CONFIG_MAX_COLLS) {
        report(r, s, "collectives",
               "expected a non-empty list like [\"bcast\", \"reduce\"]");
        return -1;
    }
    for (int i = 0; i < config_setting_length(s); i++) {
        const char *name;
        config_setting_t *e = config_setting_get_elem(s, (unsigned)i);
        if (read_string(r, e, "collectives", &name) != 0) {
            return -1;
        }
        const struct coll_def *d = coll_find(name);
        if (!d) {
            char valid[256] = "";
            for (int k = 0; k < coll_table_size; k++) {
                list_append(valid, sizeof valid, coll_table[k]->name);
            }
            report(r, e, "collectives", "unknown collective '%s' (valid: %s)",
                   name, valid);
            return -1;
        }
        for (int k = 0; k < c->n_colls; k++) {
            if (c->colls[k] == d) {
                report(r, e, "collectives", "'%s' is listed twice", name);
                return -1;
            }
        }
        if (add_collective(r, e, c, d) != 0) {
            return -1;
        }
    }
    return 0;
}

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* The node-aware methods an algorithms entry names, into c's list for
 * collective ci (once each). A phase's algorithm "*" is each of its
 * collective's; its segment "*" (ALG/ followed by a star) each configured
 * segment size; an unsegmented algorithm takes none (of "*" or of a size
 * after "*": "*" followed by /1024). */
struct node_expansion {
    const struct reader *r;
    const config_setting_t *at;
    const char *key;
    struct config *c;
    int ci;
    const char *prefix;                          /* "node:" or "nodeK:" */
    char phases[NODE_N_PHASES][COLL_METHOD_MAX]; /* as written */
    int n_phases;
};

static int expand_phase(struct node_expansion *x, int k, char *name,
                        size_t used)
{
    struct config *c = x->c;
    const struct coll_def *d = c->colls[x->ci];
    if (k == x->n_phases) {
        char err[256];
        int m = coll_find_method(d, name, err, sizeof err);
        if (m < 0) {
            report(x->r, x->at, x->key, "%s", err);
            return -1;
        }
        int n = c->n_node_methods[x->ci];
        for (int i = 0; i < n; i++) {
            if (c->node_methods[x->ci][i] == m) {
                return 0; /* named twice by patterns: once is enough */
            }
        }
        if (n == CONFIG_MAX_NODE_METHODS) {
            report(x->r, x->at, x->key,
                   "more than %d node-aware methods for %s",
                   CONFIG_MAX_NODE_METHODS, d->name);
            return -1;
        }
        c->node_methods[x->ci][c->n_node_methods[x->ci]++] = m;
        return 0;
    }
    /* which collective phase k belongs to: the k-th phase d uses */
    const struct coll_def *pc = NULL;
    for (int ph = 0, seen = 0; ph < NODE_N_PHASES && !pc; ph++) {
        const struct coll_def *q = node_phase_coll(d, (enum node_phase_id)ph);
        if (q && seen++ == k) {
            pc = q;
        }
    }
    const char *text = x->phases[k];
    const char *slash = strchr(text, '/');
    size_t alg_len = slash ? (size_t)(slash - text) : strlen(text);
    int is_any_alg = alg_len == 1 && text[0] == '*';
    int is_any_seg = slash && strcmp(slash, "/*") == 0;
    if (!pc || (!is_any_alg && !is_any_seg)) {
        /* written out (or a phase too many): coll_find_method judges */
        int n = snprintf(name + used, COLL_METHOD_MAX - used, "%s%s",
                         k ? "+" : "", text);
        return n < 0 || (size_t)n >= COLL_METHOD_MAX - used
                   ? (report(x->r, x->at, x->key, "'%s...' is too long", name),
                      -1)
                   : expand_phase(x, k + 1, name, used + (size_t)n);
    }
    if (!is_any_alg) {
        char alg_name[COLL_METHOD_MAX];
        snprintf(alg_name, sizeof alg_name, "%.*s", (int)alg_len, text);
        if (coll_find_alg(pc, alg_name) < 0) {
            report(x->r, x->at, x->key, "no %s algorithm '%s'", pc->name,
                   alg_name);
            return -1;
        }
    }
    for (int a = 0; a < pc->n_algs; a++) {
        const struct coll_alg *alg = &pc->algs[a];
        if (!is_any_alg && (strlen(alg->name) != alg_len ||
                            strncmp(alg->name, text, alg_len) != 0)) {
            continue;
        }
        int n_segs = is_any_seg && alg->is_segmented ? c->n_segs : 1;
        for (int j = 0; j < n_segs; j++) {
            int n =
                is_any_seg && alg->is_segmented
                    ? snprintf(name + used, COLL_METHOD_MAX - used, "%s%s/%d",
                               k ? "+" : "", alg->name, c->seg_sizes[j])
                : slash && !is_any_seg && alg->is_segmented
                    ? snprintf(name + used, COLL_METHOD_MAX - used, "%s%s%s",
                               k ? "+" : "", alg->name, slash)
                    : snprintf(name + used, COLL_METHOD_MAX - used, "%s%s",
                               k ? "+" : "", alg->name);
            if (n < 0 || (size_t)n >= COLL_METHOD_MAX - used ||
                expand_phase(x, k + 1, name, used + (size_t)n) != 0) {
                return -1;
            }
        }
    }
    return 0;
}

/* Expands entry name (a node-aware method, maybe with patterns). */
static int read_node_entry(const struct reader *r, const config_setting_t *at,
                           const char *key, struct config *c, int ci,
                           const char *entry)
{
    struct node_expansion x = {r, at, key, c, ci, NULL, {{0}}, 0};
    if (c->backend == BACKEND_NATIVE) {
        report(r, at, key,
               "'%s': node-aware methods compose our own algorithms "
               "(backend own)",
               entry);
        return -1;
    }
    const char *colon = strchr(entry, ':');
    char name[COLL_METHOD_MAX];
    size_t used = (size_t)(colon - entry) + 1;
    if (used >= sizeof name) {
        report(r, at, key, "'%s' is too long", entry);
        return -1;
    }
    memcpy(name, entry, used);
    name[used] = '\0';
    for (const char *p = colon + 1;; x.n_phases++) {
        const char *end = strchr(p, '+');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (x.n_phases == NODE_N_PHASES || len >= COLL_METHOD_MAX) {
            report(r, at, key, "'%s': too many phases or too long", entry);
            return -1;
        }
        memcpy(x.phases[x.n_phases], p, len);
        x.phases[x.n_phases][len] = '\0';
        if (!end) {
            x.n_phases++;
            break;
        }
        p = end + 1;
    }
    return expand_phase(&x, 0, name, used);
}

/* algorithms = { bcast = ["linear", "binomial"]; }: a subset per collective,
 * kept in table order so the sweep's order never depends on the config's;
 * "*" is every algorithm of the table, and node-aware methods
 * (collectives/method.h) may be listed, with patterns. */
static int read_algorithms(const struct reader *r, const config_setting_t *s,
                           struct config *c)
{
    if (!config_setting_is_group(s)) {
        report(r, s, "algorithms",
               "expected a group like { bcast = [\"linear\"]; }");
        return -1;
    }
    for (int i = 0; i < config_setting_length(s); i++) {
        config_setting_t *e = config_setting_get_elem(s, (unsigned)i);
        const char *coll = config_setting_name(e);
        char key[64];
        snprintf(key, sizeof key, "algorithms.%s", coll);
        int ci = 0;
        while (ci < c->n_colls && strcmp(c->colls[ci]->name, coll) != 0) {
            ci++;
        }
        if (ci == c->n_colls) {
            report(r, e, key, "'%s' is not in collectives", coll);
            return -1;
        }
        const struct coll_def *d = c->colls[ci];
        if (!is_sequence(e) || config_setting_length(e) == 0) {
            report(r, e, key, "expected a non-empty list of algorithm names");
            return -1;
        }
        int chosen[CONFIG_MAX_ALGS] = {0};
        int is_native = c->backend == BACKEND_NATIVE;
        c->n_node_methods[ci] = 0;
        for (int k = 0; k < config_setting_length(e); k++) {
            const char *name;
            config_setting_t *a = config_setting_get_elem(e, (unsigned)k);
            if (read_string(r, a, key, &name) != 0) {
                return -1;
            }
            if (node_is_method_name(name)) {
                if (read_node_entry(r, a, key, c, ci, name) != 0) {
                    return -1;
                }
                continue;
            }
            if (strcmp(name, "*") == 0) {
                for (int v = 0; v < d->n_algs && v < CONFIG_MAX_ALGS; v++) {
                    chosen[v] = !is_native ||
                                native_has_algorithm(d->name, d->algs[v].name);
                }
                continue;
            }
            int ai = coll_find_alg(d, name);
            if (ai < 0 || (is_native && !native_has_algorithm(d->name, name))) {
                char valid[512] = "";
                for (int v = 0; v < d->n_algs; v++) {
                    if (!is_native ||
                        native_has_algorithm(d->name, d->algs[v].name)) {
                        list_append(valid, sizeof valid, d->algs[v].name);
                    }
                }
                report(r, a, key, "%s%s has no algorithm '%s' (valid: %s%s)",
                       is_native ? "backend native: the MPI library's " : "",
                       d->name, name, valid,
                       is_native || !node_has_methods(d)
                           ? ""
                           : "; or node-aware methods \"node:...\"");
                return -1;
            }
            if (chosen[ai]) {
                report(r, a, key, "'%s' is listed twice", name);
                return -1;
            }
            chosen[ai] = 1;
        }
        c->n_algs[ci] = 0;
        for (int a = 0; a < d->n_algs && a < CONFIG_MAX_ALGS; a++) {
            if (chosen[a]) {
                c->algs[ci][c->n_algs[ci]++] = a;
            }
        }
        qsort(c->node_methods[ci], (size_t)c->n_node_methods[ci],
              sizeof c->node_methods[ci][0], cmp_int);
        c->has_node_methods |= c->n_node_methods[ci] > 0;
    }
    return 0;
}

const char *const config_arrival_names[] = {
    "together",  "barrier",    "profile", "uniform",
    "root_last", "root_first", "one_late"};

/* A second of delay: beyond any arrival spread worth tuning for, and each
 * call of the sweep waits that long. */
#define MAX_SPREAD_US 1e6

/* The valid values of measure.arrival, for its error lines: the shapes
 * in shapes, everything in buf. */
static void arrival_hint(char *buf, size_t size, char *shapes,
                         size_t shapes_size)
{
    shapes[0] = '\0';
    for (int a = ARRIVAL_UNIFORM; a < ARRIVAL_COUNT; a++) {
        list_append(shapes, shapes_size, config_arrival_names[a]);
    }
    snprintf(buf, size,
             "valid: \"together\", \"barrier\", \"profile\" (with profile = "
             "...) or { spread_us = 50.0; shape = \"uniform\"; } with shape "
             "one of %s",
             shapes);
}

/* measure.arrival: "together", "barrier", "profile" or { spread_us;
 * shape; } ("profile" is checked against the profile by
 * check_profile_arrival). */
static int read_arrival(const struct reader *r, const config_setting_t *s,
                        struct config_measure *m)
{
    static const char key[] = "measure.arrival";
    char hint[256], shapes[128];
    const char *name = NULL;
    arrival_hint(hint, sizeof hint, shapes, sizeof shapes);
    if (config_setting_type(s) == CONFIG_TYPE_STRING) {
        name = config_setting_get_string(s);
        for (int a = ARRIVAL_TOGETHER; a <= ARRIVAL_PROFILE; a++) {
            if (strcmp(name, config_arrival_names[a]) == 0) {
                m->arrival = (enum config_arrival)a;
                return 0;
            }
        }
        report(r, s, key, "\"%s\" is not an arrival pattern (%s)", name, hint);
        return -1;
    }
    if (!config_setting_is_group(s)) {
        report(r, s, key, "expected a string or a group (%s)", hint);
        return -1;
    }
    int has_spread = 0;
    m->arrival = ARRIVAL_TOGETHER;
    for (int i = 0; i < config_setting_length(s); i++) {
        config_setting_t *e = config_setting_get_elem(s, (unsigned)i);
        const char *field = config_setting_name(e);
        if (strcmp(field, "spread_us") == 0) {
            if (read_number(r, e, "measure.arrival.spread_us", &m->spread_us) !=
                0) {
                return -1;
            }
            if (!(m->spread_us >= 0 && m->spread_us <= MAX_SPREAD_US)) {
                report(r, e, "measure.arrival.spread_us",
                       "%g is not a delay in [0, %g] microseconds",
                       m->spread_us, MAX_SPREAD_US);
                return -1;
            }
            has_spread = 1;
        } else if (strcmp(field, "shape") == 0) {
            if (read_string(r, e, "measure.arrival.shape", &name) != 0) {
                return -1;
            }
            for (int a = ARRIVAL_UNIFORM; a < ARRIVAL_COUNT; a++) {
                if (strcmp(name, config_arrival_names[a]) == 0) {
                    m->arrival = (enum config_arrival)a;
                }
            }
            if (m->arrival == ARRIVAL_TOGETHER) {
                report(r, e, "measure.arrival.shape",
                       "\"%s\" is not a shape (valid: %s)", name, shapes);
                return -1;
            }
        } else {
            report(r, e, key, "unknown key %s (valid: spread_us, shape)",
                   field);
            return -1;
        }
    }
    if (!has_spread || m->arrival == ARRIVAL_TOGETHER) {
        report(r, s, key, "%s missing (%s)", has_spread ? "shape" : "spread_us",
               hint);
        return -1;
    }
    return 0;
}

static int read_measure(const struct reader *r, const config_setting_t *s,
                        struct config *c)
{
    if (!config_setting_is_group(s)) {
        report(r, s, "measure", "expected a group like { warmup = 2; }");
        return -1;
    }
    for (int i = 0; i < config_setting_length(s); i++) {
        config_setting_t *e = config_setting_get_elem(s, (unsigned)i);
        const char *name = config_setting_name(e);
        char key[64];
        long long v = 0;
        int rc;
        snprintf(key, sizeof key, "measure.%s", name);
        if (strcmp(name, "warmup") == 0) {
            rc = read_int(r, e, key, 0, 1000000, "a count >= 0", &v);
            c->measure.warmup = (int)v;
        } else if (strcmp(name, "min_reps") == 0) {
            rc = read_int(r, e, key, 1, 1000000, "a count >= 1", &v);
            c->measure.min_reps = (int)v;
        } else if (strcmp(name, "max_reps") == 0) {
            rc = read_int(r, e, key, 1, 1000000, "a count >= 1", &v);
            c->measure.max_reps = (int)v;
        } else if (strcmp(name, "rse") == 0) {
            rc = read_number(r, e, key, &c->measure.rse);
            if (rc == 0 && !(c->measure.rse > 0 && c->measure.rse < 1)) {
                report(r, e, key, "%g is not a fraction in (0, 1)",
                       c->measure.rse);
                rc = -1;
            }
        } else if (strcmp(name, "arrival") == 0) {
            rc = read_arrival(r, e, &c->measure);
        } else {
            report(r, e, key,
                   "unknown key (valid: warmup, min_reps, max_reps, rse, "
                   "arrival)");
            rc = -1;
        }
        if (rc != 0) {
            return -1;
        }
    }
    if (c->measure.max_reps < c->measure.min_reps) {
        report(r, s, "measure", "max_reps %d is below min_reps %d",
               c->measure.max_reps, c->measure.min_reps);
        return -1;
    }
    return 0;
}

static int read_search_options(const struct reader *r,
                               const config_setting_t *s, struct config *c)
{
    if (!config_setting_is_group(s)) {
        report(r, s, "search_options",
               "expected a group like { lookahead = 3; drop_ratio = 1.3; "
               "steep_rise = 0; }");
        return -1;
    }
    for (int i = 0; i < config_setting_length(s); i++) {
        config_setting_t *e = config_setting_get_elem(s, (unsigned)i);
        const char *name = config_setting_name(e);
        char key[64];
        long long v;
        snprintf(key, sizeof key, "search_options.%s", name);
        if (strcmp(name, "lookahead") == 0) {
            if (read_int(r, e, key, 0, 64, "a number of steps in 0..64", &v) !=
                0) {
                return -1;
            }
            c->search_params.lookahead = (int)v;
        } else if (strcmp(name, "drop_ratio") == 0) {
            if (read_number(r, e, key, &c->search_params.drop_ratio) != 0) {
                return -1;
            }
            if (!(c->search_params.drop_ratio >= 1)) {
                report(r, e, key, "%g is not a ratio >= 1",
                       c->search_params.drop_ratio);
                return -1;
            }
        } else if (strcmp(name, "steep_rise") == 0) {
            if (read_number(r, e, key, &c->search_params.steep_rise) != 0) {
                return -1;
            }
            if (!(c->search_params.steep_rise >= 0)) {
                report(r, e, key, "%g is not a fraction >= 0",
                       c->search_params.steep_rise);
                return -1;
            }
        } else {
            report(r, e, key,
                   "unknown key (valid: lookahead, drop_ratio, steep_rise)");
            return -1;
        }
    }
    return 0;
}

static int read_search(const struct reader *r, const config_setting_t *s,
                       struct config *c)
{
    const char *name;
    if (read_string(r, s, "search", &name) != 0) {
        return -1;
    }
    c->search = search_find(name);
    c->search_line = config_setting_source_line(s);
    if (!c->search) {
        char valid[256] = "";
        for (int k = 0; k < search_strategies_size; k++) {
            list_append(valid, sizeof valid, search_strategies[k].name);
        }
        report(r, s, "search", "unknown strategy '%s' (valid: %s)", name,
               valid);
        return -1;
    }
    return 0;
}

/* grid = "full" (every point) or "adaptive" (search/refine.h). */
static int read_grid(const struct reader *r, const config_setting_t *s,
                     struct config *c)
{
    const char *name;
    if (read_string(r, s, "grid", &name) != 0) {
        return -1;
    }
    c->is_grid_adaptive = strcmp(name, "adaptive") == 0;
    if (!c->is_grid_adaptive && strcmp(name, "full") != 0) {
        report(r, s, "grid", "unknown grid '%s' (valid: full, adaptive)", name);
        return -1;
    }
    if (c->is_grid_adaptive && config_lookup(&r->cfg, "profile")) {
        report(r, s, "grid",
               "adaptive not with profile (the profile's points are the grid)");
        return -1;
    }
    return 0;
}

/* grid_options = { start = "model"; max_penalty = F; budget = F; }
 * (search/refine.h). */
static int read_grid_options(const struct reader *r, const config_setting_t *s,
                             struct config *c)
{
    if (!config_setting_is_group(s)) {
        report(r, s, "grid_options",
               "expected a group like { max_penalty = 0.05; }");
        return -1;
    }
    int is_model_start = 0;
    double budget = 0;
    const config_setting_t *budget_at = NULL;
    for (int i = 0; i < config_setting_length(s); i++) {
        config_setting_t *e = config_setting_get_elem(s, (unsigned)i);
        const char *name = config_setting_name(e);
        char key[64];
        snprintf(key, sizeof key, "grid_options.%s", name);
        if (strcmp(name, "start") == 0) {
            const char *start;
            if (read_string(r, e, key, &start) != 0) {
                return -1;
            }
            is_model_start = strcmp(start, "model") == 0;
            if (!is_model_start && strcmp(start, "grid") != 0) {
                report(r, e, key, "unknown start '%s' (valid: grid, model)",
                       start);
                return -1;
            }
            continue;
        }
        int is_budget = strcmp(name, "budget") == 0;
        if (!is_budget && strcmp(name, "max_penalty") != 0) {
            report(r, e, key,
                   "unknown key (valid: max_penalty, start, budget)");
            return -1;
        }
        double *v = is_budget ? &budget : &c->grid_max_penalty;
        if (read_number(r, e, key, v) != 0) {
            return -1;
        }
        if (!(*v > 0) || (is_budget && *v > 1)) {
            report(r, e, key, "%g is not a fraction > 0%s", *v,
                   is_budget ? " and <= 1" : "");
            return -1;
        }
        budget_at = is_budget ? e : budget_at;
    }
    if (budget_at && !is_model_start) {
        report(r, budget_at, "grid_options.budget",
               "needs start = \"model\" (the walk of the coarse grid has "
               "no budget)");
        return -1;
    }
    if (is_model_start) {
        c->grid_budget = budget > 0 ? budget : CONFIG_GRID_BUDGET;
        c->grid_max_penalty = c->grid_max_penalty > 0 ? c->grid_max_penalty
                                                      : CONFIG_GRID_MAX_PENALTY;
    }
    return 0;
}

const char *const config_backend_names[] = {"own", "native"};

static int read_backend(const struct reader *r, const config_setting_t *s,
                        struct config *c)
{
    const char *name;
    if (read_string(r, s, "backend", &name) != 0) {
        return -1;
    }
    for (int b = 0; b < 2; b++) {
        if (strcmp(name, config_backend_names[b]) == 0) {
            c->backend = (enum config_backend)b;
            return 0;
        }
    }
    report(r, s, "backend", "unknown backend '%s' (valid: own, native)", name);
    return -1;
}

static int read_baseline(const struct reader *r, const config_setting_t *s,
                         struct config *c)
{
    if (config_setting_type(s) != CONFIG_TYPE_BOOL) {
        report(r, s, "baseline", "expected true or false");
        return -1;
    }
    c->has_baseline = config_setting_get_bool(s);
    return 0;
}

static int read_output(const struct reader *r, const config_setting_t *s,
                       struct config *c)
{
    const char *v;
    if (read_string(r, s, "output", &v) != 0) {
        return -1;
    }
    if (!*v || strlen(v) >= sizeof c->output) {
        report(r, s, "output", "expected a directory path");
        return -1;
    }
    snprintf(c->output, sizeof c->output, "%s", v);
    return 0;
}

static int read_procs(const struct reader *r, const config_setting_t *s,
                      struct config *c)
{
    /* One process has nothing to tune (every algorithm is a local copy,
     * timed at 0 under SMPI: a penalty of 0 / 0 there). */
    c->procs_line = config_setting_source_line(s);
    return read_int_sizes(r, s, "procs", 2, 1 << 24,
                          "a number of processes >= 2 (one has nothing to "
                          "tune)",
                          &c->procs, &c->n_procs);
}

static int read_ranks_per_node(const struct reader *r,
                               const config_setting_t *s, struct config *c)
{
    free(c->ppn); /* the default [1] */
    c->ppn = NULL;
    c->ppn_line = config_setting_source_line(s);
    c->is_ppn_given = 1;
    return read_int_sizes(r, s, "ranks_per_node", 1, 1 << 24,
                          "a number of ranks on each node >= 1", &c->ppn,
                          &c->n_ppn);
}

static int read_segment_sizes(const struct reader *r, const config_setting_t *s,
                              struct config *c)
{
    if (read_int_sizes(r, s, "segment_sizes", 0, 0x7fffffffL,
                       "a segment size in bytes (0 = unsegmented)",
                       &c->seg_sizes, &c->n_segs) != 0) {
        return -1;
    }
    if (c->n_segs > CONFIG_MAX_SEGS) {
        report(r, s, "segment_sizes", "more than %d entries", CONFIG_MAX_SEGS);
        return -1;
    }
    return 0;
}

static int read_chain_fanout(const struct reader *r, const config_setting_t *s,
                             struct config *c)
{
    long long v;
    if (read_int(r, s, "chain_fanout", 1, 32, "a number of chains in 1..32",
                 &v) != 0) {
        return -1;
    }
    c->chain_fanout = (int)v;
    return 0;
}

/* Sorted distinct values of v (n of them, reordered) stay in v; their
 * number. */
static int distinct_longs(long *v, int n)
{
    int kept = 0;
    qsort(v, (size_t)n, sizeof *v, cmp_long);
    for (int i = 0; i < n; i++) {
        if (kept == 0 || v[i] != v[kept - 1]) {
            v[kept++] = v[i];
        }
    }
    return kept;
}

/* A profile point's recorded arrival as the pattern its point is timed
 * under with measure.arrival = "profile": its median spread in its most
 * frequent shape; "mixed" as "uniform" (spread over every rank), and a
 * spread beyond MAX_SPREAD_US as that. */
static void profile_pattern(const struct profile_arrival *a,
                            struct config_point *gp)
{
    static const enum config_arrival of_shape[PROFILE_N_SHAPES] = {
        [PROFILE_TOGETHER] = ARRIVAL_TOGETHER,
        [PROFILE_ROOT_LAST] = ARRIVAL_ROOT_LAST,
        [PROFILE_ROOT_FIRST] = ARRIVAL_ROOT_FIRST,
        [PROFILE_ONE_LATE] = ARRIVAL_ONE_LATE,
        [PROFILE_UNIFORM] = ARRIVAL_UNIFORM,
        [PROFILE_MIXED] = ARRIVAL_UNIFORM,
    };
    gp->arrival = a->sampled > 0 ? of_shape[a->shape] : ARRIVAL_TOGETHER;
    gp->spread_us = a->spread_median_us < MAX_SPREAD_US ? a->spread_median_us
                                                        : MAX_SPREAD_US;
    if (gp->arrival == ARRIVAL_TOGETHER) {
        gp->spread_us = 0;
    }
}

/* A profile point's recorded calls, replayed in place of its shape where
 * it has them on the point's procs (delays beyond MAX_SPREAD_US are not
 * replayed: the shape is). */
static void profile_vectors(const struct profile_point *pt,
                            struct config_point *gp)
{
    gp->n_vectors = 0;
    gp->vectors_us = NULL;
    if (pt->arrival.sampled <= 0 || pt->n_vectors <= 0 ||
        pt->procs != gp->procs) {
        return;
    }
    for (long i = 0; i < (long)pt->n_vectors * pt->procs; i++) {
        if (!(pt->vectors_us[i] <= MAX_SPREAD_US)) {
            return;
        }
    }
    gp->n_vectors = pt->n_vectors;
    gp->vectors_us = pt->vectors_us;
}

/* A profile point's next call, run behind each timed call where the
 * profile names one this build has (a gap beyond MAX_SPREAD_US: none). */
static void profile_next(const struct profile_point *pt,
                         struct config_point *gp)
{
    gp->next_coll = pt->arrival.sampled > 0 && pt->next_collective[0]
                        ? coll_find(pt->next_collective)
                        : NULL;
    gp->next_msg_bytes = pt->next_msg_bytes;
    gp->next_gap_us = pt->next_gap_us > 0 ? pt->next_gap_us : 0;
    if (gp->next_gap_us > MAX_SPREAD_US) {
        gp->next_coll = NULL;
    }
}

/* The profile's points of the configured collectives (all it names when
 * `collectives` is not given), costliest first, each at its ranks per
 * node; a message of 0 bytes or a communicator of one process (a local
 * copy) has nothing to tune. procs and message sizes are theirs. */
static int profile_points(const struct reader *r, const config_setting_t *s,
                          struct config *c)
{
    const struct profile *p = c->profile;
    int is_given = c->n_colls > 0;
    long *procs = malloc((size_t)(p->n_points + 1) * sizeof *procs);
    long *msgs = malloc((size_t)(p->n_points + 1) * sizeof *msgs);
    c->points = malloc((size_t)(p->n_points + 1) * sizeof *c->points);
    int n_procs = 0, n_msgs = 0, rc = -1;
    if (!procs || !msgs || !c->points) {
        goto done;
    }
    for (int i = 0; i < p->n_points; i++) {
        const struct profile_point *pt = &p->points[i];
        const struct coll_def *d = coll_find(pt->collective);
        assert(d); /* config_load_profile checked */
        int has_data =
            d->send_blocks != BLOCKS_NONE || d->recv_blocks != BLOCKS_NONE;
        long msg = has_data ? pt->msg_bytes : 0;
        if ((has_data && msg == 0) || pt->procs < 2) {
            continue; /* nothing to tune: not even its collective */
        }
        int ci = 0;
        while (ci < c->n_colls && c->colls[ci] != d) {
            ci++;
        }
        if (ci == c->n_colls && (is_given || c->n_colls == CONFIG_MAX_COLLS ||
                                 add_collective(r, s, c, d) != 0)) {
            if (is_given) {
                continue;
            }
            goto done;
        }
        /* A layout with as many ranks on every node; one that is not
         * (per_node the most on one node, not dividing procs) cannot be
         * built from whole nodes: the sweep cannot time it. */
        int ppn = pt->per_node > 0 ? pt->per_node : 1;
        if (pt->procs % ppn != 0) {
            if (!r->is_quiet) {
                fprintf(stderr,
                        "%s: %s on %d ranks, at most %d on a node: not "
                        "as many ranks on every node, left out\n",
                        c->profile_path, d->name, pt->procs, ppn);
            }
            continue;
        }
        int is_seen = 0;
        for (int k = 0; k < c->n_points && !is_seen; k++) {
            is_seen = c->points[k].ci == ci &&
                      c->points[k].procs == pt->procs &&
                      c->points[k].ppn == ppn && c->points[k].msg_bytes == msg;
        }
        if (is_seen) {
            continue;
        }
        struct config_point *gp = &c->points[c->n_points++];
        *gp = (struct config_point){
            .ci = ci, .procs = pt->procs, .ppn = ppn, .msg_bytes = msg};
        profile_pattern(&pt->arrival, gp);
        profile_vectors(pt, gp);
        profile_next(pt, gp);
        gp->unrecorded_line = pt->arrival.sampled > 0 ? 0 : pt->line;
        procs[n_procs++] = pt->procs;
        if (has_data) {
            msgs[n_msgs++] = msg;
        }
    }
    if (c->n_points == 0) {
        report(r, s, "profile", "%s has no point of %s to tune",
               c->profile_path,
               is_given ? "the configured collectives" : "any collective");
        goto done;
    }
    if (n_msgs == 0) {
        msgs[n_msgs++] = 1; /* barriers alone: no message size is timed */
    }
    c->n_procs = distinct_longs(procs, n_procs);
    c->n_msgs = distinct_longs(msgs, n_msgs);
    c->procs = malloc((size_t)c->n_procs * sizeof *c->procs);
    if (!c->procs) {
        goto done;
    }
    for (int i = 0; i < c->n_procs; i++) {
        c->procs[i] = (int)procs[i];
    }
    qsort(c->procs, (size_t)c->n_procs, sizeof *c->procs, cmp_int);
    c->msg_sizes = msgs;
    msgs = NULL;
    c->procs_line = c->msg_line = config_setting_source_line(s);
    rc = 0;
done:
    free(procs);
    free(msgs);
    return rc;
}

/* profile = "app.prof" (AUTOTUNE_PROFILE's output): its points are the
 * grid. Read after collectives (which then selects among them), instead
 * of procs and message_sizes. */
static int read_profile(const struct reader *r, const config_setting_t *s,
                        struct config *c)
{
    const char *v;
    FILE *probe;
    if (read_string(r, s, "profile", &v) != 0) {
        return -1;
    }
    if (!*v || strlen(v) >= sizeof c->profile_path) {
        report(r, s, "profile", "expected the path of a profile");
        return -1;
    }
    snprintf(c->profile_path, sizeof c->profile_path, "%s", v);
    if (!(probe = fopen(v, "r"))) {
        report(r, s, "profile", "cannot read '%s': %s", v, strerror(errno));
        return -1;
    }
    fclose(probe);
    if (config_load_profile(v, &c->profile) != 0) {
        return -1; /* it named the profile's file and line */
    }
    profile_sort_by_cost(c->profile);
    return profile_points(r, s, c);
}

/* The top-level keys, in the order they are read: backend first, since it
 * decides which algorithms a collective offers; algorithms after
 * collectives. */
static const struct config_key {
    const char *name;
    int is_required;
    int (*read)(const struct reader *r, const config_setting_t *s,
                struct config *c);
} config_keys[] = {
    {"backend", 0, read_backend},
    {"output", 1, read_output},
    {"collectives", 1, read_collectives},
    {"profile", 0, read_profile},
    {"procs", 1, read_procs},
    {"ranks_per_node", 0, read_ranks_per_node},
    {"message_sizes", 1, read_message_sizes},
    {"segment_sizes", 1, read_segment_sizes},
    {"algorithms", 0, read_algorithms},
    {"search", 0, read_search},
    {"grid", 0, read_grid},
    {"grid_options", 0, read_grid_options},
    {"measure", 0, read_measure},
    {"chain_fanout", 0, read_chain_fanout},
    {"search_options", 0, read_search_options},
    {"baseline", 0, read_baseline},
};
#define N_CONFIG_KEYS ((int)(sizeof config_keys / sizeof config_keys[0]))

/* A collective whose buffers hold P blocks (gather's root: P times the
 * message) must keep its largest buffer countable in a long. */
static int check_buffers(const struct reader *r, const config_setting_t *s,
                         const struct config *c)
{
    int max_procs = c->procs[c->n_procs - 1];
    long max_msg = c->msg_sizes[c->n_msgs - 1];
    for (int ci = 0; ci < c->n_colls; ci++) {
        const struct coll_def *d = c->colls[ci];
        if ((d->send_blocks >= BLOCKS_ROOT_P ||
             d->recv_blocks >= BLOCKS_ROOT_P) &&
            max_msg > MAX_BUFFER_BYTES / max_procs) {
            report(r, s, "message_sizes",
                   "%s at %ld bytes a block on %d processes needs a buffer "
                   "of more than 2^62 bytes",
                   d->name, max_msg, max_procs);
            return -1;
        }
    }
    return 0;
}

static int cmp_layout(const void *a, const void *b)
{
    const struct config_layout *x = a, *y = b;
    if (x->ppn != y->ppn) {
        return x->ppn < y->ppn ? -1 : 1;
    }
    return (x->procs > y->procs) - (x->procs < y->procs);
}

/* The layouts of procs x ranks_per_node: those where ranks per node
 * divide procs; one line for each ranks_per_node value that leaves some
 * procs out. */
static int grid_layouts(const struct reader *r, struct config *c)
{
    const config_setting_t *s = config_lookup(&r->cfg, "ranks_per_node");
    c->layouts =
        malloc((size_t)c->n_procs * (size_t)c->n_ppn * sizeof *c->layouts);
    if (!c->layouts) {
        return -1;
    }
    for (int k = 0; k < c->n_ppn; k++) {
        char left_out[256] = "";
        for (int i = 0; i < c->n_procs; i++) {
            if (c->procs[i] % c->ppn[k] == 0) {
                c->layouts[c->n_layouts++] =
                    (struct config_layout){c->procs[i], c->ppn[k]};
            } else {
                char v[16];
                snprintf(v, sizeof v, "%d", c->procs[i]);
                list_append(left_out, sizeof left_out, v);
            }
        }
        if (*left_out && !r->is_quiet) {
            fprintf(stderr,
                    "%s:%d: ranks_per_node: %d does not divide procs %s: "
                    "those points are left out\n",
                    r->path, c->ppn_line, c->ppn[k], left_out);
        }
    }
    if (c->n_layouts == 0) {
        report(r, s, "ranks_per_node",
               "no value divides any of procs: the grid is empty");
        return -1;
    }
    return 0;
}

/* A profile's layouts: its points'. */
static int profile_layouts(struct config *c)
{
    c->layouts = malloc((size_t)(c->n_points + 1) * sizeof *c->layouts);
    if (!c->layouts) {
        return -1;
    }
    for (int i = 0; i < c->n_points; i++) {
        struct config_layout l = {c->points[i].procs, c->points[i].ppn};
        int is_seen = 0;
        for (int k = 0; k < c->n_layouts && !is_seen; k++) {
            is_seen =
                c->layouts[k].procs == l.procs && c->layouts[k].ppn == l.ppn;
        }
        if (!is_seen) {
            c->layouts[c->n_layouts++] = l;
        }
    }
    qsort(c->layouts, (size_t)c->n_layouts, sizeof *c->layouts, cmp_layout);
    /* The profile says each point's ranks per node: the sweep places every
     * point on whole nodes so (one rank per node too), never as launched;
     * its ranks_per_node are the points' */
    c->is_ppn_given = 1;
    c->n_ppn = 0;
    int *ppn = realloc(c->ppn, (size_t)c->n_layouts * sizeof *ppn);
    if (!ppn) {
        return -1;
    }
    c->ppn = ppn;
    for (int k = 0; k < c->n_layouts; k++) {
        if (c->n_ppn == 0 || c->ppn[c->n_ppn - 1] != c->layouts[k].ppn) {
            c->ppn[c->n_ppn++] = c->layouts[k].ppn;
        }
    }
    return 0;
}

/* measure.arrival = "profile": a profile, with an arrival line at every
 * point of the grid (an older libautotune's has none). */
static int check_profile_arrival(const struct reader *r, const struct config *c)
{
    if (c->measure.arrival != ARRIVAL_PROFILE) {
        return 0;
    }
    if (!c->profile) {
        report(r, config_lookup(&r->cfg, "measure.arrival"), "measure.arrival",
               "\"profile\" needs profile = \"app.prof\" (the application "
               "profile whose arrivals each point is timed under)");
        return -1;
    }
    for (int i = 0; i < c->n_points; i++) {
        const struct config_point *gp = &c->points[i];
        if (gp->unrecorded_line) {
            if (!r->is_quiet) {
                fprintf(stderr,
                        "%s:%d: %s on %d ranks, %ld bytes: no arrival line, "
                        "which measure.arrival = \"profile\" (%s) needs "
                        "(profile the application again with this "
                        "libautotune)\n",
                        c->profile_path, gp->unrecorded_line,
                        c->colls[gp->ci]->name, gp->procs, gp->msg_bytes,
                        r->path);
            }
            return -1;
        }
    }
    return 0;
}

/* Reads every key in the table's order; unknown and missing keys first. */
static int read_keys(const struct reader *r, struct config *c)
{
    config_setting_t *root = config_root_setting(&r->cfg);
    config_setting_t *found[N_CONFIG_KEYS] = {0};

    for (int i = 0; i < config_setting_length(root); i++) {
        config_setting_t *s = config_setting_get_elem(root, (unsigned)i);
        const char *name = config_setting_name(s);
        int k = 0;
        while (k < N_CONFIG_KEYS && strcmp(name, config_keys[k].name) != 0) {
            k++;
        }
        if (k == N_CONFIG_KEYS) {
            char valid[512] = "";
            for (int v = 0; v < N_CONFIG_KEYS; v++) {
                list_append(valid, sizeof valid, config_keys[v].name);
            }
            report(r, s, name, "unknown key (valid: %s)", valid);
            return -1;
        }
        found[k] = s;
    }
    /* With a profile, its points replace procs and message_sizes, and
     * collectives is optional. */
    int has_profile = config_lookup(&r->cfg, "profile") != NULL;
    for (int k = 0; k < N_CONFIG_KEYS; k++) {
        const char *name = config_keys[k].name;
        int is_grid_key = strcmp(name, "procs") == 0 ||
                          strcmp(name, "ranks_per_node") == 0 ||
                          strcmp(name, "message_sizes") == 0;
        if (has_profile && is_grid_key && found[k]) {
            report(r, found[k], name,
                   "not with profile (the profile's points are the grid)");
            return -1;
        }
        if (has_profile && (is_grid_key || strcmp(name, "collectives") == 0)) {
            continue;
        }
        if (config_keys[k].is_required && !found[k]) {
            report(r, NULL, config_keys[k].name, "missing (required)");
            return -1;
        }
    }
    for (int k = 0; k < N_CONFIG_KEYS; k++) {
        if (found[k] && config_keys[k].read(r, found[k], c) != 0) {
            return -1;
        }
    }
    if ((has_profile ? profile_layouts(c) : grid_layouts(r, c)) != 0 ||
        check_profile_arrival(r, c) != 0) {
        return -1;
    }
    return check_buffers(
        r, config_lookup(&r->cfg, has_profile ? "profile" : "message_sizes"),
        c);
}

/* libconfig 1.5 reads an integer without the L suffix in 32 bits and keeps
 * the low bits of a larger one, silently (4294968320 becomes 1024). So the
 * text is read here first and every integer literal gets the suffix (all,
 * since an array may not mix 32- and 64-bit elements); one beyond 64 bits
 * becomes LLONG_MAX (LLONG_MIN if negative) and is remembered by its line,
 * for read_int to report with its own text.
 * Strings and comments are copied as they are; lines do not move.
 * *out is caller-frees. */
static int rewrite_integers(struct reader *r, const char *in, size_t n,
                            char **out)
{
    char *o = malloc(2 * n + 1); /* every token at most doubles */
    size_t k = 0;
    int line = 1;
    if (!o) {
        reader_say(r, "%s: out of memory\n", r->path);
        return -1;
    }
    for (size_t i = 0; i < n;) {
        size_t j = i + 1;
        char ch = in[i];
        int is_number = isdigit((unsigned char)ch) ||
                        ((ch == '-' || ch == '+' || ch == '.') && i + 1 < n &&
                         isdigit((unsigned char)in[i + 1]));
        if (ch == '"') {
            while (j < n && in[j] != '"') {
                j += in[j] == '\\' && j + 1 < n ? 2 : 1;
            }
            j += j < n;
        } else if (ch == '#' || (ch == '/' && i + 1 < n && in[i + 1] == '/')) {
            while (j < n && in[j] != '\n') {
                j++;
            }
        } else if (ch == '/' && i + 1 < n && in[i + 1] == '*') {
            j = i + 2;
            while (j + 1 < n && !(in[j] == '*' && in[j + 1] == '/')) {
                j++;
            }
            j = j + 1 < n ? j + 2 : n;
        } else if (isalpha((unsigned char)ch) || ch == '_' || ch == '*' ||
                   ch == '@') {
            while (j < n && (isalnum((unsigned char)in[j]) || in[j] == '_' ||
                             in[j] == '*' || in[j] == '-')) {
                j++;
            }
            /* libconfig ends the process on some include paths ("."); a
             * config is one file. */
            if (ch == '@') {
                reader_say(r,
                           "%s:%d: %.*s: directives are not supported; put "
                           "every key in this file\n",
                           r->path, line, (int)(j - i), in + i);
                free(o);
                return -1;
            }
        } else if (is_number) {
            size_t digits = ch == '-' || ch == '+' ? i + 1 : i;
            int is_hex = in[digits] == '0' && digits + 1 < n &&
                         (in[digits + 1] == 'x' || in[digits + 1] == 'X');
            int is_float = 0;
            while (j < n && (isalnum((unsigned char)in[j]) || in[j] == '.' ||
                             ((in[j] == '-' || in[j] == '+') && !is_hex &&
                              (in[j - 1] == 'e' || in[j - 1] == 'E')))) {
                is_float |=
                    in[j] == '.' || (!is_hex && (in[j] == 'e' || in[j] == 'E'));
                j++;
            }
            is_float |= ch == '.';
            size_t end = j;
            while (end > i && in[end - 1] == 'L') {
                end--;
            }
            char text[48];
            if (!is_float && end > i && end - i < sizeof text) {
                char *stop;
                memcpy(text, in + i, end - i);
                text[end - i] = '\0';
                errno = 0;
                long long v = strtoll(text, &stop, is_hex ? 16 : 10);
                if (*stop == '\0' && errno == ERANGE) {
                    if (r->n_overflows < MAX_OVERFLOWS) {
                        struct overflow *f = &r->overflows[r->n_overflows++];
                        f->line = line;
                        snprintf(f->text, sizeof f->text, "%.*s", (int)(j - i),
                                 in + i);
                    }
                    k += (size_t)sprintf(o + k, "%lldL", v);
                    i = j;
                    continue;
                }
                if (*stop == '\0' && end == j) {
                    memcpy(o + k, in + i, j - i);
                    k += j - i;
                    o[k++] = 'L';
                    i = j;
                    continue;
                }
            }
        }
        for (; i < j && i < n; i++) {
            line += in[i] == '\n';
            o[k++] = in[i];
        }
    }
    o[k] = '\0';
    *out = o;
    return 0;
}

/* The file's text with its large integers marked (rewrite_integers). */
static int read_text(struct reader *r, char **out)
{
    FILE *f = fopen(r->path, "rb");
    char *text = NULL;
    size_t n = 0, cap = 0;
    int rc = -1;
    if (!f) {
        reader_say(r, "%s: cannot read the file: %s\n", r->path,
                   strerror(errno));
        return -1;
    }
    for (;;) {
        if (n == cap) {
            cap = cap ? 2 * cap : 4096;
            char *grown = cap < (1u << 26) ? realloc(text, cap) : NULL;
            if (!grown) {
                reader_say(r, "%s: too large for a config file\n", r->path);
                goto done;
            }
            text = grown;
        }
        size_t got = fread(text + n, 1, cap - n, f);
        n += got;
        if (got == 0) {
            break;
        }
    }
    if (ferror(f)) {
        reader_say(r, "%s: cannot read the file\n", r->path);
        goto done;
    }
    rc = rewrite_integers(r, text, n, out);
done:
    fclose(f);
    free(text);
    return rc;
}

int config_load(const char *path, struct config *c)
{
    struct reader r = {.path = path};
    char *text = NULL;
    int rc = -1;
    memset(c, 0, sizeof *c);
    snprintf(c->path, sizeof c->path, "%s", path);
    c->search = &search_strategies[0];
    c->measure = (struct config_measure){
        .warmup = 2, .min_reps = 5, .max_reps = 100, .rse = 0.05};
    c->chain_fanout = TUNING_CHAIN_FANOUT;
    c->has_baseline = 1;
    c->search_params = (struct search_params)SEARCH_PARAMS_DEFAULT;
    c->grid_max_penalty = 0; /* no grid_options: main's walk */
    c->grid_budget = 0;
    c->ppn = malloc(sizeof *c->ppn);
    if (!c->ppn) {
        return -1;
    }
    c->ppn[0] = 1;
    c->n_ppn = 1;

    config_init(&r.cfg);
    if (read_text(&r, &text) != 0) {
        goto done;
    }
    if (config_read_string(&r.cfg, text) != CONFIG_TRUE) {
        fprintf(stderr, "%s:%d: %s\n", path, config_error_line(&r.cfg),
                config_error_text(&r.cfg));
        goto done;
    }
    rc = read_keys(&r, c);
done:
    config_destroy(&r.cfg);
    free(text);
    if (rc != 0) {
        config_free(c);
    }
    return rc;
}

void config_free(struct config *c)
{
    free(c->procs);
    free(c->ppn);
    free(c->layouts);
    c->ppn = NULL;
    c->layouts = NULL;
    c->n_layouts = 0;
    free(c->msg_sizes);
    free(c->seg_sizes);
    free(c->points);
    profile_destroy(c->profile);
    c->points = NULL;
    c->profile = NULL;
    c->n_points = 0;
    c->procs = NULL;
    c->msg_sizes = NULL;
    c->seg_sizes = NULL;
}

/* With ranks_per_node, whether the nodes can hold every layout: the first
 * that does not is named (the config's line, or the profile's points). */
static int check_nodes(const struct config *c, int world_size,
                       const int *node_of_rank)
{
    int *order = malloc((size_t)world_size * sizeof *order);
    struct nodes_layout world;
    int rc = order ? 0 : -1;
    nodes_layout(node_of_rank, world_size, &world);
    for (int li = 0; li < c->n_layouts && rc == 0; li++) {
        int procs = c->layouts[li].procs, ppn = c->layouts[li].ppn;
        int n = nodes_block_order(node_of_rank, world_size, ppn, order);
        if (n >= procs && order[0] == 0) {
            continue;
        }
        if (c->ppn_line > 0) {
            fprintf(stderr, "%s:%d: ranks_per_node: ", c->path, c->ppn_line);
        } else {
            fprintf(stderr, "%s: profile %s: ", c->path, c->profile_path);
        }
        if (n >= procs) {
            int on_first = 0;
            for (int r = 0; r < world_size; r++) {
                on_first += node_of_rank[r] == node_of_rank[0];
            }
            fprintf(stderr,
                    "%d ranks at %d per node need rank 0's node (the "
                    "controller's, in every communicator) to hold >= %d "
                    "ranks; it holds %d (of %d ranks on %d nodes)\n",
                    procs, ppn, ppn, on_first, world_size, world.n_nodes);
        } else {
            fprintf(stderr,
                    "%d ranks at %d per node need %d nodes with >= %d "
                    "ranks; the world has %d such node%s (of %d ranks on "
                    "%d node%s)\n",
                    procs, ppn, procs / ppn, ppn, n / ppn,
                    n / ppn == 1 ? "" : "s", world_size, world.n_nodes,
                    world.n_nodes == 1 ? "" : "s");
        }
        rc = -1;
    }
    free(order);
    return rc;
}

int config_check_world(const struct config *c, int world_size,
                       const int *node_of_rank)
{
    int largest = c->procs[c->n_procs - 1];
    if (largest > world_size) {
        fprintf(stderr,
                "%s:%d: procs: %d is larger than the MPI world (%d "
                "process%s); start more or list fewer\n",
                c->path, c->procs_line, largest, world_size,
                world_size == 1 ? "" : "es");
        return -1;
    }
    if (c->is_ppn_given && check_nodes(c, world_size, node_of_rank) != 0) {
        return -1;
    }
    /* The algorithms count bytes in MPI's int, also across P blocks. */
    long max_msg = c->msg_sizes[c->n_msgs - 1];
    for (int ci = 0; ci < c->n_colls; ci++) {
        const struct coll_def *d = c->colls[ci];
        enum coll_blocks most =
            d->send_blocks > d->recv_blocks ? d->send_blocks : d->recv_blocks;
        long bytes = coll_buffer_bytes(most, largest, max_msg);
        if (bytes > INT_MAX) {
            fprintf(stderr,
                    "%s:%d: message_sizes: %s at %ld bytes on %d processes "
                    "needs a %ld-byte buffer; the algorithms count bytes in "
                    "an MPI int, so a sweep times at most %d\n",
                    c->path, c->msg_line, d->name, max_msg, largest, bytes,
                    INT_MAX);
            return -1;
        }
    }
    return 0;
}

int config_peek_native(const char *path)
{
    struct reader r = {.path = path, .is_quiet = 1};
    const char *backend = NULL;
    char *text = NULL;
    config_init(&r.cfg);
    int is_native =
        read_text(&r, &text) == 0 &&
        config_read_string(&r.cfg, text) == CONFIG_TRUE &&
        config_lookup_string(&r.cfg, "backend", &backend) == CONFIG_TRUE &&
        strcmp(backend, config_backend_names[BACKEND_NATIVE]) == 0;
    config_destroy(&r.cfg);
    free(text);
    return is_native;
}

int config_load_profile(const char *path, struct profile **out)
{
    if (profile_load(path, out) != 0) {
        return -1;
    }
    for (int i = 0; i < (*out)->n_points; i++) {
        const struct profile_point *pt = &(*out)->points[i];
        if (!coll_find(pt->collective)) {
            fprintf(stderr,
                    "%s:%d: unknown collective '%s' (autotune --list names "
                    "them)\n",
                    path, pt->line, pt->collective);
            profile_destroy(*out);
            *out = NULL;
            return -1;
        }
    }
    return 0;
}
