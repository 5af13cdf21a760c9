/* libautotune's decision: read at MPI_Init from AUTOTUNE_DECISION, one
 * file or several separated by ':' (each read by rank 0, its bytes
 * broadcast, so every rank holds the same decisions or none), each
 * (collective, ranks per node) tuned by at most one file and its methods
 * resolved to rows of collectives/table.c, the table a communicator's
 * layout takes, the choice per call, and AUTOTUNE_VERBOSE's counts at
 * MPI_Finalize. */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decision/decision.h"
#include "runtime/runtime.h"
#include "store/journal.h"
#include "util/tuning.h"

/* Chain algorithms take the tuner's default number of chains
 * (TUNING_CHAIN_FANOUT) where a decision does not record the run's. */

static const char *const fallback_names[AUTOTUNE_N_FALLBACKS] = {
    "no-decision",     "not-tuned", "default",
    "outside",         "intercomm", "procs",
    "noncommutative",  "too-large", "thread-multiple",
    "bottom",          "ppn",       "irregular",
    "not-consecutive", "nodes"};

/* A decision method as one collective runs it: a table algorithm (alg),
 * a node-aware composition (node_run and its plan), or neither: the
 * library's own collective ("default"). */
struct method_row {
    const struct coll_alg *alg;
    int seg_bytes;
    node_fn node_run;
    struct node_plan plan;
};

/* One decision file's part in tuning a collective: collective dc of
 * decision d, its methods resolved to rows. */
struct coll_source {
    const struct decision *d;
    int file;
    int dc;
    struct method_row *rows; /* d->n_methods */
    int chain_fanout;
    int first_count; /* its methods' counters start here */
};

/* One (collective, ranks per node) tuned: the decision's table. */
struct ppn_table {
    int ppn;
    int source; /* in the collective's sources */
    int table;  /* the decision's table (decision_table) */
};

/* How one intercepted collective is tuned: by the tables of one or more
 * files (none: not tuned), one per ranks per node. */
struct coll_tuning {
    const struct coll_def *def;
    int n_sources;
    struct coll_source *sources; /* at most one per file */
    int n_tables;
    struct ppn_table *tables; /* ascending ppn */
    int32_t *tuned_ppn;       /* n_tables: the tables' ppn */
    /* The last lookup: applications repeat their sizes. */
    struct {
        int table; /* -1: none yet */
        int procs;
        long msg_bytes;
        int method;
    } last;
};

/* A line of AUTOTUNE_VERBOSE's saying why a collective's calls on some
 * communicators went to the library, or to the nearest ppn's table. */
enum { MAX_DETAILS = 32, DETAIL_MAX = 128 };
struct detail {
    int coll;
    int nearest_ppn;       /* the table the calls took; 0: the library */
    char text[DETAIL_MAX]; /* why: "ppn 4 not tuned (tuned: 1, 8)" */
    long calls;
};

static struct {
    const char *path; /* AUTOTUNE_DECISION as given */
    char *paths;      /* a copy, split at ':' into the files' paths */
    int n_decs;
    struct decision **decs; /* n_decs, one per file, in the order given */
    const char **dec_paths; /* n_decs */
    bool is_nearest;        /* AUTOTUNE_OUTSIDE=nearest */
    bool is_thread_multiple;
    struct coll_tuning colls[AUTOTUNE_N_COLLS];
    int n_details;
    struct detail details[MAX_DETAILS];
    /* Counters: calls, then fallbacks per reason, then runs per method of
     * each tuned collective. */
    long *counts;
    int n_counts;
} rt;

static long *count_calls(int coll)
{
    return &rt.counts[coll];
}

static long *count_fallback(int coll, enum autotune_fallback reason)
{
    return &rt.counts[AUTOTUNE_N_COLLS + coll * AUTOTUNE_N_FALLBACKS + reason];
}

static long *count_method(const struct coll_source *src, int method)
{
    return &rt.counts[src->first_count + method];
}

static int world_rank(void)
{
    int rank = 0;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    return rank;
}

/* The whole file, NUL-terminated, in *out (caller frees): at most
 * DECISION_FILE_MAX_BYTES, so that a wrong path (a device, a huge file)
 * cannot exhaust memory. Its length, or -1 with a message in err. */
static long read_file(const char *path, char **out, char *err, size_t size)
{
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    long n = 0, cap = 0;
    if (!f) {
        snprintf(err, size, "%s: %s", path, strerror(errno));
        return -1;
    }
    for (;;) {
        if (n > DECISION_FILE_MAX_BYTES) {
            snprintf(err, size,
                     "%s: larger than %ld bytes: not a decision file", path,
                     (long)DECISION_FILE_MAX_BYTES);
            n = -1;
            break;
        }
        if (n + 4096 + 1 > cap) {
            cap = 2 * cap + 4096 + 1;
            char *grown = realloc(buf, (size_t)cap);
            if (!grown) {
                snprintf(err, size, "%s: out of memory", path);
                n = -1;
                break;
            }
            buf = grown;
        }
        size_t got = fread(buf + n, 1, 4096, f);
        n += (long)got;
        if (got < 4096) {
            if (ferror(f)) {
                snprintf(err, size, "%s: read error", path);
                n = -1;
            }
            break;
        }
    }
    fclose(f);
    if (n < 0) {
        free(buf);
        return -1;
    }
    buf[n] = '\0';
    *out = buf;
    return n;
}

