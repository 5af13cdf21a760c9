/* AUTOTUNE_PROFILE: each rank counts its intercepted calls and the time in
 * them per (collective, communicator size, processes per node, message
 * bytes); at MPI_Finalize rank 0 gathers and merges them and writes the
 * profile (store/profile.h) it opened at MPI_Init, so a path it cannot
 * write is known, and said, before the application runs. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/runtime.h"
#include "store/profile.h"

/* Longs per entry when gathered: collective, procs, per_node, msg_bytes,
 * calls. */
enum { PACKED_LONGS = 5 };

struct autotune_profile autotune_prof;

static struct {
    const char *path;
    char part[4096]; /* written here, renamed to path when complete */
    FILE *out;       /* rank 0 */
    int cap;         /* slots, a power of two; entries use at most half */
    int n;
    int *slots; /* index into autotune_prof.entries + 1; 0: empty */
} prof;

static unsigned long hash_point(int coll, int procs, long msg_bytes)
{
    unsigned long h = (unsigned long)coll * 0x9e3779b97f4a7c15UL;
    h ^= (unsigned long)procs * 0xc2b2ae3d27d4eb4fUL;
    h ^= (unsigned long)msg_bytes * 0x165667b19e3779f9UL;
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
        unsigned long h = hash_point(e->coll, e->procs, e->msg_bytes);
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

int autotune_profile_entry(enum autotune_coll coll, int procs, int per_node,
                           long msg_bytes)
{
    unsigned long h = hash_point((int)coll, procs, msg_bytes);
    for (int i; prof.cap && (i = prof.slots[h & (unsigned long)(prof.cap - 1)]);
         h++) {
        const struct autotune_profile_entry *e = &autotune_prof.entries[i - 1];
        if (e->coll == (int)coll && e->procs == procs &&
            e->per_node == per_node && e->msg_bytes == msg_bytes) {
            return i - 1;
        }
    }
    if (2 * (prof.n + 1) > prof.cap) {
        if (grow() != 0) {
            return -1; /* out of memory: this call goes unrecorded */
        }
        return autotune_profile_entry(coll, procs, per_node, msg_bytes);
    }
    prof.slots[h & (unsigned long)(prof.cap - 1)] = prof.n + 1;
    autotune_prof.entries[prof.n] =
        (struct autotune_profile_entry){.coll = (int)coll,
                                        .procs = procs,
                                        .per_node = per_node,
                                        .msg_bytes = msg_bytes};
    return prof.n++;
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
}

static int compare_packed(const void *a, const void *b)
{
    const long *x = a, *y = b;
    for (int k = 0; k < PACKED_LONGS - 1; k++) {
        if (x[k] != y[k]) {
            return x[k] < y[k] ? -1 : 1;
        }
    }
    return 0;
}

/* Rank 0: merges the n gathered entries (longs PACKED_LONGS each, then
 * the seconds in a parallel array) into the profile. Each rank of a
 * communicator counted each operation once: the sums divided by procs
 * are the operations and the mean time per rank. */
static int merge(long *longs, double *seconds, int n, int n_ranks,
                 struct profile *p)
{
    /* Each row carries its entry's index, to find its seconds. */
    long *rows = malloc((size_t)n * (PACKED_LONGS + 1) * sizeof *rows);
    p->n_ranks = n_ranks;
    p->n_points = 0;
    p->points = malloc((size_t)(n ? n : 1) * sizeof *p->points);
    if (!rows || !p->points) {
        free(rows);
        return -1;
    }
    for (int i = 0; i < n; i++) {
        memcpy(&rows[i * (PACKED_LONGS + 1)], &longs[i * PACKED_LONGS],
               PACKED_LONGS * sizeof *longs);
        rows[i * (PACKED_LONGS + 1) + PACKED_LONGS] = i;
    }
    qsort(rows, (size_t)n, (PACKED_LONGS + 1) * sizeof *rows, compare_packed);
    for (int i = 0; i < n; i++) {
        const long *r = &rows[i * (PACKED_LONGS + 1)];
        struct profile_point *last =
            p->n_points ? &p->points[p->n_points - 1] : NULL;
        if (!last || compare_packed(r, r - (PACKED_LONGS + 1)) != 0) {
            last = &p->points[p->n_points++];
            *last = (struct profile_point){
                .procs = (int)r[1], .per_node = (int)r[2], .msg_bytes = r[3]};
            snprintf(last->collective, sizeof last->collective, "%s",
                     autotune_coll_name((enum autotune_coll)r[0]));
        }
        last->calls += r[4];
        last->seconds += seconds[r[PACKED_LONGS]];
    }
    for (int i = 0; i < p->n_points; i++) {
        struct profile_point *pt = &p->points[i];
        pt->calls = (pt->calls + pt->procs / 2) / pt->procs;
        pt->seconds /= pt->procs;
    }
    free(rows);
    return 0;
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

/* Gathers every rank's entries at rank 0, which merges and writes them. */
static void gather_and_write(int rank, int n_ranks)
{
    int n = prof.n, *counts = NULL, *displs = NULL, total = 0;
    long *longs = malloc((size_t)(n ? n : 1) * PACKED_LONGS * sizeof *longs);
    double *secs = malloc((size_t)(n ? n : 1) * sizeof *secs);
    long *all_longs = NULL;
    double *all_secs = NULL;
    struct profile p = {0};
    const char *why = "out of memory";
    if (!longs || !secs) {
        n = 0; /* out of memory: this rank's calls go unrecorded */
    }
    for (int i = 0; i < n; i++) {
        const struct autotune_profile_entry *e = &autotune_prof.entries[i];
        long *l = &longs[i * PACKED_LONGS];
        l[0] = e->coll;
        l[1] = e->procs;
        l[2] = e->per_node;
        l[3] = e->msg_bytes;
        l[4] = e->calls;
        secs[i] = e->seconds;
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
        all_longs = malloc((size_t)(total ? total : 1) * PACKED_LONGS *
                           sizeof *all_longs);
        all_secs = malloc((size_t)(total ? total : 1) * sizeof *all_secs);
    }
    if (!all_agree(all_longs && all_secs)) {
        goto done;
    }
    PMPI_Gatherv(secs, n, MPI_DOUBLE, all_secs, counts, displs, MPI_DOUBLE, 0,
                 MPI_COMM_WORLD);
    for (int r = 0; rank == 0 && r < n_ranks; r++) {
        counts[r] *= PACKED_LONGS;
        displs[r] *= PACKED_LONGS;
    }
    PMPI_Gatherv(longs, n * PACKED_LONGS, MPI_LONG, all_longs, counts, displs,
                 MPI_LONG, 0, MPI_COMM_WORLD);
    if (rank == 0 && merge(all_longs, all_secs, total, n_ranks, &p) == 0) {
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
    free(p.points);
    free(longs);
    free(secs);
    free(counts);
    free(all_longs);
    free(all_secs);
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
    free(autotune_prof.entries);
    free(prof.slots);
    autotune_prof.entries = NULL;
    prof.slots = NULL;
    prof.cap = prof.n = 0;
}
