/* libautotune's decision: read at MPI_Init from AUTOTUNE_DECISION (by rank
 * 0, its bytes broadcast, so every rank holds the same decision or none),
 * each collective's methods resolved to rows of collectives/table.c, the
 * choice per call, and AUTOTUNE_VERBOSE's counts at MPI_Finalize. */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decision/decision.h"
#include "runtime/runtime.h"
#include "store/journal.h"

/* Chain algorithms take the tuner's default number of chains
 * (`chain_fanout` in a sweep config). */
enum { RUNTIME_CHAIN_FANOUT = 4 };

static const char *const coll_names[AUTOTUNE_N_COLLS] = {
    "bcast",     "reduce",    "scatter",  "gather",
    "allreduce", "allgather", "alltoall", "barrier"};

static const char *const fallback_names[AUTOTUNE_N_FALLBACKS] = {
    "no-decision", "not-tuned",      "default",   "outside",        "intercomm",
    "procs",       "noncommutative", "too-large", "thread-multiple"};

/* A decision method as one collective runs it: alg NULL is the library's
 * own collective ("default"). */
struct method_row {
    const struct coll_alg *alg;
    int seg_bytes;
};

static struct {
    struct decision *d;
    const char *path;
    bool is_nearest; /* AUTOTUNE_OUTSIDE=nearest */
    bool is_thread_multiple;
    int table_index[AUTOTUNE_N_COLLS];         /* in coll_table */
    int dec_coll[AUTOTUNE_N_COLLS];            /* -1: not in the decision */
    struct method_row *rows[AUTOTUNE_N_COLLS]; /* d->n_methods each */
    /* Each collective's last lookup: applications repeat their sizes. */
    struct {
        int procs; /* 0: none yet */
        long msg_bytes;
        int method;
    } last[AUTOTUNE_N_COLLS];
    /* Counters: calls, then fallbacks per reason, then runs per method. */
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
    return &rt.counts[AUTOTUNE_N_COLLS * (1 + AUTOTUNE_N_FALLBACKS) +
                      coll * rt.d->n_methods + method];
}

static int world_rank(void)
{
    int rank = 0;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    return rank;
}

/* The whole file, NUL-terminated, in *out (caller frees); its length, or
 * -1 with a message in err. */