/* Parses the decision text into *out; the first line of a parse error
 * goes to err. */
static int parse_decision(const char *text, long len, const char *path,
                          struct decision **out, char *err, size_t size)
{
    char *msg = NULL;
    size_t msg_len = 0;
    FILE *errs = open_memstream(&msg, &msg_len);
    *out = NULL;
    if (!errs) {
        snprintf(err, size, "%s: out of memory", path);
        return -1;
    }
    int rc = decision_read_text(text, (size_t)len, path, errs, out);
    fclose(errs);
    if (rc != 0) {
        snprintf(err, size, "%.*s", (int)strcspn(msg ? msg : "", "\n"),
                 msg ? msg : "");
    }
    free(msg);
    return rc;
}

/* "algorithm/segment_bytes" of collective c into *row, the algorithm a
 * table algorithm or a node-aware method (collectives/method.h, whose
 * segment sizes are in its phases); -1 with a message in err when it is
 * not one of c's. */
static int resolve_method(const struct coll_def *c, const char *label,
                          struct method_row *row, char *err, size_t size)
{
    const char *slash = strrchr(label, '/');
    char name[COLL_METHOD_MAX], why[160];
    char *end;
    long seg = slash ? strtol(slash + 1, &end, 10) : -1;
    if (!slash || end == slash + 1 || *end != '\0' || seg < 0 ||
        seg > INT_MAX || (size_t)(slash - label) >= sizeof name) {
        snprintf(err, size, "%s: method '%s' is not ALGORITHM/SEGMENT_BYTES",
                 c->name, label);
        return -1;
    }
    snprintf(name, sizeof name, "%.*s", (int)(slash - label), label);
    *row = (struct method_row){0};
    if (strcmp(name, STORE_DEFAULT_ALGORITHM) == 0) {
        return 0;
    }
    if (node_is_method_name(name)) {
        /* its segment sizes are its phases': "NAME/0" (method_label's) */
        if (seg != 0) {
            snprintf(err, size,
                     "%s: method '%s': a node-aware method's segment sizes "
                     "are in its phases (expected '%s/0')",
                     c->name, label, label);
            return -1;
        }
        int m = coll_find_method(c, name, why, sizeof why);
        const struct node_plan *plan = m >= 0 ? coll_method_plan(c, m) : NULL;
        if (!plan || !(row->node_run = node_find(c->name))) {
            snprintf(err, size, "%s: method '%s': %s", c->name, label,
                     plan ? "no node-aware composition" : why);
            return -1;
        }
        /* a copy: the registry's plans move as it grows */
        row->plan = *plan;
        return 0;
    }
    int a = coll_find_alg(c, name);
    if (a < 0) {
        int n = snprintf(
            err, size, "%s: unknown method '%s' (algorithms:", c->name, label);
        for (int i = 0; i < c->n_algs && n > 0 && (size_t)n < size; i++) {
            n += snprintf(err + n, size - (size_t)n, " %s,", c->algs[i].name);
        }
        if (n > 0 && (size_t)n < size) {
            snprintf(err + n, size - (size_t)n, " %s)",
                     STORE_DEFAULT_ALGORITHM);
        }
        return -1;
    }
    row->alg = &c->algs[a];
    row->seg_bytes = row->alg->is_segmented ? (int)seg : 0;
    return 0;
}

/* The intercepted collective of that name, or AUTOTUNE_N_COLLS. */
static int coll_of_name(const char *name)
{
    int i = 0;
    while (i < AUTOTUNE_N_COLLS && strcmp(autotune_coll_name(i), name) != 0) {
        i++;
    }
    return i;
}

/* Adds table (ppn, source) to t's, in ascending ppn; -1 with a message
 * in err when another file tunes t at that ppn already or out of memory. */
static int add_table(struct coll_tuning *t, const struct ppn_table *pt,
                     char *err, size_t size)
{
    int at = 0;
    while (at < t->n_tables && t->tables[at].ppn < pt->ppn) {
        at++;
    }
    if (at < t->n_tables && t->tables[at].ppn == pt->ppn) {
        snprintf(err, size, "collective %s is also in %s (ppn %d)",
                 t->def->name,
                 rt.dec_paths[t->sources[t->tables[at].source].file], pt->ppn);
        return -1;
    }
    struct ppn_table *tables =
        realloc(t->tables, (size_t)(t->n_tables + 1) * sizeof *tables);
    if (tables) {
        t->tables = tables;
    }
    int32_t *ppn =
        realloc(t->tuned_ppn, (size_t)(t->n_tables + 1) * sizeof *ppn);
    if (ppn) {
        t->tuned_ppn = ppn;
    }
    if (!tables || !ppn) {
        snprintf(err, size, "out of memory");
        return -1;
    }
    memmove(&tables[at + 1], &tables[at],
            (size_t)(t->n_tables - at) * sizeof *tables);
    memmove(&ppn[at + 1], &ppn[at], (size_t)(t->n_tables - at) * sizeof *ppn);
    tables[at] = *pt;
    ppn[at] = pt->ppn;
    t->n_tables++;
    return 0;
}

