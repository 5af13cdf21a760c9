/* libautotune's decision: read at MPI_Init from AUTOTUNE_DECISION, one
 * file or several separated by ':' (each read by rank 0, its bytes
 * broadcast, so every rank holds the same decisions or none), each
 * collective tuned by at most one file and its methods resolved to rows of
 * collectives/table.c, the choice per call, and AUTOTUNE_VERBOSE's counts
 * at MPI_Finalize. */
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
    "no-decision",     "not-tuned", "default",        "outside",
    "intercomm",       "procs",     "noncommutative", "too-large",
    "thread-multiple", "bottom"};

/* A decision method as one collective runs it: alg NULL is the library's
 * own collective ("default"). */
struct method_row {
    const struct coll_alg *alg;
    int seg_bytes;
};

/* How one intercepted collective is tuned: by collective dc of decision d
 * (NULL: by none), its methods resolved to rows. */
struct coll_tuning {
    const struct coll_def *def;
    const struct decision *d;
    int dc;
    struct method_row *rows; /* d->n_methods */
    int chain_fanout;
    int first_count; /* its methods' counters start here */
    /* The last lookup: applications repeat their sizes. */
    struct {
        int procs; /* 0: none yet */
        long msg_bytes;
        int method;
    } last;
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

static long *count_method(int coll, int method)
{
    return &rt.counts[rt.colls[coll].first_count + method];
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

/* "algorithm/segment_bytes" of collective c into *row; -1 with a message
 * in err when the algorithm is not one of c's. */
static int resolve_method(const struct coll_def *c, const char *label,
                          struct method_row *row, char *err, size_t size)
{
    const char *slash = strrchr(label, '/');
    char name[RUN_NAME_MAX];
    char *end;
    long seg = slash ? strtol(slash + 1, &end, 10) : -1;
    if (!slash || end == slash + 1 || *end != '\0' || seg < 0 ||
        seg > INT_MAX || (size_t)(slash - label) >= sizeof name) {
        snprintf(err, size, "%s: method '%s' is not ALGORITHM/SEGMENT_BYTES",
                 c->name, label);
        return -1;
    }
    snprintf(name, sizeof name, "%.*s", (int)(slash - label), label);
    row->alg = NULL;
    row->seg_bytes = 0;
    if (strcmp(name, STORE_DEFAULT_ALGORITHM) == 0) {
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

/* Gives the collectives of decision file f to their tuning, each method
 * they can return resolved to a row; -1 with a message in err when one
 * is unknown or another file tunes it already. */
static int resolve_decision(int f, char *err, size_t size)
{
    const struct decision *d = rt.decs[f];
    /* With several files, a message names the one it is about. */
    int n = rt.n_decs > 1 ? snprintf(err, size, "%s: ", rt.dec_paths[f]) : 0;
    n = n < 0 || (size_t)n >= size ? 0 : n;
    bool *used = calloc((size_t)d->n_methods, sizeof *used);
    int rc = -1;
    if (!used) {
        snprintf(err + n, size - (size_t)n, "out of memory");
        return -1;
    }
    for (int k = 0; k < d->n_colls; k++) {
        int i = coll_of_name(d->colls[k]);
        struct coll_tuning *t = &rt.colls[i];
        if (i == AUTOTUNE_N_COLLS || !t->def) {
            snprintf(err + n, size - (size_t)n, "unknown collective '%s'",
                     d->colls[k]);
            goto done;
        }
        if (t->d) {
            for (int g = 0; g < f; g++) {
                if (rt.decs[g] == t->d) {
                    snprintf(err + n, size - (size_t)n,
                             "collective %s is also in %s", d->colls[k],
                             rt.dec_paths[g]);
                }
            }
            goto done;
        }
        t->d = d;
        t->dc = k;
        t->chain_fanout =
            d->chain_fanout > 0 ? d->chain_fanout : TUNING_CHAIN_FANOUT;
        t->rows = calloc((size_t)d->n_methods, sizeof *t->rows);
        if (!t->rows) {
            snprintf(err + n, size - (size_t)n, "out of memory");
            goto done;
        }
        decision_methods_used(d, k, used);
        for (int m = 0; m < d->n_methods; m++) {
            if (used[m] && resolve_method(t->def, d->methods[m], &t->rows[m],
                                          err + n, size - (size_t)n) != 0) {
                goto done;
            }
        }
    }
    rc = 0;
done:
    free(used);
    return rc;
}

/* Whether every rank says is_ok. */
static bool all_ok(bool is_ok)
{
    int flag = is_ok, all = 0;
    PMPI_Allreduce(&flag, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    return all != 0;
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
    if (!all_ok(text != NULL)) {
        snprintf(err, size, "%s: out of memory", path);
        free(text);
        return -1;
    }
    PMPI_Bcast(text, (int)len, MPI_CHAR, 0, MPI_COMM_WORLD);
    text[len] = '\0';
    bool is_ok = parse_decision(text, len, path, out, err, size) == 0;
    free(text);
    if (!all_ok(is_ok)) {
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
    if (!all_ok(is_ok)) {
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
    if (!all_ok(is_ok)) {
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
        free(t->rows);
        t->rows = NULL;
        t->d = NULL;
        t->last.procs = 0;
    }
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
    }
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
        rt.colls[i].first_count = rt.n_counts;
        rt.n_counts += rt.colls[i].d ? rt.colls[i].d->n_methods : 0;
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

/* Whether (*procs, *msg_bytes) is outside the measured range of decision
 * collective dc and AUTOTUNE_OUTSIDE=library gives it to the library;
 * with nearest, both move to the nearest point of the range instead. A
 * decision without a range (trees, quadtrees) has no outside. */
static bool is_outside(const struct coll_tuning *t, int *procs, long *msg_bytes)
{
    const struct decision_range *r = decision_get_range(t->d, t->dc);
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

/* decision_lookup, or the collective's last answer for the same point. */
static int lookup(struct coll_tuning *t, int procs, long msg_bytes)
{
    if (t->last.procs != procs || t->last.msg_bytes != msg_bytes) {
        t->last.procs = procs;
        t->last.msg_bytes = msg_bytes;
        t->last.method = decision_lookup(t->d, t->dc, procs, msg_bytes);
    }
    return t->last.method;
}

int autotune_choose(enum autotune_coll coll, MPI_Comm comm, long msg_bytes,
                    MPI_Op op, bool is_bottom, struct autotune_choice *out)
{
    out->alg = NULL;
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
    int m = -1, rc;
    int size = 0, per_node = 0, size_at;
    long msg_at = msg_bytes;
    bool is_profiled = autotune_prof.is_on;
    if ((t->d || is_profiled) &&
        (rc = autotune_comm_get(comm, &out->comm, &out->rank, &size,
                                is_profiled ? &per_node : NULL)) !=
            MPI_SUCCESS) {
        return rc;
    }
    if (is_profiled && out->comm != MPI_COMM_NULL) {
        out->profile_index =
            autotune_profile_entry(coll, size, per_node, msg_bytes) + 1;
        out->start_s = PMPI_Wtime();
    }
    size_at = size;
    if (rt.n_decs == 0) {
        out->reason = rt.is_thread_multiple ? AUTOTUNE_THREAD_MULTIPLE
                                            : AUTOTUNE_NO_DECISION;
    } else if (!t->d) {
        out->reason = AUTOTUNE_NOT_TUNED;
    } else if (out->comm == MPI_COMM_NULL) {
        out->reason = AUTOTUNE_INTERCOMM;
    } else if (is_too_large(coll, size, msg_bytes)) {
        out->reason = AUTOTUNE_TOO_LARGE;
    } else if (is_outside(t, &size_at, &msg_at)) {
        out->reason = AUTOTUNE_OUTSIDE;
    } else {
        m = lookup(t, size_at, msg_at);
        const struct method_row *row = &t->rows[m];
        if (!row->alg) {
            out->reason = AUTOTUNE_DEFAULT;
        } else if (row->alg->needs && !coll_alg_applies(row->alg, size, op)) {
            out->reason = coll_alg_applies(row->alg, size, MPI_OP_NULL)
                              ? AUTOTUNE_NONCOMMUTATIVE
                              : AUTOTUNE_PROCS;
        } else if (is_bottom) {
            out->reason = AUTOTUNE_BOTTOM;
        } else {
            out->alg = row->alg;
            out->seg_bytes = row->seg_bytes;
            out->chain_fanout = t->chain_fanout;
            out->size = size;
            out->reason = AUTOTUNE_RUN;
            (*count_method(coll, m))++;
            return MPI_SUCCESS;
        }
    }
    (*count_fallback(coll, out->reason))++;
    return MPI_SUCCESS;
}

/* One line per collective called: calls, each method that ran, the calls
 * the library took and why. */
static void print_report(const long *sum, int n_ranks)
{
    fprintf(stderr,
            "libautotune: %d ranks, AUTOTUNE_DECISION=%s, "
            "AUTOTUNE_OUTSIDE=%s; calls summed over ranks\n",
            n_ranks, rt.path ? rt.path : "(none)",
            rt.is_nearest ? "nearest" : "library");
    for (int f = 0; f < rt.n_decs; f++) {
        fprintf(stderr, "libautotune: %s:", rt.dec_paths[f]);
        const char *sep = " ";
        for (int c = 0; c < AUTOTUNE_N_COLLS; c++) {
            if (rt.colls[c].d == rt.decs[f]) {
                fprintf(stderr, "%s%s", sep, autotune_coll_name(c));
                sep = ", ";
            }
        }
        fprintf(stderr, "; chain_fanout %d%s\n",
                rt.decs[f]->chain_fanout > 0 ? rt.decs[f]->chain_fanout
                                             : TUNING_CHAIN_FANOUT,
                rt.decs[f]->chain_fanout > 0 ? "" : " (not recorded)");
    }
    for (int c = 0; c < AUTOTUNE_N_COLLS; c++) {
        long calls = sum[c], library = 0;
        const struct decision *d = rt.colls[c].d;
        if (calls == 0) {
            continue;
        }
        fprintf(stderr, "libautotune: %s: %ld calls:", autotune_coll_name(c),
                calls);
        const char *sep = " ";
        for (int m = 0; d && m < d->n_methods; m++) {
            long n = sum[count_method(c, m) - rt.counts];
            if (n > 0) {
                fprintf(stderr, "%s%s %ld", sep, d->methods[m], n);
                sep = ", ";
            }
        }
        for (int r = 0; r < AUTOTUNE_N_FALLBACKS; r++) {
            library += sum[count_fallback(c, r) - rt.counts];
        }
        if (library > 0) {
            fprintf(stderr, "%slibrary %ld (", sep, library);
            sep = "";
            for (int r = 0; r < AUTOTUNE_N_FALLBACKS; r++) {
                long n = sum[count_fallback(c, r) - rt.counts];
                if (n > 0) {
                    fprintf(stderr, "%s%s %ld", sep, fallback_names[r], n);
                    sep = ", ";
                }
            }
            fprintf(stderr, ")");
        }
        fprintf(stderr, "\n");
    }
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
        if (rank == 0) {
            print_report(sum ? sum : rt.counts, n_ranks);
        }
        free(sum);
    }
    autotune_profile_stop();
    autotune_comm_release();
    drop_decision();
    free(rt.counts);
    rt.counts = NULL;
}
