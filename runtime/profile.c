/* AUTOTUNE_PROFILE: each rank counts its intercepted calls and the time in
 * them per (collective, communicator size, processes per node, message
 * bytes), and keeps the entry time of a sample of them per communicator
 * and root; at MPI_Finalize rank 0 gathers and merges them and writes the
 * profile (store/profile.h) it opened at MPI_Init, so a path it cannot
 * write is known, and said, before the application runs. */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collectives/clock.h"
#include "runtime/runtime.h"
#include "store/profile.h"

/* Longs per entry when gathered: collective, procs, per_node, msg_bytes
 * (the point), comm_id, root (the stream of calls), rank (KEY_LONGS, the
 * order they merge in), then calls, arrivals, stride, n_samples (-1: a
 * sample was lost), the next call's collective (-1: none), msg_bytes and
 * the mean time before it (ns).
 * SAMPLES_MAX: the entry times kept per entry, every stride-th call's, so
 * that they span the whole run. */
enum { PACKED_LONGS = 14, KEY_LONGS = 7, POINT_LONGS = 4, STREAM_LONGS = 6 };
enum { SAMPLES_MIN = 16, SAMPLES_MAX = 512 };

struct autotune_profile autotune_prof;

static struct {
    const char *path;
    char part[4096]; /* written here, renamed to path when complete */
    FILE *out;       /* rank 0 */
    int cap;         /* slots, a power of two; entries use at most half */
    int n;
    int *slots; /* index into autotune_prof.entries + 1; 0: empty */
    /* The common clock: base_s is, on this rank's MPI_Wtime, the instant
     * rank 0's read t0 at MPI_Init; offset0_s this clock minus rank 0's
     * then (0 where MPI_WTIME_IS_GLOBAL). Samples are times since base_s. */
    int is_clock_global;
    double base_s, offset0_s;
    /* Per communicator, the entry of this rank's last call on it. */
    struct last_call {
        long comm_id;
        int entry;
    } * last;
    int n_last, cap_last;
} prof;

static unsigned long hash_point(int coll, int procs, long msg_bytes,
                                long comm_id, int root)
{
    unsigned long h = (unsigned long)coll * 0x9e3779b97f4a7c15UL;
    h ^= (unsigned long)procs * 0xc2b2ae3d27d4eb4fUL;
    h ^= (unsigned long)msg_bytes * 0x165667b19e3779f9UL;
    h ^= (unsigned long)comm_id * 0x27d4eb2f165667c5UL;
    h ^= (unsigned long)(root + 1) * 0x94d049bb133111ebUL;
    return h ^ (h >> 29);
}

static int grow(void)
{
    int cap = prof.cap ? 2 * prof.cap : 64;
    int *slots = calloc((size_t)cap, sizeof *slots);
    struct autotune_profile_entry *entries =
        realloc(autotune_prof.entries, (size_t)(cap / 2) * sizeof *entries);
    if (!slots || !entries) {
        free(slots);
        if (entries) {
            autotune_prof.entries = entries;
        }
        return -1;
    }
    autotune_prof.entries = entries;
    for (int i = 0; i < prof.n; i++) {
        const struct autotune_profile_entry *e = &entries[i];
        unsigned long h =
            hash_point(e->coll, e->procs, e->msg_bytes, e->comm_id, e->root);
        while (slots[h & (unsigned long)(cap - 1)]) {
            h++;
        }
        slots[h & (unsigned long)(cap - 1)] = i + 1;
    }
    free(prof.slots);
    prof.slots = slots;
    prof.cap = cap;
    return 0;
}

/* Keeps t, the entry time of call e->arrivals, if its number is a
 * multiple of the stride; a full sample drops every other call's and
 * doubles the stride. Every rank of the communicator keeps the same
 * calls' times. */