/* Collective dc of decision file f as a source of t: its tables (those
 * with a root) added, the methods they can return resolved to rows. 0
 * (nothing added when it has no table), or -1 with a message in err. */
static int add_source(struct coll_tuning *t, int f, int dc, bool *used,
                      bool *part, char *err, size_t size)
{
    const struct decision *d = rt.decs[f];
    int n_ppn = d->n_ppn;
    struct coll_source src = {.d = d, .file = f, .dc = dc};
    src.chain_fanout =
        d->chain_fanout > 0 ? d->chain_fanout : TUNING_CHAIN_FANOUT;
    int n_added = 0;
    memset(used, 0, (size_t)d->n_methods * sizeof *used);
    for (int k = 0; k < n_ppn; k++) {
        int table = decision_table(d, dc, k);
        if (d->roots[table] < 0) {
            continue;
        }
        struct ppn_table pt = {d->ppn[k], t->n_sources, table};
        if (add_table(t, &pt, err, size) != 0) {
            return -1;
        }
        n_added++;
        decision_methods_used(d, table, part);
        for (int m = 0; m < d->n_methods; m++) {
            used[m] |= part[m];
        }
    }
    if (n_added == 0) {
        return 0;
    }
    struct coll_source *sources =
        realloc(t->sources, (size_t)(t->n_sources + 1) * sizeof *sources);
    if (!sources ||
        !(src.rows = calloc((size_t)d->n_methods, sizeof *src.rows))) {
        if (sources) {
            t->sources = sources;
        }
        snprintf(err, size, "out of memory");
        return -1;
    }
    t->sources = sources;
    t->sources[t->n_sources++] = src;
    for (int m = 0; m < d->n_methods; m++) {
        if (used[m] && resolve_method(t->def, d->methods[m], &src.rows[m], err,
                                      size) != 0) {
            return -1;
        }
    }
    return 0;
}

/* Gives the collectives of decision file f to their tuning, each method
 * they can return resolved to a row; -1 with a message in err when one
 * is unknown or another file tunes it at the same ranks per node. */
static int resolve_decision(int f, char *err, size_t size)
{
    const struct decision *d = rt.decs[f];
    /* With several files, a message names the one it is about. */
    int n = rt.n_decs > 1 ? snprintf(err, size, "%s: ", rt.dec_paths[f]) : 0;
    n = n < 0 || (size_t)n >= size ? 0 : n;
    bool *used = calloc(2 * (size_t)d->n_methods + 1, sizeof *used);
    int rc = -1;
    if (!used) {
        snprintf(err + n, size - (size_t)n, "out of memory");
        return -1;
    }
    for (int k = 0; k < d->n_colls; k++) {
        int i = coll_of_name(d->colls[k]);
        if (i == AUTOTUNE_N_COLLS || !rt.colls[i].def) {
            snprintf(err + n, size - (size_t)n, "unknown collective '%s'",
                     d->colls[k]);
            goto done;
        }
        if (add_source(&rt.colls[i], f, k, used, used + d->n_methods, err + n,
                       size - (size_t)n) != 0) {
            goto done;
        }
    }
    rc = 0;
done:
    free(used);
    return rc;
}

/* Rank 0 reads the file; every rank parses its bytes into *out. 0, or -1
 * on every rank with rank 0's message in err. */
static int load_decision(const char *path, int rank, struct decision **out,
                         char *err, size_t size)
{
    char *text = NULL;
    long len = 0;
    *out = NULL;
    if (rank == 0) {
        len = read_file(path, &text, err, size);
    }
    PMPI_Bcast(&len, 1, MPI_LONG, 0, MPI_COMM_WORLD);
    if (len < 0) {
        return -1;
    }
    if (rank != 0) {
        text = malloc((size_t)len + 1);
    }
    /* Every rank takes part in the broadcast, or none. */
    if (!autotune_all_ok(MPI_COMM_WORLD, text != NULL)) {
        snprintf(err, size, "%s: out of memory", path);
        free(text);
        return -1;
    }
    PMPI_Bcast(text, (int)len, MPI_CHAR, 0, MPI_COMM_WORLD);
    text[len] = '\0';
    bool is_ok = parse_decision(text, len, path, out, err, size) == 0;
    free(text);
    if (!autotune_all_ok(MPI_COMM_WORLD, is_ok)) {
        if (is_ok) {
            snprintf(err, size, "%s: out of memory on another rank", path);
        }
        decision_destroy(*out);
        *out = NULL;
        return -1;
    }
    return 0;
}

