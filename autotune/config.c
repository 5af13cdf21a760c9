/* Reads tune.cfg with libconfig. Every check happens here, before anything
 * is measured or written, and names the file, the line and the key. */
#include <libconfig.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "autotune/config.h"

#define MAX_LIST 4096

struct reader {
    const char *path;
    config_t cfg;
};

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
    const char *what = "a message size in bytes (1 .. 2^31-1)";
    if (!config_setting_is_group(s)) {
        return read_sizes(r, s, "message_sizes", 1, 0x7fffffffL, what,
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
        if (read_int(r, e, key, k == 2 ? 2 : 1, 0x7fffffffLL,
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
    c->n_msgs = 0;
    c->msg_sizes = malloc(64 * sizeof *c->msg_sizes);
    if (!c->msg_sizes) {
        return -1;
    }
    for (long long m = v[0]; m <= v[1]; m *= v[2]) {
        c->msg_sizes[c->n_msgs++] = (long)m;
    }
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
        c->n_algs[c->n_colls] = 0;
        for (int a = 0; a < d->n_algs && a < CONFIG_MAX_ALGS; a++) {
            if (c->backend != BACKEND_NATIVE ||
                native_has_algorithm(d->name, d->algs[a].name)) {
                c->algs[c->n_colls][c->n_algs[c->n_colls]++] = a;
            }
        }
        if (c->n_algs[c->n_colls] == 0) {
            report(r, e, "collectives",
                   "backend native: the MPI library offers no %s algorithm "
                   "that can be forced",
                   name);
            return -1;
        }
        c->colls[c->n_colls++] = d;
    }
    return 0;
}

/* algorithms = { bcast = ["linear", "binomial"]; }: a subset per collective,
 * kept in table order so the sweep's order never depends on the config's. */
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
        for (int k = 0; k < config_setting_length(e); k++) {
            const char *name;
            config_setting_t *a = config_setting_get_elem(e, (unsigned)k);
            if (read_string(r, a, key, &name) != 0) {
                return -1;
            }
            int ai = coll_find_alg(d, name);
            int is_native = c->backend == BACKEND_NATIVE;
            if (ai < 0 || (is_native && !native_has_algorithm(d->name, name))) {
                char valid[512] = "";
                for (int v = 0; v < d->n_algs; v++) {
                    if (!is_native ||
                        native_has_algorithm(d->name, d->algs[v].name)) {
                        list_append(valid, sizeof valid, d->algs[v].name);
                    }
                }
                report(r, a, key, "%s%s has no algorithm '%s' (valid: %s)",
                       is_native ? "backend native: the MPI library's " : "",
                       d->name, name, valid);
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
        } else {
            report(r, e, key,
                   "unknown key (valid: warmup, min_reps, max_reps, rse)");
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
               "expected a group like { lookahead = 1; drop_ratio = 1.3; "
               "steep_rise = 0.05; }");
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

static int read_scalar_int(const struct reader *r, const config_setting_t *s,
                           const char *key, long long min, long long max,
                           const char *what, int *out)
{
    long long v;
    if (read_int(r, s, key, min, max, what, &v) != 0) {
        return -1;
    }
    *out = (int)v;
    return 0;
}

/* Reads every key in file order after the ones others depend on. */
static int read_keys(const struct reader *r, struct config *c)
{
    config_setting_t *root = config_root_setting(&r->cfg);
    static const char *const known[] = {
        "output",        "collectives",  "procs",          "message_sizes",
        "segment_sizes", "algorithms",   "search",         "backend",
        "measure",       "chain_fanout", "search_options", "baseline"};
    const int n_known = (int)(sizeof known / sizeof known[0]);
    config_setting_t *found[sizeof known / sizeof known[0]] = {0};

    for (int i = 0; i < config_setting_length(root); i++) {
        config_setting_t *s = config_setting_get_elem(root, (unsigned)i);
        const char *name = config_setting_name(s);
        int k = 0;
        while (k < n_known && strcmp(name, known[k]) != 0) {
            k++;
        }
        if (k == n_known) {
            report(r, s, name,
                   "unknown key (valid: output, collectives, procs, "
                   "message_sizes, segment_sizes, algorithms, search, "
                   "backend, measure, chain_fanout, search_options, "
                   "baseline)");
            return -1;
        }
        found[k] = s;
    }
    for (int k = 0; k < 5; k++) { /* the required ones */
        if (!found[k]) {
            report(r, NULL, known[k], "missing (required)");
            return -1;
        }
    }
    /* backend first: it decides which algorithms a collective offers */
    if ((found[7] && read_backend(r, found[7], c) != 0) ||
        read_output(r, found[0], c) != 0 ||
        read_collectives(r, found[1], c) != 0 ||
        read_int_sizes(r, found[2], "procs", 1, 1 << 24,
                       "a number of processes >= 1", &c->procs,
                       &c->n_procs) != 0 ||
        read_message_sizes(r, found[3], c) != 0 ||
        read_int_sizes(r, found[4], "segment_sizes", 0, 0x7fffffffL,
                       "a segment size in bytes (0 = unsegmented)",
                       &c->seg_sizes, &c->n_segs) != 0 ||
        (found[5] && read_algorithms(r, found[5], c) != 0) ||
        (found[6] && read_search(r, found[6], c) != 0) ||
        (found[8] && read_measure(r, found[8], c) != 0) ||
        (found[9] && read_scalar_int(r, found[9], "chain_fanout", 1, 32,
                                     "a number of chains in 1..32",
                                     &c->chain_fanout) != 0) ||
        (found[10] && read_search_options(r, found[10], c) != 0) ||
        (found[11] && read_baseline(r, found[11], c) != 0)) {
        return -1;
    }
    if (c->n_segs > CONFIG_MAX_SEGS) {
        report(r, found[4], "segment_sizes", "more than %d entries",
               CONFIG_MAX_SEGS);
        return -1;
    }
    c->procs_line = config_setting_source_line(found[2]);
    return 0;
}

int config_load(const char *path, struct config *c)
{
    struct reader r = {.path = path};
    int rc = -1;
    memset(c, 0, sizeof *c);
    snprintf(c->path, sizeof c->path, "%s", path);
    c->search = &search_strategies[0];
    c->measure = (struct config_measure){
        .warmup = 2, .min_reps = 5, .max_reps = 100, .rse = 0.05};
    c->chain_fanout = 4;
    c->has_baseline = 1;
    c->search_params = (struct search_params)SEARCH_PARAMS_DEFAULT;

    config_init(&r.cfg);
    if (config_read_file(&r.cfg, path) != CONFIG_TRUE) {
        if (config_error_type(&r.cfg) == CONFIG_ERR_FILE_IO) {
            fprintf(stderr, "%s: cannot read the file\n", path);
        } else {
            fprintf(stderr, "%s:%d: %s\n", path, config_error_line(&r.cfg),
                    config_error_text(&r.cfg));
        }
        goto done;
    }
    rc = read_keys(&r, c);
done:
    config_destroy(&r.cfg);
    if (rc != 0) {
        config_free(c);
    }
    return rc;
}

void config_free(struct config *c)
{
    free(c->procs);
    free(c->msg_sizes);
    free(c->seg_sizes);
    c->procs = NULL;
    c->msg_sizes = NULL;
    c->seg_sizes = NULL;
}

int config_check_world(const struct config *c, int world_size)
{
    int largest = c->procs[c->n_procs - 1];
    if (largest > world_size) {
        fprintf(stderr,
                "%s:%d: procs: %d is larger than the MPI world (%d "
                "processes); start more or list fewer\n",
                c->path, c->procs_line, largest, world_size);
        return -1;
    }
    return 0;
}

int config_peek_native(const char *path)
{
    config_t cfg;
    const char *backend = NULL;
    config_init(&cfg);
    int is_native =
        config_read_file(&cfg, path) == CONFIG_TRUE &&
        config_lookup_string(&cfg, "backend", &backend) == CONFIG_TRUE &&
        strcmp(backend, config_backend_names[BACKEND_NATIVE]) == 0;
    config_destroy(&cfg);
    return is_native;
}