static void sample(struct autotune_profile_entry *e, double t)
{
    long k = e->arrivals++;
    if (e->cap_samples < 0 || (k & (e->stride - 1)) != 0) {
        return;
    }
    if (e->n_samples == e->cap_samples && e->cap_samples < SAMPLES_MAX) {
        int cap = e->cap_samples ? 2 * e->cap_samples : SAMPLES_MIN;
        double *grown = realloc(e->samples, (size_t)cap * sizeof *grown);
        if (!grown) {
            e->cap_samples = -1; /* the merge leaves this stream out */
            return;
        }
        e->samples = grown;
        e->cap_samples = cap;
    } else if (e->n_samples == e->cap_samples) {
        for (int i = 0; 2 * i < e->n_samples; i++) {
            e->samples[i] = e->samples[2 * i];
        }
        e->n_samples = (e->n_samples + 1) / 2;
        e->stride *= 2;
        if ((k & (e->stride - 1)) != 0) {
            return;
        }
    }
    e->samples[e->n_samples++] = t;
}

/* Call entry i, entered at start_s, follows this rank's last call on
 * communicator comm_id: a vote for i as that call's entry's next (a
 * majority vote: one candidate, kept while its votes outnumber the
 * others'), and the time between where i is the candidate. */
static void follow(long comm_id, int i, double start_s)
{
    int k = 0;
    while (k < prof.n_last && prof.last[k].comm_id != comm_id) {
        k++;
    }
    if (k == prof.n_last) {
        if (prof.n_last == prof.cap_last) {
            int cap = prof.cap_last ? 2 * prof.cap_last : 8;
            struct last_call *grown =
                realloc(prof.last, (size_t)cap * sizeof *grown);
            if (!grown) {
                return; /* out of memory: no vote */
            }
            prof.last = grown;
            prof.cap_last = cap;
        }
        prof.last[prof.n_last++] = (struct last_call){comm_id, i};
        return;
    }
    struct autotune_profile_entry *prev =
        &autotune_prof.entries[prof.last[k].entry];
    if (prev->next_votes == 0) { /* a new candidate: its own gaps */
        prev->next_entry = i;
        prev->gap_sum_s = 0;
        prev->n_gaps = 0;
    }
    if (prev->next_entry == i) {
        prev->next_votes++;
        prev->gap_sum_s += start_s - prev->end_s;
        prev->n_gaps++;
    } else {
        prev->next_votes--;
    }
    prof.last[k].entry = i;
}

int autotune_profile_entry(enum autotune_coll coll,
                           const struct autotune_comm_state *s, long msg_bytes,
                           int root, double start_s)
{
    int procs = s->size, per_node = s->layout.ppn;
    unsigned long h = hash_point((int)coll, procs, msg_bytes, s->id, root);
    for (int i; prof.cap && (i = prof.slots[h & (unsigned long)(prof.cap - 1)]);
         h++) {
        struct autotune_profile_entry *e = &autotune_prof.entries[i - 1];
        if (e->coll == (int)coll && e->procs == procs &&
            e->per_node == per_node && e->msg_bytes == msg_bytes &&
            e->comm_id == s->id && e->root == root) {
            if (procs > 1) {
                sample(e, start_s - prof.base_s);
            }
            follow(s->id, i - 1, start_s);
            return i - 1;
        }
    }
    if (2 * (prof.n + 1) > prof.cap) {
        if (grow() != 0) {
            return -1; /* out of memory: this call goes unrecorded */
        }
        return autotune_profile_entry(coll, s, msg_bytes, root, start_s);
    }
    prof.slots[h & (unsigned long)(prof.cap - 1)] = prof.n + 1;
    autotune_prof.entries[prof.n] =
        (struct autotune_profile_entry){.coll = (int)coll,
                                        .procs = procs,
                                        .per_node = per_node,
                                        .msg_bytes = msg_bytes,
                                        .comm_id = s->id,
                                        .root = root,
                                        .rank = s->rank,
                                        .stride = 1};
    if (procs > 1) {
        sample(&autotune_prof.entries[prof.n], start_s - prof.base_s);
    }
    follow(s->id, prof.n, start_s);
    return prof.n++;
}