/* Every file of rt.path: loaded, then its collectives resolved. 0, or -1
 * on every rank with rank 0's message in err. */
static int load_decisions(int rank, char *err, size_t size)
{
    int n = 1;
    char *next = NULL;
    rt.paths = strdup(rt.path);
    for (const char *c = rt.paths; c && *c; c++) {
        n += *c == ':';
    }
    if (rt.paths) {
        rt.decs = calloc((size_t)n, sizeof *rt.decs);
        rt.dec_paths = calloc((size_t)n, sizeof *rt.dec_paths);
    }
    bool is_ok = rt.decs && rt.dec_paths;
    if (!autotune_all_ok(MPI_COMM_WORLD, is_ok)) {
        snprintf(err, size, "out of memory");
        return -1;
    }
    /* An empty entry ("a.dec::b.dec", a trailing ':') names nothing. */
    for (char *p = strtok_r(rt.paths, ":", &next); p;
         p = strtok_r(NULL, ":", &next)) {
        if (load_decision(p, rank, &rt.decs[rt.n_decs], err, size) != 0) {
            return -1;
        }
        rt.dec_paths[rt.n_decs++] = p;
    }
    for (int f = 0; f < rt.n_decs && is_ok; f++) {
        is_ok = resolve_decision(f, err, size) == 0;
    }
    if (!autotune_all_ok(MPI_COMM_WORLD, is_ok)) {
        if (is_ok) {
            snprintf(err, size, "out of memory on another rank");
        }
        return -1;
    }
    return 0;
}

static void drop_decision(void)
{
    for (int i = 0; i < AUTOTUNE_N_COLLS; i++) {
        struct coll_tuning *t = &rt.colls[i];
        for (int k = 0; k < t->n_sources; k++) {
            free(t->sources[k].rows);
        }
        free(t->sources);
        free(t->tables);
        free(t->tuned_ppn);
        t->sources = NULL;
        t->tables = NULL;
        t->tuned_ppn = NULL;
        t->n_sources = t->n_tables = 0;
        t->last.table = -1;
    }
    rt.n_details = 0;
    for (int f = 0; f < rt.n_decs; f++) {
        decision_destroy(rt.decs[f]);
    }
    free(rt.decs);
    free(rt.dec_paths);
    free(rt.paths);
    rt.decs = NULL;
    rt.dec_paths = NULL;
    rt.paths = NULL;
    rt.n_decs = 0;
}

void autotune_start(int thread_level_required)
{
    const char *path = getenv("AUTOTUNE_DECISION");
    const char *outside = getenv("AUTOTUNE_OUTSIDE");
    int rank = world_rank();
    char err[512] = "";

    for (int i = 0; i < AUTOTUNE_N_COLLS; i++) {
        rt.colls[i].def = coll_find(autotune_coll_name(i));
        rt.colls[i].last.table = -1;
    }
    autotune_comm_start(rank);
    rt.path = path && *path ? path : NULL;
    rt.is_thread_multiple = thread_level_required == MPI_THREAD_MULTIPLE;
    if (outside && strcmp(outside, "nearest") == 0) {
        rt.is_nearest = true;
    } else if (outside && *outside && strcmp(outside, "library") != 0 &&
               rank == 0) {
        fprintf(stderr,
                "libautotune: AUTOTUNE_OUTSIDE=%s: expected library or "
                "nearest; using library\n",
                outside);
    }
    const char *profile = getenv("AUTOTUNE_PROFILE");
    if (profile && *profile && rt.is_thread_multiple) {
        if (rank == 0) {
            fprintf(stderr,
                    "libautotune: MPI_THREAD_MULTIPLE requested: "
                    "AUTOTUNE_PROFILE=%s is not recorded\n",
                    profile);
        }
    } else if (profile && *profile) {
        autotune_profile_start(profile, rank);
    }
    if (rt.path && rt.is_thread_multiple) {
        if (rank == 0) {
            fprintf(stderr,
                    "libautotune: MPI_THREAD_MULTIPLE requested: the MPI "
                    "library's collectives run (AUTOTUNE_DECISION=%s is not "
                    "used)\n",
                    rt.path);
        }
    } else if (rt.path && load_decisions(rank, err, sizeof err)) {
        drop_decision();
        if (rank == 0) {
            fprintf(stderr,
                    "libautotune: AUTOTUNE_DECISION=%s: %s; the MPI library's "
                    "collectives run\n",
                    rt.path, err);
        }
    }
    rt.n_counts = AUTOTUNE_N_COLLS * (1 + AUTOTUNE_N_FALLBACKS);
    for (int i = 0; i < AUTOTUNE_N_COLLS; i++) {
        for (int k = 0; k < rt.colls[i].n_sources; k++) {
            struct coll_source *src = &rt.colls[i].sources[k];
            src->first_count = rt.n_counts;
            rt.n_counts += src->d->n_methods;
        }
    }
    rt.counts = calloc((size_t)rt.n_counts, sizeof *rt.counts);
    if (!rt.counts) {
        /* Nothing to count into: run on the library, quietly. */
        drop_decision();
    }
}