static long read_file(const char *path, char **out, char *err, size_t size)
{
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    long n = 0, cap = 0;
    if (!f) {
        snprintf(err, size, "%s", strerror(errno));
        return -1;
    }
    for (;;) {
        if (n + 4096 + 1 > cap) {
            cap = 2 * cap + 4096 + 1;
            char *grown = cap < INT_MAX ? realloc(buf, (size_t)cap) : NULL;
            if (!grown) {
                snprintf(err, size, "%s: too large or out of memory", path);
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
    FILE *in = len > 0 ? fmemopen((void *)text, (size_t)len, "r") : NULL;
    int rc = -1;
    *out = NULL;
    if (!errs) {
        snprintf(err, size, "%s: out of memory", path);
        return -1;
    }
    if (!in) {
        fprintf(errs, "%s: empty", path);
    } else {
        rc = decision_read(in, path, errs, out);
        fclose(in);
    }
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

/* Maps the decision's collectives and the methods each can return to the
 * table; -1 with a message in err. */
static int resolve_decision(char *err, size_t size)
{
    struct decision *d = rt.d;
    bool *used = calloc((size_t)d->n_methods, sizeof *used);
    int rc = -1;
    if (!used) {
        snprintf(err, size, "out of memory");
        return -1;
    }
    for (int i = 0; i < AUTOTUNE_N_COLLS; i++) {
        rt.dec_coll[i] = decision_find_collective(d, coll_names[i]);
    }
    for (int k = 0; k < d->n_colls; k++) {
        const struct coll_def *c = coll_find(d->colls[k]);
        int i = 0;
        while (i < AUTOTUNE_N_COLLS && strcmp(coll_names[i], d->colls[k])) {
            i++;
        }
        if (!c || i == AUTOTUNE_N_COLLS) {
            snprintf(err, size, "unknown collective '%s'", d->colls[k]);
            goto done;
        }
        if (rt.dec_coll[i] != k) {
            continue; /* a repeated name: the first one counts */
        }
        rt.rows[i] = calloc((size_t)d->n_methods, sizeof *rt.rows[i]);
        if (!rt.rows[i]) {
            snprintf(err, size, "out of memory");
            goto done;
        }
        decision_methods_used(d, k, used);
        for (int m = 0; m < d->n_methods; m++) {
            if (used[m] && resolve_method(c, d->methods[m], &rt.rows[i][m], err,
                                          size) != 0) {
                goto done;
            }
        }
    }
    rc = 0;
done:
    free(used);
    return rc;
}

/* Rank 0 reads the file; every rank parses its bytes. 0, or -1 on every
 * rank with rank 0's message in err. */
static int load_decision(const char *path, int rank, char *err, size_t size)
{
    char *text = NULL;
    long len = 0;
    if (rank == 0) {
        len = read_file(path, &text, err, size);
    }
    PMPI_Bcast(&len, 1, MPI_LONG, 0, MPI_COMM_WORLD);
    if (len < 0) {
        return -1;
    }
    if (rank != 0 && !(text = malloc((size_t)len + 1))) {
        len = -1;
    }
    if (text) {
        PMPI_Bcast(text, (int)len, MPI_CHAR, 0, MPI_COMM_WORLD);
        text[len] = '\0';
    }
    int is_ok = text && parse_decision(text, len, path, &rt.d, err, size) == 0;
    is_ok = is_ok && resolve_decision(err, size) == 0;
    free(text);
    int all_ok = 0;
    PMPI_Allreduce(&is_ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    return all_ok ? 0 : -1;
}

static void drop_decision(void)
{
    for (int i = 0; i < AUTOTUNE_N_COLLS; i++) {
        free(rt.rows[i]);
        rt.rows[i] = NULL;
        rt.last[i].procs = 0;
    }
    decision_destroy(rt.d);
    rt.d = NULL;
}

void autotune_start(int thread_level_required)
{
    const char *path = getenv("AUTOTUNE_DECISION");
    const char *outside = getenv("AUTOTUNE_OUTSIDE");
    int rank = world_rank();
    char err[512] = "";

    for (int i = 0; i < AUTOTUNE_N_COLLS; i++) {
        for (int t = 0; t < coll_table_size; t++) {
            if (strcmp(coll_table[t]->name, coll_names[i]) == 0) {
                rt.table_index[i] = t;
            }
        }
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
    } else if (rt.path && load_decision(rt.path, rank, err, sizeof err)) {
        drop_decision();
        if (rank == 0) {
            fprintf(stderr,
                    "libautotune: AUTOTUNE_DECISION=%s: %s; the MPI library's "
                    "collectives run\n",
                    rt.path, err);
        }
    }
    int n_methods = rt.d ? rt.d->n_methods : 0;
    rt.n_counts = AUTOTUNE_N_COLLS * (1 + AUTOTUNE_N_FALLBACKS + n_methods);
    rt.counts = calloc((size_t)rt.n_counts, sizeof *rt.counts);
    if (!rt.counts) {
        /* Nothing to count into: run on the library, quietly. */
        drop_decision();
    }
}

const struct coll_def *autotune_coll_def(enum autotune_coll coll)
{
    return coll_table[rt.table_index[coll]];
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
static bool is_outside(int dc, int *procs, long *msg_bytes)
{
    const struct decision_range *r = decision_get_range(rt.d, dc);
    if (!r || (*procs >= r->procs_min && *procs <= r->procs_max &&
               *msg_bytes >= r->msg_min && *msg_bytes <= r->msg_max)) {
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
static int lookup(enum autotune_coll coll, int dc, int procs, long msg_bytes)
{
    if (rt.last[coll].procs != procs || rt.last[coll].msg_bytes != msg_bytes) {
        rt.last[coll].procs = procs;
        rt.last[coll].msg_bytes = msg_bytes;
        rt.last[coll].method = decision_lookup(rt.d, dc, procs, msg_bytes);
    }
    return rt.last[coll].method;
}

int autotune_choose(enum autotune_coll coll, MPI_Comm comm, long msg_bytes,
                    MPI_Op op, struct autotune_choice *out)
{
    out->alg = NULL;
    out->seg_bytes = 0;
    out->chain_fanout = RUNTIME_CHAIN_FANOUT;
    out->comm = MPI_COMM_NULL;
    out->profile_index = 0;
    if (!rt.counts) {
        out->reason = AUTOTUNE_NO_DECISION;
        return MPI_SUCCESS;
    }
    (*count_calls(coll))++;
    int dc = rt.d ? rt.dec_coll[coll] : -1, m = -1, rc;
    int size = 0, per_node = 0, size_at;
    long msg_at = msg_bytes;
    bool is_profiled = autotune_prof.is_on;
    if ((dc >= 0 || is_profiled) &&
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
    if (!rt.d) {
        out->reason = rt.is_thread_multiple ? AUTOTUNE_THREAD_MULTIPLE
                                            : AUTOTUNE_NO_DECISION;
    } else if (dc < 0) {
        out->reason = AUTOTUNE_NOT_TUNED;
    } else if (out->comm == MPI_COMM_NULL) {
        out->reason = AUTOTUNE_INTERCOMM;
    } else if (is_too_large(coll, size, msg_bytes)) {
        out->reason = AUTOTUNE_TOO_LARGE;
    } else if (is_outside(dc, &size_at, &msg_at)) {
        out->reason = AUTOTUNE_OUTSIDE;
    } else {
        m = lookup(coll, dc, size_at, msg_at);
        const struct method_row *row = &rt.rows[coll][m];
        if (!row->alg) {
            out->reason = AUTOTUNE_DEFAULT;
        } else if (row->alg->needs && !coll_alg_applies(row->alg, size, op)) {
            out->reason = coll_alg_applies(row->alg, size, MPI_OP_NULL)
                              ? AUTOTUNE_NONCOMMUTATIVE
                              : AUTOTUNE_PROCS;
        } else {
            out->alg = row->alg;
            out->seg_bytes = row->seg_bytes;
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
    int n_methods = rt.d ? rt.d->n_methods : 0;
    fprintf(stderr,
            "libautotune: %d ranks, AUTOTUNE_DECISION=%s, "
            "AUTOTUNE_OUTSIDE=%s; calls summed over ranks\n",
            n_ranks, rt.path ? rt.path : "(none)",
            rt.is_nearest ? "nearest" : "library");
    for (int c = 0; c < AUTOTUNE_N_COLLS; c++) {
        long calls = sum[c], library = 0;
        if (calls == 0) {
            continue;
        }
        fprintf(stderr, "libautotune: %s: %ld calls:", coll_names[c], calls);
        const char *sep = " ";
        for (int m = 0; m < n_methods; m++) {
            long n = sum[count_method(c, m) - rt.counts];
            if (n > 0) {
                fprintf(stderr, "%s%s %ld", sep, rt.d->methods[m], n);
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