/* Collective over MPI_COMM_WORLD: this rank's offset from rank 0's clock
 * (0 where MPI_Wtime is global), on a private duplicate; 0 or -1. */
static int world_offset(double *offset_s)
{
    MPI_Comm comm;
    *offset_s = 0;
    if (prof.is_clock_global) {
        return 0;
    }
    if (PMPI_Comm_dup(MPI_COMM_WORLD, &comm) != MPI_SUCCESS) {
        return -1;
    }
    PMPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    int rc = clock_sync(comm, offset_s);
    PMPI_Comm_free(&comm);
    return rc == MPI_SUCCESS ? 0 : -1;
}

/* The common clock's zero (collective over MPI_COMM_WORLD). */
static void clock_start(void)
{
    double t0;
    prof.is_clock_global = clock_is_global();
    if (world_offset(&prof.offset0_s) != 0) {
        prof.offset0_s = 0; /* no offset: the clocks are taken as one */
    }
    t0 = PMPI_Wtime();
    PMPI_Bcast(&t0, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    prof.base_s = t0 + prof.offset0_s;
}

void autotune_profile_start(const char *path, int rank)
{
    int is_ok = 0;
    prof.path = path;
    if (rank == 0) {
        int n = snprintf(prof.part, sizeof prof.part, "%s.part", path);
        prof.out = n > 0 && (size_t)n < sizeof prof.part ? fopen(prof.part, "w")
                                                         : NULL;
        is_ok = prof.out != NULL;
        if (!is_ok) {
            fprintf(stderr,
                    "libautotune: AUTOTUNE_PROFILE=%s: cannot write %s: %s; "
                    "no profile is recorded\n",
                    path, prof.part, n > 0 ? strerror(errno) : "too long");
        }
    }
    PMPI_Bcast(&is_ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
    autotune_prof.is_on = is_ok && grow() == 0;
    PMPI_Allreduce(MPI_IN_PLACE, &autotune_prof.is_on, 1, MPI_INT, MPI_MIN,
                   MPI_COMM_WORLD);
    if (autotune_prof.is_on) {
        clock_start();
    }
}

static int compare_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static int compare_prefix(const long *x, const long *y, int n)
{
    for (int k = 0; k < n; k++) {
        if (x[k] != y[k]) {
            return x[k] < y[k] ? -1 : 1;
        }
    }
    return 0;
}

static int compare_packed(const void *a, const void *b)
{
    return compare_prefix(a, b, KEY_LONGS);
}

/* Indices into the packed longs. */
enum {
    L_COLL,
    L_PROCS,
    L_PER_NODE,
    L_MSG,
    L_COMM,
    L_ROOT,
    L_RANK,
    L_CALLS,
    L_ARRIVALS,
    L_STRIDE,
    L_SAMPLES,
    L_NEXT_COLL,
    L_NEXT_MSG,
    L_NEXT_GAP_NS
};

/* What rank 0 merges: the gathered entries' longs (PACKED_LONGS each),
 * seconds, and samples (each entry's n_samples, in gather order, from
 * sample_at[entry]). */
struct gathered {
    long *longs;
    double *seconds;
    double *samples;
    long *sample_at;
    int n;
};

static double nearest_rank(const double *sorted, long n, double q)
{
    long k = (long)ceil(q * (double)n);
    return sorted[k > 0 ? k - 1 : 0];
}

/* The arrival summary of one point from its sorted rows [first, end):
 * each stream (communicator and root) whose procs ranks each kept the
 * same calls gives each sampled call's spread and shape. */
static int summarise_arrivals(const struct gathered *g, const long *rows,
                              int first, int end, struct profile_point *pt)
{
    enum { ROW = PACKED_LONGS + 1 };
    int procs = pt->procs;
    long n_spreads = 0, counts[PROFILE_N_SHAPES] = {0};
    for (int i = first; i < end; i++) {
        n_spreads +=
            rows[i * ROW + L_SAMPLES] > 0 ? rows[i * ROW + L_SAMPLES] : 0;
    }
    double *spreads =
        malloc((size_t)(n_spreads ? n_spreads : 1) * sizeof *spreads);
    double *offsets = malloc((size_t)procs * sizeof *offsets);
    const double **times = malloc((size_t)procs * sizeof *times);
    /* The offsets of every sampled call, kept where the point's vectors
     * fit a line: PROFILE_VECTORS_MAX of them, spread over the run, go
     * into the profile. */
    bool is_kept = procs <= PROFILE_VECTOR_PROCS_MAX && n_spreads > 0;
    double *all = is_kept
                      ? malloc((size_t)n_spreads * (size_t)procs * sizeof *all)
                      : NULL;
    if (!spreads || !offsets || !times || (is_kept && !all)) {
        free(spreads);
        free(offsets);
        free(times);
        free(all);
        return -1;
    }
    n_spreads = 0;
    for (int a = first, b; a < end; a = b) {
        const long *ra = &rows[a * ROW];
        for (b = a + 1;
             b < end && compare_prefix(&rows[b * ROW], ra, STREAM_LONGS) == 0;
             b++) {
        }
        bool is_whole = procs > 1 && b - a == procs;
        for (int k = 0; is_whole && k < procs; k++) {
            const long *rk = &rows[(a + k) * ROW];
            is_whole = rk[L_RANK] == k && rk[L_SAMPLES] >= 0 &&
                       rk[L_SAMPLES] == ra[L_SAMPLES] &&
                       rk[L_ARRIVALS] == ra[L_ARRIVALS] &&
                       rk[L_STRIDE] == ra[L_STRIDE];
            times[k] =
                is_whole ? &g->samples[g->sample_at[rk[PACKED_LONGS]]] : NULL;
        }
        for (long j = 0; is_whole && j < ra[L_SAMPLES]; j++) {
            double least = times[0][j], spread = 0;
            for (int k = 1; k < procs; k++) {
                least = times[k][j] < least ? times[k][j] : least;
            }
            for (int k = 0; k < procs; k++) {
                offsets[k] = (times[k][j] - least) * 1e6;
                spread = offsets[k] > spread ? offsets[k] : spread;
            }
            /* listed from the root (rank root + i at i) */
            int root = ra[L_ROOT] >= 0 ? (int)ra[L_ROOT] : 0;
            for (int i = 0; is_kept && i < procs; i++) {
                all[n_spreads * procs + i] = offsets[(root + i) % procs];
            }
            spreads[n_spreads++] = spread;
            counts[profile_shape_of(offsets, procs, (int)ra[L_ROOT])]++;
        }
    }
    if (n_spreads > 0) {
        qsort(spreads, (size_t)n_spreads, sizeof *spreads, compare_double);
        struct profile_arrival *ar = &pt->arrival;
        ar->sampled = n_spreads;
        ar->spread_median_us =
            n_spreads % 2
                ? spreads[n_spreads / 2]
                : (spreads[n_spreads / 2 - 1] + spreads[n_spreads / 2]) / 2;
        ar->spread_p90_us = nearest_rank(spreads, n_spreads, 0.9);
        ar->shape = 0;
        for (int k = 1; k < PROFILE_N_SHAPES; k++) {
            if (counts[k] > counts[ar->shape]) {
                ar->shape = (enum profile_shape)k;
            }
        }
    }
    /* Evenly over the sampled calls, from the first. */
    int n_vectors =
        n_spreads < PROFILE_VECTORS_MAX ? (int)n_spreads : PROFILE_VECTORS_MAX;
    pt->vectors_us =
        all && n_vectors > 0
            ? malloc((size_t)n_vectors * (size_t)procs * sizeof *pt->vectors_us)
            : NULL;
    for (int v = 0; pt->vectors_us && v < n_vectors; v++) {
        long j = (long)v * n_spreads / n_vectors;
        memcpy(&pt->vectors_us[v * procs], &all[j * procs],
               (size_t)procs * sizeof *all);
    }
    pt->n_vectors = pt->vectors_us ? n_vectors : 0;
    int rc = all && n_vectors > 0 && !pt->vectors_us ? -1 : 0;
    free(spreads);
    free(offsets);
    free(times);
    free(all);
    return rc;
}

/* Rank 0: merges the gathered entries into the profile. Each rank of a
 * communicator counted each operation once: the sums divided by procs
 * are the operations and the mean time per rank. */
static int merge(const struct gathered *g, int n_ranks, struct profile *p)
{
    enum { ROW = PACKED_LONGS + 1 };
    int n = g->n, rc = 0;
    /* Each row carries its entry's index, to find its seconds. */
    long *rows = malloc((size_t)(n ? n : 1) * ROW * sizeof *rows);
    p->n_ranks = n_ranks;
    p->n_points = 0;
    p->points = malloc((size_t)(n ? n : 1) * sizeof *p->points);
    if (!rows || !p->points) {
        free(rows);
        return -1;
    }
    for (int i = 0; i < n; i++) {
        memcpy(&rows[i * ROW], &g->longs[i * PACKED_LONGS],
               PACKED_LONGS * sizeof *rows);
        rows[i * ROW + PACKED_LONGS] = i;
    }
    qsort(rows, (size_t)n, ROW * sizeof *rows, compare_packed);
    for (int a = 0, b; a < n && rc == 0; a = b) {
        const long *ra = &rows[a * ROW];
        struct profile_point *pt = &p->points[p->n_points++];
        *pt = (struct profile_point){.procs = (int)ra[L_PROCS],
                                     .per_node = (int)ra[L_PER_NODE],
                                     .msg_bytes = ra[L_MSG]};
        snprintf(pt->collective, sizeof pt->collective, "%s",
                 autotune_coll_name((enum autotune_coll)ra[L_COLL]));
        for (b = a;
             b < n && compare_prefix(&rows[b * ROW], ra, POINT_LONGS) == 0;
             b++) {
            const long *rb = &rows[b * ROW];
            pt->calls += rb[L_CALLS];
            pt->seconds += g->seconds[rb[PACKED_LONGS]];
            /* the first row's (the lowest communicator, root, rank);
             * the time before it the mean of its stream's ranks' */
            if (!pt->next_collective[0] && rb[L_NEXT_COLL] >= 0) {
                snprintf(
                    pt->next_collective, sizeof pt->next_collective, "%s",
                    autotune_coll_name((enum autotune_coll)rb[L_NEXT_COLL]));
                pt->next_msg_bytes = rb[L_NEXT_MSG];
                long gap_ns = 0, k = 0;
                for (; b + k < n && compare_prefix(&rows[(b + k) * ROW], rb,
                                                   STREAM_LONGS) == 0;
                     k++) {
                    gap_ns += rows[(b + k) * ROW + L_NEXT_GAP_NS];
                }
                pt->next_gap_us = (double)gap_ns / (double)k * 1e-3;
            }
        }
        pt->calls = (pt->calls + pt->procs / 2) / pt->procs;
        pt->seconds /= pt->procs;
        rc = summarise_arrivals(g, rows, a, b, pt);
    }
    free(rows);
    return rc;
}

/* Rank 0's verdict to all ranks, so that all skip the next step alike. */
static bool all_agree(bool is_ok_at_root)
{
    int flag = is_ok_at_root;
    PMPI_Bcast(&flag, 1, MPI_INT, 0, MPI_COMM_WORLD);
    return flag != 0;
}

/* Rank 0 writes the merged profile and renames it into place; 0 or -1. */
static int write_profile(struct profile *p)
{
    profile_sort_by_cost(p);
    int rc = profile_write(prof.out, p);
    rc = fclose(prof.out) != 0 || rc != 0 ? -1 : 0;
    prof.out = NULL;
    return rc == 0 && rename(prof.part, prof.path) == 0 ? 0 : -1;
}

/* This rank's entries packed: longs, seconds and the samples on the
 * common clock, each corrected by drift x its time (a clock that is not
 * global drifts from rank 0's). The number of samples, or -1 when out of
 * memory. */
static long pack(long *longs, double *secs, double drift, double **samples)
{
    long n_samples = 0;
    for (int i = 0; i < prof.n; i++) {
        const struct autotune_profile_entry *e = &autotune_prof.entries[i];
        n_samples += e->cap_samples < 0 ? 0 : e->n_samples;
    }
    *samples = malloc((size_t)(n_samples ? n_samples : 1) * sizeof **samples);
    if (!*samples) {
        return -1;
    }
    n_samples = 0;
    for (int i = 0; i < prof.n; i++) {
        const struct autotune_profile_entry *e = &autotune_prof.entries[i];
        long *l = &longs[i * PACKED_LONGS];
        l[L_COLL] = e->coll;
        l[L_PROCS] = e->procs;
        l[L_PER_NODE] = e->per_node;
        l[L_MSG] = e->msg_bytes;
        l[L_COMM] = e->comm_id;
        l[L_ROOT] = e->root;
        l[L_RANK] = e->rank;
        l[L_CALLS] = e->calls;
        l[L_ARRIVALS] = e->arrivals;
        l[L_STRIDE] = e->stride;
        l[L_SAMPLES] = e->cap_samples < 0 ? -1 : e->n_samples;
        const struct autotune_profile_entry *next =
            e->next_votes > 0 ? &autotune_prof.entries[e->next_entry] : NULL;
        l[L_NEXT_COLL] = next ? next->coll : -1;
        l[L_NEXT_MSG] = next ? next->msg_bytes : 0;
        l[L_NEXT_GAP_NS] =
            e->n_gaps > 0 ? lround(1e9 * e->gap_sum_s / (double)e->n_gaps) : 0;
        secs[i] = e->seconds;
        for (int j = 0; j < l[L_SAMPLES]; j++) {
            double t = e->samples[j];
            (*samples)[n_samples++] = t - drift * t;
        }
    }
    return n_samples;
}

/* Gathers every rank's entries at rank 0, which merges and writes them. */
static void gather_and_write(int rank, int n_ranks)
{
    int n = prof.n, *counts = NULL, *displs = NULL, total = 0, n_own = 0;
    long *longs = malloc((size_t)(n ? n : 1) * PACKED_LONGS * sizeof *longs);
    double *secs = malloc((size_t)(n ? n : 1) * sizeof *secs);
    double *own = NULL;
    struct gathered g = {0};
    struct profile p = {0};
    const char *why = "out of memory";
    double drift = 0, offset1 = 0;
    /* The offset measured again, collective: the drift since MPI_Init. */
    if (world_offset(&offset1) == 0 && !prof.is_clock_global) {
        double span = PMPI_Wtime() - prof.base_s;
        drift = span > 0 ? (offset1 - prof.offset0_s) / span : 0;
    }
    long n_packed = longs && secs ? pack(longs, secs, drift, &own) : -1;
    if (n_packed < 0 || n_packed > INT_MAX) {
        n = 0; /* out of memory: this rank's calls go unrecorded */
    } else {
        n_own = (int)n_packed;
    }
    if (rank == 0) {
        counts = malloc((size_t)n_ranks * 2 * sizeof *counts);
        displs = counts ? counts + n_ranks : NULL;
    }
    if (!all_agree(counts != NULL)) {
        goto done;
    }
    PMPI_Gather(&n, 1, MPI_INT, counts, 1, MPI_INT, 0, MPI_COMM_WORLD);
    for (int r = 0; rank == 0 && r < n_ranks; r++) {
        displs[r] = total;
        total += counts[r];
    }
    if (rank == 0) {
        g.n = total;
        g.longs = malloc((size_t)(total ? total : 1) * PACKED_LONGS *
                         sizeof *g.longs);
        g.seconds = malloc((size_t)(total ? total : 1) * sizeof *g.seconds);
        g.sample_at = malloc((size_t)(total ? total : 1) * sizeof *g.sample_at);
    }
    if (!all_agree(g.longs && g.seconds && g.sample_at)) {
        goto done;
    }
    PMPI_Gatherv(secs, n, MPI_DOUBLE, g.seconds, counts, displs, MPI_DOUBLE, 0,
                 MPI_COMM_WORLD);
    for (int r = 0; rank == 0 && r < n_ranks; r++) {
        counts[r] *= PACKED_LONGS;
        displs[r] *= PACKED_LONGS;
    }
    PMPI_Gatherv(longs, n * PACKED_LONGS, MPI_LONG, g.longs, counts, displs,
                 MPI_LONG, 0, MPI_COMM_WORLD);
    /* The samples: each rank's count from its entries' longs. */
    long n_all = 0;
    for (int r = 0; rank == 0 && r < n_ranks; r++) {
        long from = n_all;
        for (int i = displs[r] / PACKED_LONGS;
             i < (displs[r] + counts[r]) / PACKED_LONGS; i++) {
            long k = g.longs[i * PACKED_LONGS + L_SAMPLES];
            g.sample_at[i] = n_all;
            n_all += k > 0 ? k : 0;
        }
        counts[r] = n_all - from > INT_MAX ? 0 : (int)(n_all - from);
        displs[r] = (int)from;
    }
    if (rank == 0) {
        g.samples =
            n_all <= INT_MAX
                ? malloc((size_t)(n_all ? n_all : 1) * sizeof *g.samples)
                : NULL;
    }
    if (!all_agree(g.samples != NULL)) {
        goto done;
    }
    PMPI_Gatherv(own, n_own, MPI_DOUBLE, g.samples, counts, displs, MPI_DOUBLE,
                 0, MPI_COMM_WORLD);
    if (rank == 0 && merge(&g, n_ranks, &p) == 0) {
        why = write_profile(&p) == 0 ? NULL : strerror(errno);
    }
done:
    if (prof.out) {
        fclose(prof.out);
        prof.out = NULL;
    }
    if (rank == 0 && why) {
        fprintf(stderr,
                "libautotune: AUTOTUNE_PROFILE=%s: could not write the "
                "profile (%s)\n",
                prof.path, why);
        remove(prof.part); /* nothing half-written stays behind */
    }
    profile_clear(&p);
    free(longs);
    free(secs);
    free(own);
    free(counts);
    free(g.longs);
    free(g.seconds);
    free(g.samples);
    free(g.sample_at);
}

void autotune_profile_stop(void)
{
    int rank = 0, n_ranks = 1;
    if (autotune_prof.is_on) {
        PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
        PMPI_Comm_size(MPI_COMM_WORLD, &n_ranks);
        gather_and_write(rank, n_ranks);
    } else if (prof.out) {
        fclose(prof.out);
        remove(prof.part);
    }
    prof.out = NULL;
    autotune_prof.is_on = 0;
    for (int i = 0; i < prof.n; i++) {
        free(autotune_prof.entries[i].samples);
    }
    free(autotune_prof.entries);
    free(prof.slots);
    free(prof.last);
    autotune_prof.entries = NULL;
    prof.slots = NULL;
    prof.last = NULL;
    prof.cap = prof.n = prof.n_last = prof.cap_last = 0;
}