const struct coll_def *autotune_coll_def(enum autotune_coll coll)
{
    return rt.colls[coll].def;
}

/* Whether a buffer of the call exceeds an int count of bytes (the
 * algorithms run on bytes, or on the caller's count for reductions). */
static bool is_too_large(enum autotune_coll coll, int size, long msg_bytes)
{
    if (msg_bytes <= INT_MAX && msg_bytes * (long long)size <= INT_MAX) {
        return false; /* no buffer holds more than size blocks */
    }
    const struct coll_def *c = autotune_coll_def(coll);
    long most = coll_buffer_bytes(c->send_blocks, size, msg_bytes);
    long recv = coll_buffer_bytes(c->recv_blocks, size, msg_bytes);
    most = recv > most ? recv : most;
    return msg_bytes > INT_MAX || most > INT_MAX;
}

/* Whether (*procs, *msg_bytes) is outside the measured range of table pt
 * and AUTOTUNE_OUTSIDE=library gives it to the library; with nearest, both
 * move to the nearest point of the range instead. A decision without a
 * range (trees, quadtrees) has no outside. */
static bool is_outside(const struct coll_tuning *t, const struct ppn_table *pt,
                       int *procs, long *msg_bytes)
{
    const struct decision_range *r =
        decision_get_range(t->sources[pt->source].d, pt->table);
    if (decision_range_holds(r, *procs, *msg_bytes)) {
        return false;
    }
    if (!rt.is_nearest) {
        return true;
    }
    *procs = *procs < r->procs_min   ? r->procs_min
             : *procs > r->procs_max ? r->procs_max
                                     : *procs;
    *msg_bytes = *msg_bytes < r->msg_min   ? (long)r->msg_min
                 : *msg_bytes > r->msg_max ? (long)r->msg_max
                                           : *msg_bytes;
    return false;
}

/* decision_lookup in table i, or the collective's last answer for the
 * same table and point. */
static int lookup(struct coll_tuning *t, int i, int procs, long msg_bytes)
{
    if (t->last.table != i || t->last.procs != procs ||
        t->last.msg_bytes != msg_bytes) {
        const struct ppn_table *pt = &t->tables[i];
        t->last.table = i;
        t->last.procs = procs;
        t->last.msg_bytes = msg_bytes;
        t->last.method = decision_lookup(t->sources[pt->source].d, pt->table,
                                         procs, msg_bytes);
    }
    return t->last.method;
}

/* The index + 1 of the line of details counting collective coll's calls
 * that took nearest_ppn's table (0: the library) for the reason text,
 * made if new; 0 when the lines are full. */
static int detail_line(int coll, int nearest_ppn, const char *text)
{
    int i = 0;
    while (i < rt.n_details && (rt.details[i].coll != coll ||
                                rt.details[i].nearest_ppn != nearest_ppn ||
                                strcmp(rt.details[i].text, text) != 0)) {
        i++;
    }
    if (i == rt.n_details) {
        if (i == MAX_DETAILS) {
            return 0;
        }
        rt.details[i] =
            (struct detail){.coll = coll, .nearest_ppn = nearest_ppn};
        snprintf(rt.details[i].text, sizeof rt.details[i].text, "%s", text);
        rt.n_details++;
    }
    return i + 1;
}

/* "1, 8": the ranks per node t is tuned for. */
static void say_tuned_ppn(const struct coll_tuning *t, char *out, size_t size)
{
    size_t n = 0;
    out[0] = '\0';
    for (int i = 0; i < t->n_tables && n < size; i++) {
        n += (size_t)snprintf(out + n, size - n, "%s%d", i ? ", " : "",
                              t->tables[i].ppn);
    }
}

/* Which of t's tables the calls of collective coll on communicator s take,
 * by its layout: the table of its ranks per node when the layout is
 * regular and consecutive; with AUTOTUNE_OUTSIDE=nearest, the nearest
 * tuned ranks per node's for another regular, consecutive layout; else
 * none (the library's collective). */
static void choose_table(const struct coll_tuning *t, int coll,
                         struct autotune_comm_state *s)
{
    struct autotune_comm_table *c = &s->tables[coll];
    const struct nodes_layout *l = &s->layout;
    char text[DETAIL_MAX], tuned[64];
    int nearest = 0;
    c->is_known = true;
    c->table = -1;
    c->reason = AUTOTUNE_RUN;
    if (!l->is_regular) {
        c->reason = AUTOTUNE_IRREGULAR;
        snprintf(text, sizeof text, "irregular layout (%s ranks per node)",
                 s->node_counts);
    } else if (!l->is_consecutive) {
        c->reason = AUTOTUNE_NOT_CONSECUTIVE;
        snprintf(text, sizeof text, "ranks not consecutive on their nodes");
    } else {
        int i = 0;
        while (i < t->n_tables && t->tables[i].ppn != l->ppn) {
            i++;
        }
        if (i < t->n_tables) {
            c->table = (int16_t)i;
            return;
        }
        say_tuned_ppn(t, tuned, sizeof tuned);
        snprintf(text, sizeof text, "ppn %d not tuned (tuned: %s)", l->ppn,
                 tuned);
        if (rt.is_nearest) {
            /* decision_nearest_ppn's rule, over the values the
             * collective is tuned at (files may tune it at different
             * ones, a file not every collective at each of its own). */
            struct decision tuned_at = {.n_ppn = t->n_tables,
                                        .ppn = t->tuned_ppn};
            c->table = (int16_t)decision_nearest_ppn(&tuned_at, l->ppn);
            nearest = t->tables[c->table].ppn;
        } else {
            c->reason = AUTOTUNE_PPN;
        }
    }
    c->detail = (int16_t)detail_line(coll, nearest, text);
}

/* Whether node-aware method m (row) of collective coll runs on s's nodes
 * with op: AUTOTUNE_RUN with out's plan set (the node communicators made
 * at the first such call), or why the library takes the call. */
static enum autotune_fallback node_reason(const struct coll_tuning *t, int coll,
                                          struct autotune_comm_state *s, int m,
                                          const struct method_row *row,
                                          MPI_Op op,
                                          struct autotune_choice *out)
{
    const struct node_comms *nc = autotune_comm_nodes(s);
    struct autotune_comm_table *ct = &s->tables[coll];
    int is_commutative = 1;
    if (!nc) {
        return AUTOTUNE_NODES;
    }
    /* A commutative op is as no op to node_applies: checked once. */
    if (ct->node_method != m + 1) {
        ct->node_method = m + 1;
        ct->is_node_fit =
            node_applies(t->def->name, nc, &row->plan, MPI_OP_NULL);
    }
    if (!ct->is_node_fit) {
        return AUTOTUNE_NODES;
    }
    if (op != MPI_OP_NULL &&
        (MPI_Op_commutative(op, &is_commutative) != MPI_SUCCESS ||
         !is_commutative) &&
        !node_applies(t->def->name, nc, &row->plan, op)) {
        return AUTOTUNE_NONCOMMUTATIVE;
    }
    out->plan = &row->plan;
    out->node_run = row->node_run;
    out->nodes = nc;
    return AUTOTUNE_RUN;
}

int autotune_choose(enum autotune_coll coll, MPI_Comm comm, long msg_bytes,
                    MPI_Op op, int root, bool is_bottom,
                    struct autotune_choice *out)
{
    bool is_profiled = autotune_prof.is_on;
    /* The entry time first: the application's, before any of ours. */
    out->start_s = is_profiled ? PMPI_Wtime() : 0;
    out->alg = NULL;
    out->plan = NULL;
    out->node_run = NULL;
    out->nodes = NULL;
    out->seg_bytes = 0;
    out->chain_fanout = TUNING_CHAIN_FANOUT;
    out->comm = MPI_COMM_NULL;
    out->profile_index = 0;
    if (!rt.counts) {
        out->reason = AUTOTUNE_NO_DECISION;
        return MPI_SUCCESS;
    }
    (*count_calls(coll))++;
    struct coll_tuning *t = &rt.colls[coll];
    struct autotune_comm_state *s = NULL;
    int m = -1, rc, size = 0, size_at;
    long msg_at = msg_bytes;
    if ((t->n_tables > 0 || is_profiled) &&
        (rc = autotune_comm_get(comm, &s)) != MPI_SUCCESS) {
        return rc;
    }
    if (s) {
        out->comm = s->dup;
        out->rank = s->rank;
        size = s->size;
    }
    if (is_profiled && out->comm != MPI_COMM_NULL) {
        out->profile_index =
            autotune_profile_entry(coll, s, msg_bytes, root, out->start_s) + 1;
    }
    size_at = size;
    if (rt.n_decs == 0) {
        out->reason = rt.is_thread_multiple ? AUTOTUNE_THREAD_MULTIPLE
                                            : AUTOTUNE_NO_DECISION;
    } else if (t->n_tables == 0) {
        out->reason = AUTOTUNE_NOT_TUNED;
    } else if (out->comm == MPI_COMM_NULL) {
        out->reason = AUTOTUNE_INTERCOMM;
    } else {
        struct autotune_comm_table *ct = &s->tables[coll];
        if (!ct->is_known) {
            choose_table(t, (int)coll, s);
        }
        if (ct->detail > 0) {
            rt.details[ct->detail - 1].calls++;
        }
        const struct ppn_table *pt =
            ct->table >= 0 ? &t->tables[ct->table] : NULL;
        const struct coll_source *src = pt ? &t->sources[pt->source] : NULL;
        if (!pt) {
            out->reason = ct->reason;
        } else if (is_too_large(coll, size, msg_bytes)) {
            out->reason = AUTOTUNE_TOO_LARGE;
        } else if (is_outside(t, pt, &size_at, &msg_at)) {
            out->reason = AUTOTUNE_OUTSIDE;
        } else {
            m = lookup(t, ct->table, size_at, msg_at);
            const struct method_row *row = &src->rows[m];
            if (!row->alg && !row->node_run) {
                out->reason = AUTOTUNE_DEFAULT;
            } else if (row->node_run) {
                out->reason =
                    is_bottom ? AUTOTUNE_BOTTOM
                              : node_reason(t, (int)coll, s, m, row, op, out);
            } else if (row->alg->needs &&
                       !coll_alg_applies(row->alg, size, op)) {
                out->reason = coll_alg_applies(row->alg, size, MPI_OP_NULL)
                                  ? AUTOTUNE_NONCOMMUTATIVE
                                  : AUTOTUNE_PROCS;
            } else if (is_bottom) {
                out->reason = AUTOTUNE_BOTTOM;
            } else {
                out->alg = row->alg;
                out->seg_bytes = row->seg_bytes;
                out->reason = AUTOTUNE_RUN;
            }
            if (out->reason == AUTOTUNE_RUN) {
                out->chain_fanout = src->chain_fanout;
                out->size = size;
                (*count_method(src, m))++;
                return MPI_SUCCESS;
            }
        }
    }
    (*count_fallback(coll, out->reason))++;
    return MPI_SUCCESS;
}

/* Whether collective c takes tables from file f. */
static bool is_source(int c, int f)
{
    for (int k = 0; k < rt.colls[c].n_sources; k++) {
        if (rt.colls[c].sources[k].file == f) {
            return true;
        }
    }
    return false;
}

/* The calls of collective c's methods labelled as method m of source k,
 * counted at the first method of that label that ran (0 at the others). */
static long method_calls(const long *sum, int c, int k, int m)
{
    const struct coll_tuning *t = &rt.colls[c];
    const char *label = t->sources[k].d->methods[m];
    long n = 0;
    if (sum[count_method(&t->sources[k], m) - rt.counts] == 0) {
        return 0;
    }
    for (int j = 0; j < t->n_sources; j++) {
        const struct decision *d = t->sources[j].d;
        for (int i = 0; i < d->n_methods; i++) {
            long calls = sum[count_method(&t->sources[j], i) - rt.counts];
            if (calls > 0 && strcmp(d->methods[i], label) == 0) {
                if (j < k || (j == k && i < m)) {
                    return 0;
                }
                n += calls;
            }
        }
    }
    return n;
}

/* One line per decision file, then per collective called: calls, each
 * method that ran, the calls the library took and why, and the layouts
 * that sent calls elsewhere than their table (details, n of them); then
 * how often node communicators were made (nodes_made, summed over
 * ranks). */
static void print_report(const long *sum, int n_ranks,
                         const struct detail *details, int n, long nodes_made)
{
    fprintf(stderr,
            "libautotune: %d ranks, AUTOTUNE_DECISION=%s, "
            "AUTOTUNE_OUTSIDE=%s; calls summed over ranks\n",
            n_ranks, rt.path ? rt.path : "(none)",
            rt.is_nearest ? "nearest" : "library");
    for (int f = 0; f < rt.n_decs; f++) {
        const struct decision *d = rt.decs[f];
        fprintf(stderr, "libautotune: %s:", rt.dec_paths[f]);
        const char *sep = " ";
        for (int c = 0; c < AUTOTUNE_N_COLLS; c++) {
            if (is_source(c, f)) {
                fprintf(stderr, "%s%s", sep, autotune_coll_name(c));
                sep = ", ";
            }
        }
        if (d->n_ppn > 1 || d->ppn[0] != 1) {
            for (int k = 0; k < d->n_ppn; k++) {
                fprintf(stderr, "%s%d", k ? ", " : "; ppn ", d->ppn[k]);
            }
        }
        fprintf(stderr, "; chain_fanout %d%s\n",
                d->chain_fanout > 0 ? d->chain_fanout : TUNING_CHAIN_FANOUT,
                d->chain_fanout > 0 ? "" : " (not recorded)");
    }
    for (int c = 0; c < AUTOTUNE_N_COLLS; c++) {
        long calls = sum[c], library = 0;
        const struct coll_tuning *t = &rt.colls[c];
        if (calls == 0) {
            continue;
        }
        fprintf(stderr, "libautotune: %s: %ld calls:", autotune_coll_name(c),
                calls);
        const char *sep = " ";
        for (int k = 0; k < t->n_sources; k++) {
            for (int m = 0; m < t->sources[k].d->n_methods; m++) {
                long n_calls = method_calls(sum, c, k, m);
                if (n_calls > 0) {
                    fprintf(stderr, "%s%s %ld", sep,
                            t->sources[k].d->methods[m], n_calls);
                    sep = ", ";
                }
            }
        }
        for (int r = 0; r < AUTOTUNE_N_FALLBACKS; r++) {
            library += sum[count_fallback(c, r) - rt.counts];
        }
        if (library > 0) {
            fprintf(stderr, "%slibrary %ld (", sep, library);
            sep = "";
            for (int r = 0; r < AUTOTUNE_N_FALLBACKS; r++) {
                long n_calls = sum[count_fallback(c, r) - rt.counts];
                if (n_calls > 0) {
                    fprintf(stderr, "%s%s %ld", sep, fallback_names[r],
                            n_calls);
                    sep = ", ";
                }
            }
            fprintf(stderr, ")");
        }
        fprintf(stderr, "\n");
        for (int i = 0; i < n; i++) {
            if (details[i].coll != c) {
                continue;
            }
            fprintf(stderr, "libautotune: %s: %s: %ld calls ",
                    autotune_coll_name(c), details[i].text, details[i].calls);
            if (details[i].nearest_ppn > 0) {
                fprintf(stderr,
                        "took ppn %d's table (AUTOTUNE_OUTSIDE=nearest)\n",
                        details[i].nearest_ppn);
            } else {
                fprintf(stderr, "to the library\n");
            }
        }
    }
    if (nodes_made > 0) {
        fprintf(stderr,
                "libautotune: node-aware methods: node and leaders' "
                "communicators made %ld times (once per communicator on each "
                "of its ranks)\n",
                nodes_made);
    }
}

/* Every rank's details at rank 0, merged (equal lines' calls summed) into
 * *out (caller frees; NULL elsewhere or out of memory); their number. */
static int gather_details(int rank, int n_ranks, struct detail **out)
{
    int bytes = rt.n_details * (int)sizeof **out, total = 0, n = 0;
    int *counts = NULL, *displs = NULL;
    struct detail *all = NULL;
    *out = NULL;
    if (rank == 0) {
        counts = calloc((size_t)n_ranks, sizeof *counts);
        displs = calloc((size_t)n_ranks, sizeof *displs);
    }
    if (!autotune_all_ok(MPI_COMM_WORLD, rank != 0 || (counts && displs))) {
        goto done;
    }
    PMPI_Gather(&bytes, 1, MPI_INT, counts, 1, MPI_INT, 0, MPI_COMM_WORLD);
    for (int r = 0; rank == 0 && r < n_ranks; r++) {
        displs[r] = total * (int)sizeof *all;
        total += counts[r] / (int)sizeof *all;
    }
    if (rank == 0) {
        all = malloc((size_t)(total > 0 ? total : 1) * sizeof *all);
    }
    if (!autotune_all_ok(MPI_COMM_WORLD, rank != 0 || all)) {
        goto done;
    }
    PMPI_Gatherv(rt.details, bytes, MPI_BYTE, all, counts, displs, MPI_BYTE, 0,
                 MPI_COMM_WORLD);
    /* Equal lines of several ranks become one, their calls summed. */
    for (int i = 0; rank == 0 && i < total; i++) {
        int j = 0;
        while (j < n && (all[j].coll != all[i].coll ||
                         all[j].nearest_ppn != all[i].nearest_ppn ||
                         strcmp(all[j].text, all[i].text) != 0)) {
            j++;
        }
        if (j == n) {
            all[n++] = all[i];
        } else {
            all[j].calls += all[i].calls;
        }
    }
    *out = all;
    all = NULL;
done:
    free(all);
    free(counts);
    free(displs);
    return n;
}

void autotune_stop(void)
{
    const char *verbose = getenv("AUTOTUNE_VERBOSE");
    if (rt.counts && verbose && *verbose && strcmp(verbose, "0") != 0) {
        int rank = world_rank(), n_ranks = 1;
        PMPI_Comm_size(MPI_COMM_WORLD, &n_ranks);
        long *sum = rank == 0 ? calloc((size_t)rt.n_counts, sizeof *sum) : NULL;
        /* Every rank takes part even if rank 0 could not allocate. */
        PMPI_Reduce(rank == 0 && !sum ? MPI_IN_PLACE : rt.counts,
                    sum ? sum : rt.counts, rt.n_counts, MPI_LONG, MPI_SUM, 0,
                    MPI_COMM_WORLD);
        long made = autotune_comm_nodes_made(), nodes_made = 0;
        PMPI_Reduce(&made, &nodes_made, 1, MPI_LONG, MPI_SUM, 0,
                    MPI_COMM_WORLD);
        struct detail *details;
        int n = gather_details(rank, n_ranks, &details);
        if (rank == 0) {
            print_report(sum ? sum : rt.counts, n_ranks, details, n,
                         nodes_made);
        }
        free(details);
        free(sum);
    }
    autotune_profile_stop();
    autotune_comm_release();
    drop_decision();
    free(rt.counts);
    rt.counts = NULL;
}
