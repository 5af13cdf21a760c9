/* The model's calibration (`autotune model`): measures the point-to-point
 * parameters of seed 003 §3.3 between world rank 0 and the first rank on
 * another node (journaled as procs 2, ppn 1), and between rank 0 and the
 * next rank on its own node (procs 2, ppn 2), at the config's message and
 * segment sizes (and the powers of two up to a 16th of the largest); then,
 * over one rank per node, from 3 nodes the placement (which nodes share a
 * switch, by their one-way times) and, where it finds 2 switches or more,
 * each switch's uplink (its ranks sending out of it at once), then from 4
 * nodes, where no uplink is limited, the backbone (disjoint pairs sending
 * at once); journaled in
 * RUN/model.journal like experiments (a rerun measures only what is missing),
 * then written to RUN/model.csv. Rank 0 drives; its peer answers; the first
 * rank of each other node joins the pairs and answers the hops. */
#include "tune/calibrate.h"
#include "model/model.h"
#include "store/journal.h"
#include "store/rundir.h"
#include "store/tables.h"
#include "tune/clock.h"
#include "tune/config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MODEL_MAX_REPS = 9, MODEL_TAG = 9001 };
/* Repetitions and warm-ups of each observation: the config's measure
 * settings, at most 9 and 1 (a simulation needs 1 and none). */
static int n_reps = MODEL_MAX_REPS, n_warmup = 1;
/* The most a stream carries (model_stream_count): the journal's stream
 * row's, on every rank. */
static long stream_bytes = MODEL_STREAM_BYTES;

/* An experiment is named by its first output; each output is a value one
 * rank saw (slot index of that rank's values): the ping-pong gives oneway
 * and, from its first half, send (the blocking send's duration, rank 0)
 * and stream1 (the receiver's time for that message, rank 1); the stream
 * of K Isends gives streamK (rank 1) and each Isend's duration at its
 * number of pending sends. */
enum { MAX_OUTPUTS = 1 + MODEL_N_LEVELS, MAX_SLOTS = MODEL_STREAM_MAX };
static const enum model_quantity experiments[] = {
    MODEL_Q_ONEWAY, MODEL_Q_RECV_LATE, MODEL_Q_STREAMK, MODEL_Q_REDUCE};
#define N_EXPERIMENTS ((int)(sizeof experiments / sizeof experiments[0]))

struct output {
    enum model_quantity q;
    int pending; /* the journal's segment_bytes */
    int rank, slot;
};

static int experiment_outputs(enum model_quantity e, long m, struct output *out)
{
    int n = 0;
    switch (e) {
    case MODEL_Q_ONEWAY:
        out[n++] = (struct output){MODEL_Q_ONEWAY, 0, 0, 0};
        out[n++] = (struct output){MODEL_Q_SEND, 0, 0, 1};
        out[n++] = (struct output){MODEL_Q_STREAM1, 0, 1, 0};
        break;
    case MODEL_Q_MODE: /* the blocking send's duration */
        out[n++] = (struct output){MODEL_Q_MODE, 0, 0, 0};
        break;
    case MODEL_Q_STREAMK: {
        int k = model_stream_count(m, stream_bytes);
        out[n++] = (struct output){MODEL_Q_STREAMK, k, 1, 0};
        for (int l = 0; l < MODEL_N_LEVELS && model_pending_levels[l] < k;
             l++) {
            int p = model_pending_levels[l];
            out[n++] = (struct output){MODEL_Q_ISEND, p, 0, p};
        }
        break;
    }
    default:
        out[n++] = (struct output){e, 0, e == MODEL_Q_RECV_LATE, 0};
        break;
    }
    return n;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static char *buffer;
/* The first rank of each node, in node order: the pairs and the hops go
 * between nodes (its ranks are the node numbers of the hops). */
static MPI_Comm nodes_comm = MPI_COMM_NULL;

/* One repetition of experiment e between ranks 0 and 1 of pair: the
 * durations this rank saw, in us, into v[slot]. */
static void one_rep(MPI_Comm pair, int rank, enum model_quantity e, int m,
                    double late_wait_s, double *v)
{
    MPI_Request reqs[MAX_SLOTS];
    double t0;
    int k = e == MODEL_Q_STREAMK ? model_stream_count(m, stream_bytes) : 1;
    char *buf = buffer;
    switch (e) {
    case MODEL_Q_STREAMK:
        if (rank == 1) {
            for (int i = 0; i < k; i++) {
                MPI_Irecv(buf, m, MPI_BYTE, 0, MODEL_TAG, pair, &reqs[i]);
            }
        }
        MPI_Barrier(pair);
        t0 = MPI_Wtime();
        if (rank == 0) {
            for (int i = 0; i < k; i++) {
                double ti = MPI_Wtime();
                MPI_Isend(buf, m, MPI_BYTE, 1, MODEL_TAG, pair, &reqs[i]);
                v[i] = MPI_Wtime() - ti; /* with i sends pending */
            }
            MPI_Waitall(k, reqs, MPI_STATUSES_IGNORE);
        } else {
            MPI_Waitall(k, reqs, MPI_STATUSES_IGNORE);
            v[0] = MPI_Wtime() - t0;
        }
        break;
    case MODEL_Q_MODE:
        /* The send alone, to a posted receive: eager returns once the
         * data is copied out, rendezvous once it has arrived. */
        if (rank == 1) {
            MPI_Irecv(buf, m, MPI_BYTE, 0, MODEL_TAG, pair, &reqs[0]);
        }
        MPI_Barrier(pair);
        if (rank == 0) {
            t0 = MPI_Wtime();
            MPI_Send(buf, m, MPI_BYTE, 1, MODEL_TAG, pair);
            v[0] = MPI_Wtime() - t0;
        } else {
            MPI_Wait(&reqs[0], MPI_STATUS_IGNORE);
        }
        break;
    case MODEL_Q_ONEWAY:
        /* Both receives posted before either send, like a tree's; the
         * first half is also a blocking send to a posted receive. */
        MPI_Irecv(buf, m, MPI_BYTE, 1 - rank, MODEL_TAG, pair, &reqs[0]);
        MPI_Barrier(pair);
        t0 = MPI_Wtime();
        if (rank == 0) {
            MPI_Send(buf, m, MPI_BYTE, 1, MODEL_TAG, pair);
            v[1] = MPI_Wtime() - t0;
            MPI_Wait(&reqs[0], MPI_STATUS_IGNORE);
            v[0] = (MPI_Wtime() - t0) / 2;
        } else {
            MPI_Wait(&reqs[0], MPI_STATUS_IGNORE);
            v[0] = MPI_Wtime() - t0;
            MPI_Send(buf, m, MPI_BYTE, 0, MODEL_TAG, pair);
        }
        break;
    case MODEL_Q_RECV_LATE:
        /* The receive is posted well after the message was sent. */
        MPI_Barrier(pair);
        if (rank == 0) {
            MPI_Send(buf, m, MPI_BYTE, 1, MODEL_TAG, pair);
        } else {
            clock_wait_until(MPI_Wtime() + late_wait_s);
            t0 = MPI_Wtime();
            MPI_Recv(buf, m, MPI_BYTE, 0, MODEL_TAG, pair, MPI_STATUS_IGNORE);
            v[0] = MPI_Wtime() - t0;
        }
        break;
    case MODEL_Q_REDUCE:
        MPI_Barrier(pair);
        if (rank == 0) {
            t0 = MPI_Wtime();
            MPI_Reduce_local(buf + m, buf, m, MPI_UNSIGNED_CHAR, MPI_SUM);
            v[0] = MPI_Wtime() - t0;
        }
        break;
    default:
        break;
    }
    for (int i = 0; i < MAX_SLOTS; i++) {
        v[i] *= 1e6;
    }
}

/* One journal record of quantity q from n_reps times (sorted here), of
 * the pair at ppn (1: two nodes, 2: one node). */
static void fill_record(struct measurement *r, enum model_quantity q, int ppn,
                        long m, int pending, double *times, double cost_s)
{
    double sum = 0, sq = 0;
    qsort(times, (size_t)n_reps, sizeof times[0], cmp_double);
    for (int i = 0; i < n_reps; i++) {
        sum += times[i];
    }
    double mean = sum / n_reps;
    for (int i = 0; i < n_reps; i++) {
        sq += (times[i] - mean) * (times[i] - mean);
    }
    memset(r, 0, sizeof *r);
    snprintf(r->collective, sizeof r->collective, "p2p");
    snprintf(r->algorithm, sizeof r->algorithm, "%s", model_quantity_names[q]);
    r->procs = 2;
    r->ppn = ppn;
    r->msg_bytes = m;
    r->segment_bytes = pending;
    r->is_applicable = 1;
    r->reps = n_reps;
    r->mean_us = mean;
    r->median_us = times[n_reps / 2];
    r->min_us = times[0];
    r->max_us = times[n_reps - 1];
    r->sd_us = n_reps > 1 ? sqrt(sq / (n_reps - 1)) : 0;
    r->cost_s = cost_s;
}

/* Runs experiment e on ranks 0 and 1 of pair (n_warmup, then n_reps
 * timed); rank 0 gets one measurement per output in out[] (n_out of them,
 * of the pair at ppn), the whole experiment's cost on the first. */
static void observe(MPI_Comm pair, int rank, int ppn, enum model_quantity e,
                    int m, double late_wait_s, struct measurement *out,
                    int *n_out)
{
    double mine[MODEL_MAX_REPS][MAX_SLOTS] = {{0}};
    double theirs[MODEL_MAX_REPS][MAX_SLOTS] = {{0}};
    double warm[MAX_SLOTS] = {0};
    struct output outs[MAX_OUTPUTS];
    int n = experiment_outputs(e, m, outs);
    /* Both ranks start together, whatever came before (a resumed run). */
    MPI_Barrier(pair);
    double start = MPI_Wtime();
    for (int i = 0; i < n_warmup; i++) {
        one_rep(pair, rank, e, m, late_wait_s, warm);
    }
    for (int i = 0; i < n_reps; i++) {
        one_rep(pair, rank, e, m, late_wait_s, mine[i]);
    }
    int count = n_reps * MAX_SLOTS;
    if (rank == 1) {
        MPI_Send(mine, count, MPI_DOUBLE, 0, MODEL_TAG, pair);
        return;
    }
    MPI_Recv(theirs, count, MPI_DOUBLE, 1, MODEL_TAG, pair, MPI_STATUS_IGNORE);
    double cost_s = MPI_Wtime() - start;
    for (int o = 0; o < n; o++) {
        double times[MODEL_MAX_REPS];
        for (int i = 0; i < n_reps; i++) {
            times[i] = (outs[o].rank == 0 ? mine : theirs)[i][outs[o].slot];
        }
        fill_record(&out[o], outs[o].q, ppn, m, outs[o].pending, times,
                    o == 0 ? cost_s : 0);
    }
    *n_out = n;
}

/* The sizes measured: 0, every power of two up to a 16th of the largest
 * message or segment of the config, and the config's sizes themselves;
 * ascending, unique. Above that the parameters are interpolated between
 * the config's sizes: the large sizes are most of the cost, and a
 * transfer's time is close to linear there. */
static long *model_sizes(const struct config *c, int *n)
{
    long max = 1;
    for (int i = 0; i < c->n_msgs; i++) {
        max = c->msg_sizes[i] > max ? c->msg_sizes[i] : max;
    }
    for (int i = 0; i < c->n_segs; i++) {
        max = c->seg_sizes[i] > max ? c->seg_sizes[i] : max;
    }
    int cap = 66 + c->n_msgs + c->n_segs;
    long *sizes = malloc((size_t)cap * sizeof *sizes);
    if (!sizes) {
        return NULL;
    }
    *n = 0;
    sizes[(*n)++] = 0;
    for (long m = 1; m <= max / 16; m *= 2) {
        sizes[(*n)++] = m;
    }
    for (int i = 0; i < c->n_msgs; i++) {
        sizes[(*n)++] = c->msg_sizes[i];
    }
    for (int i = 0; i < c->n_segs; i++) {
        sizes[(*n)++] = c->seg_sizes[i];
    }
    /* Insertion sort and unique: a few dozen sizes. */
    for (int i = 1; i < *n; i++) {
        for (int j = i; j > 0 && sizes[j] < sizes[j - 1]; j--) {
            long t = sizes[j];
            sizes[j] = sizes[j - 1];
            sizes[j - 1] = t;
        }
    }
    int u = 0;
    for (int i = 0; i < *n; i++) {
        if (u == 0 || sizes[i] != sizes[u - 1]) {
            sizes[u++] = sizes[i];
        }
    }
    *n = u;
    return sizes;
}

static int write_model_csv(FILE *f, const void *arg)
{
    const struct journal *j = arg;
    fprintf(f, "%s\n", MODEL_CSV_HEADER);
    for (size_t i = 0; i < journal_count(j); i++) {
        const struct measurement *m = journal_record(j, i);
        if (strcmp(m->collective, "p2p") == 0) {
            /* The least of the repetitions: the cost itself, without
             * what other processes of a busy machine added. */
            fprintf(f, "%s,%d,%ld,%d,%.3f,%d,%.6f\n", m->algorithm, m->ppn,
                    m->msg_bytes, m->segment_bytes, m->min_us, m->reps,
                    m->cost_s);
        }
    }
    return ferror(f) ? -1 : 0;
}

/* The journal's observations so far, as model.csv will hold them (*obs
 * caller-frees). -1 out of memory. */
static int journal_observations(const struct journal *j, struct model_obs **obs,
                                size_t *n)
{
    *n = 0;
    *obs = malloc((journal_count(j) + 1) * sizeof **obs);
    if (!*obs) {
        fprintf(stderr, "autotune model: out of memory\n");
        return -1;
    }
    for (size_t i = 0; i < journal_count(j); i++) {
        const struct measurement *m = journal_record(j, i);
        int q = model_quantity_find(m->algorithm);
        if (strcmp(m->collective, "p2p") == 0 && q >= 0) {
            (*obs)[(*n)++] =
                (struct model_obs){(enum model_quantity)q, m->msg_bytes,
                                   m->segment_bytes, m->min_us, m->ppn == 2};
        }
    }
    return 0;
}

static int compare_names(const void *a, const void *b)
{
    return strcmp(a, b);
}

/* Every rank: the hosts the ranks run on, for the journal's settings
 * (into hosts on rank 0): how many distinct ones, and the CRC of their
 * names in rank order, so that a calibration is resumed only on the same
 * nodes in the same order (the pairs and the placement depend on them).
 * Under SMPI the names are the platform's hosts. -1 out of memory. */
static int hosts_setting(int rank, int world_size, char *hosts, size_t size)
{
    enum { NAME = MPI_MAX_PROCESSOR_NAME };
    char name[NAME] = "";
    int len = 0;
    char *all = rank == 0 ? calloc((size_t)world_size, NAME) : NULL;
    int has_room = rank != 0 || all != NULL;
    MPI_Bcast(&has_room, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (!has_room) { /* every rank returns: none waits in the gather */
        if (rank == 0) {
            fprintf(stderr, "autotune model: out of memory\n");
        }
        return -1;
    }
    MPI_Get_processor_name(name, &len);
    MPI_Gather(name, NAME, MPI_CHAR, all, NAME, MPI_CHAR, 0, MPI_COMM_WORLD);
    if (rank != 0) {
        return 0;
    }
    /* each name zero-padded to NAME bytes, in rank order */
    uint32_t crc = journal_crc32(all, (size_t)world_size * NAME);
    for (int r = 0; r < world_size; r++) {
        all[(size_t)r * NAME + NAME - 1] = '\0'; /* for strcmp below */
    }
    qsort(all, (size_t)world_size, NAME, compare_names);
    int n_hosts = world_size > 0;
    for (int r = 1; r < world_size; r++) {
        n_hosts +=
            strcmp(all + (size_t)r * NAME, all + (size_t)(r - 1) * NAME) != 0;
    }
    snprintf(hosts, size, "%d-%08x", n_hosts, (unsigned)crc);
    free(all);
    return 0;
}

/* Rank 0: opens the run directory and its model journal; the pairs are
 * rank 0 and inter_peer (two nodes) and intra_peer (one node), -1 where
 * there is none. */
static int controller_open(const char *config_path, int is_fresh,
                           int world_size, const char *hosts, int inter_peer,
                           int intra_peer, struct config *c,
                           struct rundir_lock **lock, struct journal **journal)
{
    struct journal_settings settings = {0};
    char path[2048];
    if (config_load(config_path, c) != 0) {
        return -1;
    }
    if (world_size < 2) {
        fprintf(stderr, "autotune model: needs 2 ranks or more (got %d)\n",
                world_size);
        config_free(c);
        return -1;
    }
    /* The quantities before the uplinks: a journal measured before them
     * resumes, and gains only the uplink observations. */
    journal_settings_add(&settings, "model.quantities", "%d",
                         (int)MODEL_Q_UPLINK);
    n_reps = c->measure.max_reps < MODEL_MAX_REPS ? c->measure.max_reps
                                                  : MODEL_MAX_REPS;
    n_reps = n_reps < 1 ? 1 : n_reps;
    n_warmup = c->measure.warmup > 0;
    journal_settings_add(&settings, "model.reps", "%d", n_reps);
    journal_settings_add(&settings, "model.warmup", "%d", n_warmup);
    /* The inter-node pair (0,1 at one rank per node, as before the
     * intra-node pair was measured: such journals resume), and the
     * intra-node one where there is one. */
    if (inter_peer > 0) {
        journal_settings_add(&settings, "model.ranks", "0,%d", inter_peer);
    } else {
        journal_settings_add(&settings, "model.ranks", "none");
    }
    if (intra_peer > 0) {
        journal_settings_add(&settings, "model.intra_ranks", "0,%d",
                             intra_peer);
    }
    journal_settings_add(&settings, "model.stream_bytes", "%d",
                         (int)MODEL_STREAM_BYTES);
    /* The harness itself: a journal measured with another set of
     * experiments or another least K is not resumed. */
    journal_settings_add(&settings, "model.experiments",
                         "oneway,recv_late,streamK,reduce,hop");
    journal_settings_add(&settings, "model.stream_min", "%d",
                         model_stream_count(1L << 40, MODEL_STREAM_BYTES));
    /* Where it runs: the pairs and the placement are of these ranks on
     * these hosts. */
    journal_settings_add(&settings, "model.world", "%d", world_size);
    journal_settings_add(&settings, "model.hosts", "%s", hosts);
    if (store_make_dir(c->output) != 0 ||
        rundir_lock_open(c->output, lock) != 0) {
        config_free(c);
        return -1;
    }
    if ((is_fresh && rundir_start_fresh_model(c->output) != 0) ||
        rundir_path(path, sizeof path, c->output, RUNDIR_MODEL_JOURNAL) != 0 ||
        journal_open(path, &settings, journal) != 0) {
        rundir_lock_close(*lock);
        config_free(c);
        return -1;
    }
    return 0;
}

/* Rank 0: experiment e at m bytes on the pair at ppn, its outputs from
 * the journal, measured (with rank 1, sent the command) and journaled
 * where any is missing (only those: what a resumed run kept stays, the
 * experiment's cost on the first appended); into rec, their cost added
 * to *cost_s. 0, or -1 when the journal cannot be written (rank 1 still
 * waits for a command). */
static int experiment_get(MPI_Comm pair, int ppn, enum model_quantity e, long m,
                          double late_wait_s, struct journal *j,
                          const struct measurement **rec, double *cost_s,
                          int *n_new)
{
    struct output outs[MAX_OUTPUTS];
    int n = experiment_outputs(e, m, outs), missing = 0;
    for (int o = 0; o < n; o++) {
        rec[o] = journal_find(j, "p2p", 2, ppn, m,
                              model_quantity_names[outs[o].q], outs[o].pending);
        missing |= rec[o] == NULL;
    }
    if (missing) {
        struct measurement got[MAX_OUTPUTS];
        int n_got = 0;
        long cmd[3] = {e, m, 0};
        memcpy(&cmd[2], &late_wait_s, sizeof late_wait_s);
        MPI_Send(cmd, 3, MPI_LONG, 1, MODEL_TAG, pair);
        observe(pair, 0, ppn, e, (int)m, late_wait_s, got, &n_got);
        double cost = got[0].cost_s;
        for (int o = 0; o < n_got; o++) {
            if (!rec[o]) {
                got[o].cost_s = cost;
                cost = 0;
                if (journal_append(j, &got[o]) != 0) {
                    return -1;
                }
                (*n_new)++;
            }
        }
    }
    for (int o = 0; o < n; o++) {
        rec[o] = journal_find(j, "p2p", 2, ppn, m,
                              model_quantity_names[outs[o].q], outs[o].pending);
        *cost_s += rec[o]->cost_s;
    }
    return 0;
}

/* Rank 0: the journal's record of quantity q at m bytes (pending 0) on the
 * pair at ppn's, its least time; NAN if none. */
static double p2p_min_us(const struct journal *j, int ppn,
                         enum model_quantity q, long m)
{
    const struct measurement *r =
        journal_find(j, "p2p", 2, ppn, m, model_quantity_names[q], 0);
    return r ? r->min_us : NAN;
}

/* Rank 0, after every size: where the send mode changes between the
 * largest eager size measured and the smallest rendezvous one (by the
 * fit's rule, monotone: rendezvous from the smallest size above which
 * every size is), a bisection of blocking sends (mode rows, classified by
 * model_mode_is_rendezvous) until at most MODEL_MODE_PRECISION of that
 * interval is left: a message between two measured sizes is priced by the
 * right mode (Grig's eager limit, 128000 bytes, lies between two powers of
 * two). A resumed run replays the bisection from the journal. */
static int mode_bisect(MPI_Comm pair, int ppn, const long *sizes, int n_sizes,
                       struct journal *j, double *cost_s, int *n_new)
{
    int first_rdv = n_sizes;
    while (first_rdv > 0 &&
           model_is_rendezvous(
               p2p_min_us(j, ppn, MODEL_Q_ISEND, sizes[first_rdv - 1]),
               p2p_min_us(j, ppn, MODEL_Q_SEND, sizes[first_rdv - 1]),
               p2p_min_us(j, ppn, MODEL_Q_ONEWAY, sizes[first_rdv - 1]))) {
        first_rdv--;
    }
    if (first_rdv == 0 || first_rdv == n_sizes) {
        return 0;
    }
    const long eager = sizes[first_rdv - 1], rdv = sizes[first_rdv];
    long lo = eager, hi = rdv;
    double isend = p2p_min_us(j, ppn, MODEL_Q_ISEND, lo);
    double oneway_eager = p2p_min_us(j, ppn, MODEL_Q_ONEWAY, eager);
    double oneway_rdv = p2p_min_us(j, ppn, MODEL_Q_ONEWAY, rdv);
    double left = MODEL_MODE_PRECISION * (double)(hi - lo);
    while ((double)(hi - lo) > left && hi - lo > 1) {
        long mid = lo + (hi - lo) / 2;
        const struct measurement *rec[MAX_OUTPUTS];
        if (experiment_get(pair, ppn, MODEL_Q_MODE, mid, 0, j, rec, cost_s,
                           n_new) != 0) {
            return -1;
        }
        if (model_mode_is_rendezvous(isend, rec[0]->min_us, mid, eager,
                                     oneway_eager, rdv, oneway_rdv)) {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    return 0;
}

/* Rank 0: every experiment with a missing output of the pair at ppn, in
 * order of size, then the bisection; adds to *cost_s and *n_new. */
static int controller_run(MPI_Comm pair, int ppn, const long *sizes,
                          int n_sizes, struct journal *j, double *cost_s,
                          int *n_new)
{
    int rc = -1;
    double first_wait_s = 0, first_oneway_us = 0;
    for (int s = 0; s < n_sizes; s++) {
        long m = sizes[s];
        double late_wait_s = 0;
        for (int e = 0; e < N_EXPERIMENTS; e++) {
            const struct measurement *rec[MAX_OUTPUTS];
            if (experiment_get(pair, ppn, experiments[e], m, late_wait_s, j,
                               rec, cost_s, n_new) != 0) {
                goto stop;
            }
            if (experiments[e] == MODEL_Q_ONEWAY) {
                /* Long enough for the message to have arrived: its
                 * one-way time after the sender left the barrier, which
                 * is at most the smallest size's one-way time after the
                 * receiver did (the first size: twice its own), and 20 us
                 * more (the least of the repetitions is kept: one slowed
                 * more than that is not); where the
                 * blocking send waits for most of it (a rendezvous: the
                 * data moves once the receive is posted), for its request
                 * to have, as the smallest size's message did. */
                int is_rdv = rec[1]->min_us > 0.5 * rec[0]->min_us;
                first_oneway_us = s == 0 ? rec[0]->max_us : first_oneway_us;
                late_wait_s = (rec[0]->max_us + first_oneway_us) * 1e-6 + 2e-5;
                late_wait_s = s > 0 && is_rdv ? first_wait_s : late_wait_s;
                first_wait_s = s == 0 ? late_wait_s : first_wait_s;
            }
        }
    }
    if (mode_bisect(pair, ppn, sizes, n_sizes, j, cost_s, n_new) != 0) {
        goto stop;
    }
    rc = 0;
stop:;
    long stop[3] = {-1, 0, 0};
    MPI_Send(stop, 3, MPI_LONG, 1, MODEL_TAG, pair);
    return rc;
}

/* This rank's part of a flow experiment: it sends one message of m bytes
 * to rank dst of nodes_comm and receives one from rank src (-1: none;
 * both: until both are done), from t0 (this rank's clock; with is_at,
 * waited for): its time in s. */
static double flows_part(int dst, int src, double t0, int is_at, int m)
{
    double t = 0;
    if (is_at) {
        clock_wait_until(t0);
    }
    if (dst >= 0) {
        /* Both: the receive posted first, into the buffer's second half
         * (sized for two messages of MODEL_STREAM_BYTES). */
        MPI_Request recv = MPI_REQUEST_NULL;
        if (src >= 0) {
            MPI_Irecv(buffer + m, m, MPI_BYTE, src, MODEL_TAG, nodes_comm,
                      &recv);
        }
        MPI_Send(buffer, m, MPI_BYTE, dst, MODEL_TAG, nodes_comm);
        MPI_Wait(&recv, MPI_STATUS_IGNORE);
        t = MPI_Wtime() - t0;
    } else if (src >= 0) {
        MPI_Recv(buffer, m, MPI_BYTE, src, MODEL_TAG, nodes_comm,
                 MPI_STATUS_IGNORE);
        t = MPI_Wtime() - t0;
    }
    return t;
}

/* n_pairs ranks i each send to i + world_size / 2, all at once. */
/* Every rank of nodes_comm, from a barrier (each rank's own clock from
 * its own exit: the exits' skew is in the times); rank 0 gets the slowest
 * pair's time, in us. */
static double pairs_rep(int rank, int world_size, int n_pairs)
{
    int half = world_size / 2;
    double slowest = 0;
    MPI_Barrier(nodes_comm);
    double t =
        flows_part(rank < n_pairs ? rank + half : -1,
                   rank >= half && rank < half + n_pairs ? rank - half : -1,
                   MPI_Wtime(), 0, MODEL_STREAM_BYTES);
    MPI_Reduce(&t, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, nodes_comm);
    return slowest * 1e6;
}

/* Every rank of nodes_comm, from 4 nodes: the pairs observations the
 * journal lacks (1
 * pair, then world_size / 2 at once); rank 0 journals them and adds every
 * pairs record's cost to *cost_s. */
static int pairs_run(int rank, int world_size, struct journal *j,
                     double *cost_s, int *n_new)
{
    int levels[2] = {1, world_size / 2}, is_missing[2] = {0, 0}, rc = 0;
    if (world_size < 4) {
        return 0;
    }
    for (int l = 0; l < 2 && rank == 0; l++) {
        is_missing[l] =
            !journal_find(j, "p2p", 2, 1, MODEL_STREAM_BYTES,
                          model_quantity_names[MODEL_Q_PAIRS], levels[l]);
    }
    MPI_Bcast(is_missing, 2, MPI_INT, 0, nodes_comm);
    for (int l = 0; l < 2; l++) {
        if (!is_missing[l]) {
            continue;
        }
        double times[MODEL_MAX_REPS], start = MPI_Wtime();
        for (int i = 0; i < n_warmup; i++) {
            pairs_rep(rank, world_size, levels[l]);
        }
        for (int i = 0; i < n_reps; i++) {
            times[i] = pairs_rep(rank, world_size, levels[l]);
        }
        if (rank == 0) {
            struct measurement r;
            fill_record(&r, MODEL_Q_PAIRS, 1, MODEL_STREAM_BYTES, levels[l],
                        times, MPI_Wtime() - start);
            rc = rc != 0 ? rc : journal_append(j, &r);
            (*n_new)++;
        }
    }
    for (int l = 0; l < 2 && rank == 0; l++) {
        const struct measurement *r =
            journal_find(j, "p2p", 2, 1, MODEL_STREAM_BYTES,
                         model_quantity_names[MODEL_Q_PAIRS], levels[l]);
        *cost_s += r ? r->cost_s : 0;
    }
    return rc;
}

/* Rank 0: 1 where the fit of the journal so far uses the pairs (no
 * uplink limited), 0 where not, -1 on an error (said). */
static int uses_pairs(const struct journal *j)
{
    struct model_obs *obs = NULL;
    struct model_params *p = NULL;
    size_t n_obs = 0;
    int uses = journal_observations(j, &obs, &n_obs) != 0 ||
                       model_params_fit(obs, n_obs, &p) != 0
                   ? -1
                   : model_params_uses_pairs(p);
    model_params_destroy(p);
    free(obs);
    return uses;
}

/* ---- The placement: which ranks share a switch ---- */

enum { HOP_CMD_TAG = 9002, HOP_TAG = 9003 };

/* A 1-byte ping-pong with peer, once untimed, then n_reps times; the first
 * of the pair gets each one-way time (us) in times. The untimed one, even
 * where the config has no warm-up, waits out the command that started the
 * pair (SMPI moves eager data only once its receive is posted, so the
 * first ping would carry the command's latency). */
static void hop_pingpong(int peer, int is_first, double *times)
{
    char byte = 0;
    for (int i = -1; i < n_reps; i++) {
        double t0 = MPI_Wtime();
        if (is_first) {
            MPI_Send(&byte, 1, MPI_BYTE, peer, HOP_TAG, nodes_comm);
            MPI_Recv(&byte, 1, MPI_BYTE, peer, HOP_TAG, nodes_comm,
                     MPI_STATUS_IGNORE);
            if (i >= 0) {
                times[i] = (MPI_Wtime() - t0) / 2 * 1e6;
            }
        } else {
            MPI_Recv(&byte, 1, MPI_BYTE, peer, HOP_TAG, nodes_comm,
                     MPI_STATUS_IGNORE);
            MPI_Send(&byte, 1, MPI_BYTE, peer, HOP_TAG, nodes_comm);
        }
    }
}

/* Ranks other than 0: ping-pong as rank 0 says ({peer, is_first}; the
 * first sends its times back) until told to stop ({-1, 0}). */
static void hop_serve(void)
{
    for (;;) {
        int cmd[2];
        double times[MODEL_MAX_REPS];
        MPI_Recv(cmd, 2, MPI_INT, 0, HOP_CMD_TAG, nodes_comm,
                 MPI_STATUS_IGNORE);
        if (cmd[0] < 0) {
            return;
        }
        hop_pingpong(cmd[0], cmd[1], times);
        if (cmd[1]) {
            MPI_Send(times, n_reps, MPI_DOUBLE, 0, HOP_CMD_TAG, nodes_comm);
        }
    }
}

/* Rank 0: one round of hops at once, between the disjoint pairs a[i] <
 * b[i] (rank 0 pings its own), journaled; each hop's cost is the round's
 * wall time over its n hops, so their sum is what the round took. A
 * 1-byte ping-pong is latency: where two share a link beyond their nodes'
 * own (an uplink), the byte's share of its bandwidth changes nothing that
 * matters, so hops on disjoint nodes do not disturb each other. -1 on a
 * journal error. */
static int hops_round(struct journal *j, const int *a, const int *b, int n,
                      int *n_new)
{
    double(*times)[MODEL_MAX_REPS] = malloc((size_t)n * sizeof *times);
    if (!times) {
        fprintf(stderr, "autotune model: out of memory\n");
        return -1;
    }
    double start = MPI_Wtime();
    for (int i = 0; i < n; i++) {
        int to_b[2] = {a[i], 0}, to_a[2] = {b[i], 1};
        MPI_Send(to_b, 2, MPI_INT, b[i], HOP_CMD_TAG, nodes_comm);
        if (a[i] > 0) {
            MPI_Send(to_a, 2, MPI_INT, a[i], HOP_CMD_TAG, nodes_comm);
        }
    }
    for (int i = 0; i < n; i++) {
        if (a[i] == 0) {
            hop_pingpong(b[i], 1, times[i]);
        } else {
            MPI_Recv(times[i], n_reps, MPI_DOUBLE, a[i], HOP_CMD_TAG,
                     nodes_comm, MPI_STATUS_IGNORE);
        }
    }
    double each_s = (MPI_Wtime() - start) / n;
    int rc = 0;
    for (int i = 0; i < n && rc == 0; i++) {
        struct measurement m;
        fill_record(&m, MODEL_Q_HOP, 1, a[i], b[i], times[i], each_s);
        rc = journal_append(j, &m);
        *n_new += rc == 0;
    }
    free(times);
    return rc;
}

/* The journal's hops between ranks below n (i: the i-th record, from i). */
static const struct measurement *next_hop(const struct journal *j, size_t *i,
                                          int n)
{
    const char *name = model_quantity_names[MODEL_Q_HOP];
    for (; *i < journal_count(j); (*i)++) {
        const struct measurement *m = journal_record(j, *i);
        if (strcmp(m->collective, "p2p") == 0 && m->ppn == 1 &&
            strcmp(m->algorithm, name) == 0 && m->msg_bytes < n &&
            m->segment_bytes < n) {
            return m;
        }
    }
    return NULL;
}

/* The ranks joined by the journal's hops as the fit joins them (near:
 * within MODEL_HOP_NEAR of rank 0's least hop, *least): root[r] is the
 * least rank of r's set; met[x * n + y] is 1 where a hop between sets x
 * and y (by root) is not near: they are apart. *least_all: the least hop
 * of all. Returns the number of sets. */
static int hops_join(const struct journal *j, int n, int *root,
                     unsigned char *met, double *least, double *least_all)
{
    const struct measurement *m;
    *least = *least_all = INFINITY;
    for (size_t i = 0; (m = next_hop(j, &i, n)); i++) {
        *least = m->msg_bytes == 0 ? fmin(*least, m->min_us) : *least;
        *least_all = fmin(*least_all, m->min_us);
    }
    for (int r = 0; r < n; r++) {
        root[r] = r;
    }
    for (size_t i = 0; (m = next_hop(j, &i, n)); i++) {
        if (model_hop_is_near(m->min_us, *least)) {
            int x = (int)m->msg_bytes, y = m->segment_bytes;
            while (root[x] != x) {
                x = root[x];
            }
            while (root[y] != y) {
                y = root[y];
            }
            root[x > y ? x : y] = x < y ? x : y;
        }
    }
    int n_sets = 0;
    for (int r = 0; r < n; r++) {
        root[r] = root[root[r]]; /* each rank's parent is below it */
        n_sets += root[r] == r;
    }
    memset(met, 0, (size_t)n * n);
    for (size_t i = 0; (m = next_hop(j, &i, n)); i++) {
        int x = root[m->msg_bytes], y = root[m->segment_bytes];
        if (x != y) {
            met[x * n + y] = met[y * n + x] = 1;
        }
    }
    return n_sets;
}

/* Rank 0: the pairs of the next round of hops into a and b (their number
 * into *k): neighbours in node order in two sets not known apart (a
 * switch's ranks mostly are neighbours), else the least ranks of two such
 * sets, each rank in one pair at most. */
static void hops_pick(int n, const int *root, const unsigned char *met,
                      unsigned char *busy, int *a, int *b, int *k)
{
    memset(busy, 0, (size_t)n);
    *k = 0;
    for (int r = 1; r < n; r++) {
        int x = root[r - 1], y = root[r];
        if (x != y && !met[x * n + y] && !busy[r - 1] && !busy[r]) {
            a[*k] = r - 1;
            b[(*k)++] = r;
            busy[r - 1] = busy[r] = 1;
        }
    }
    int is_neighbours = *k > 0;
    for (int x = 0; x < n && !is_neighbours; x++) {
        for (int y = x + 1; y < n && root[x] == x && !busy[x]; y++) {
            if (root[y] == y && !busy[y] && !met[x * n + y]) {
                a[*k] = x;
                b[(*k)++] = y;
                busy[x] = busy[y] = 1;
            }
        }
    }
}

/* Rank 0: rounds of hops at once, until the sets of ranks joined by near
 * hops have each met every other (that is the hop between every two
 * switches): first neighbours in node order, then each set's least rank
 * against each other's. Near is against rank 0's least hop, as the fit's;
 * where that is not near the least of all (rank 0 met none of its
 * switch), or every rank is in one set (one switch, or no two neighbours
 * on one), rank 0's hop to every rank is measured, one after another, and
 * the rounds go on (as rank 0's alone decided before: where rank 0 is
 * alone on its switch every rank looks near it). A fat tree of L leaves
 * in node order takes 2 rounds and about L more. What the journal holds
 * is not measured again (one of the walk that tried each rank against
 * rank 0, then the switches found, one hop after another, holds all the
 * placement). Each rank's switch into *switch_out (caller-frees; numbered
 * in order of their first rank, as the fit's) and their number into
 * *n_out. */
static int placement_measure(int world_size, struct journal *j, double *cost_s,
                             int *n_new, int **switch_out, int *n_out)
{
    int n = world_size;
    int *root = malloc((size_t)n * sizeof *root);
    int *a = malloc((size_t)n * sizeof *a), *b = malloc((size_t)n * sizeof *b);
    int *switch_of = malloc((size_t)n * sizeof *switch_of);
    unsigned char *busy = malloc((size_t)n);
    unsigned char *met = malloc((size_t)n * n);
    int rc = root && a && b && switch_of && busy && met ? 0 : -1;
    if (rc != 0) {
        fprintf(stderr, "autotune model: out of memory\n");
    }
    const char *name = model_quantity_names[MODEL_Q_HOP];
    while (rc == 0) {
        double least, least_all;
        int k;
        int n_sets = hops_join(j, n, root, met, &least, &least_all);
        hops_pick(n, root, met, busy, a, b, &k);
        int is_unsure = n_sets == 1 || !model_hop_is_near(least, least_all);
        for (int r = 1; r < n && k == 0 && is_unsure && rc == 0; r++) {
            int from0[1] = {0}, to[1] = {r};
            if (!journal_find(j, "p2p", 2, 1, 0, name, r)) {
                rc = hops_round(j, from0, to, 1, n_new);
                k = -1; /* then the rounds again */
            }
        }
        if (k == 0) {
            break;
        }
        if (k > 0) {
            rc = hops_round(j, a, b, k, n_new);
        }
    }
    int n_switches = 0;
    for (int r = 0; r < n && rc == 0; r++) {
        switch_of[r] = root[r] == r ? n_switches++ : switch_of[root[r]];
    }
    const struct measurement *m;
    for (size_t i = 0; rc == 0 && (m = next_hop(j, &i, n)); i++) {
        *cost_s += m->cost_s;
    }
    int stop[2] = {-1, 0};
    for (int r = 1; r < n; r++) {
        MPI_Send(stop, 2, MPI_INT, r, HOP_CMD_TAG, nodes_comm);
    }
    free(root);
    free(a);
    free(b);
    free(busy);
    free(met);
    if (rc == 0) {
        *switch_out = switch_of;
        *n_out = n_switches;
    } else {
        free(switch_of);
    }
    return rc;
}

/* Every rank of nodes_comm, from 3 nodes: the placement (rank 0 drives;
 * it gets each rank's switch and their number, as placement_measure). */
static int placement_run(int rank, int world_size, struct journal *j,
                         double *cost_s, int *n_new, int **switch_of,
                         int *n_switches)
{
    if (world_size < 3) {
        return 0;
    }
    if (rank != 0) {
        hop_serve();
        return 0;
    }
    return placement_measure(world_size, j, cost_s, n_new, switch_of,
                             n_switches);
}

/* ---- The uplinks: what the flows out of a switch share ---- */

/* Each flow experiment starts at one instant, told by rank 0 to the ranks
 * in it only (the others idle): {m, the start on rank 0's clock, the rank
 * to send to, the one to receive from} (m < 0: no more); each sends its
 * time back. Each rank's clock_offset_s from rank 0's; flows_to and
 * flows_from rank 0's (world_size each). */
enum { FLOWS_TAG = 9004 };
static double clock_offset_s;
static int *flows_to, *flows_from;
/* Rank 0: how late a command sent to each rank alone arrives (rank 0's
 * clock), and how much later each command sent before it in turn makes
 * one (the senders' overhead). */
static double *flows_late, flows_spacing;

/* Ranks other than 0: their part of each experiment rank 0 sends, until
 * told to stop. */
static void flows_serve(void)
{
    for (;;) {
        double cmd[4];
        MPI_Recv(cmd, 4, MPI_DOUBLE, 0, FLOWS_TAG, nodes_comm,
                 MPI_STATUS_IGNORE);
        if (cmd[0] < 0) {
            return;
        }
        double t = flows_part((int)cmd[2], (int)cmd[3], cmd[1] + clock_offset_s,
                              1, (int)cmd[0]);
        MPI_Send(&t, 1, MPI_DOUBLE, 0, FLOWS_TAG, nodes_comm);
    }
}

/* Every rank but 0: the lateness of rank 0's command (its time on rank
 * 0's clock in it), sent back. */
static void flows_late_reply(void)
{
    double cmd[4], late;
    MPI_Recv(cmd, 4, MPI_DOUBLE, 0, FLOWS_TAG, nodes_comm, MPI_STATUS_IGNORE);
    late = MPI_Wtime() - clock_offset_s - cmd[1];
    MPI_Send(&late, 1, MPI_DOUBLE, 0, FLOWS_TAG, nodes_comm);
}

/* Every rank of nodes_comm: how late a command from rank 0 arrives, sent
 * to each rank alone (flows_late), then to every rank in turn (as an
 * experiment of every rank would): the k-th sent is later than alone by
 * k - 1 times flows_spacing at most (on rank 0). */
static void flows_start_measure(int rank, int world_size)
{
    double cmd[4] = {0, 0, -1, -1}, late = 0;
    if (rank != 0) {
        flows_late_reply();
        flows_late_reply();
        return;
    }
    for (int r = 1; r < world_size; r++) {
        cmd[1] = MPI_Wtime();
        MPI_Send(cmd, 4, MPI_DOUBLE, r, FLOWS_TAG, nodes_comm);
        MPI_Recv(&flows_late[r], 1, MPI_DOUBLE, r, FLOWS_TAG, nodes_comm,
                 MPI_STATUS_IGNORE);
    }
    cmd[1] = MPI_Wtime();
    for (int r = 1; r < world_size; r++) {
        MPI_Send(cmd, 4, MPI_DOUBLE, r, FLOWS_TAG, nodes_comm);
    }
    flows_spacing = 0;
    for (int r = 1; r < world_size; r++) {
        MPI_Recv(&late, 1, MPI_DOUBLE, r, FLOWS_TAG, nodes_comm,
                 MPI_STATUS_IGNORE);
        if (r > 1) {
            flows_spacing =
                fmax(flows_spacing, (late - flows_late[r]) / (r - 1));
        }
    }
}

/* Rank 0: one repetition of n flows of m bytes at once, flow f from rank
 * src[f] to rank dst[f] (each rank the source of one flow at most and the
 * destination of one at most), from one start after its commands all
 * arrive (twice the latest, plus 10 us): the slowest one's time, in us. */
static double flows_rep(int world_size, int n, int m, const int *src,
                        const int *dst)
{
    double latest = 0, slowest = 0, t;
    for (int r = 0; r < world_size; r++) {
        flows_to[r] = flows_from[r] = -1;
    }
    for (int f = 0; f < n; f++) {
        flows_to[src[f]] = dst[f];
        flows_from[dst[f]] = src[f];
    }
    for (int r = 1, k = 0; r < world_size; r++) {
        if (flows_to[r] >= 0 || flows_from[r] >= 0) {
            latest = fmax(latest, flows_late[r] + k++ * flows_spacing);
        }
    }
    double t0 = MPI_Wtime() + 2 * latest + 1e-5;
    for (int r = 1; r < world_size; r++) {
        double cmd[4] = {m, t0, flows_to[r], flows_from[r]};
        if (flows_to[r] >= 0 || flows_from[r] >= 0) {
            MPI_Send(cmd, 4, MPI_DOUBLE, r, FLOWS_TAG, nodes_comm);
        }
    }
    if (flows_to[0] >= 0 || flows_from[0] >= 0) {
        slowest = flows_part(flows_to[0], flows_from[0], t0, 1, m);
    }
    for (int r = 1; r < world_size; r++) {
        if (flows_to[r] >= 0 || flows_from[r] >= 0) {
            MPI_Recv(&t, 1, MPI_DOUBLE, r, FLOWS_TAG, nodes_comm,
                     MPI_STATUS_IGNORE);
            slowest = fmax(slowest, t);
        }
    }
    return slowest * 1e6;
}

/* Rank 0: the others stop serving. */
static void flows_stop(int world_size)
{
    double cmd[4] = {-1, 0, -1, -1};
    for (int r = 1; r < world_size; r++) {
        MPI_Send(cmd, 4, MPI_DOUBLE, r, FLOWS_TAG, nodes_comm);
    }
}

/* Rank 0: observation (q, a, b) from the journal, or measured as n flows
 * (src, dst) of m bytes and journaled: its time into *value_us. -1 on a
 * journal error. */
static int flows_get(struct journal *j, enum model_quantity q, int a, int b,
                     int n, int m, int *src, int *dst, double *value_us,
                     double *cost_s, int *n_new)
{
    const char *name = model_quantity_names[q];
    const struct measurement *rec = journal_find(j, "p2p", 2, 1, a, name, b);
    if (!rec) {
        double times[MODEL_MAX_REPS], start = MPI_Wtime();
        int world_size;
        MPI_Comm_size(nodes_comm, &world_size);
        for (int i = 0; i < n_warmup; i++) {
            flows_rep(world_size, n, m, src, dst);
        }
        for (int i = 0; i < n_reps; i++) {
            times[i] = flows_rep(world_size, n, m, src, dst);
        }
        struct measurement r;
        fill_record(&r, q, 1, a, b, times, MPI_Wtime() - start);
        if (journal_append(j, &r) != 0) {
            return -1;
        }
        (*n_new)++;
        rec = journal_find(j, "p2p", 2, 1, a, name, b);
    }
    *value_us = rec->min_us;
    *cost_s += rec->cost_s;
    return 0;
}

/* What rank 0 knows of the network while it measures the uplinks. */
struct uplinks {
    struct journal *j;
    double *cost_s, work_us;
    int *n_new;
    int world_size, n_switches;
    const int *switch_of;
    int *lane_of;     /* -1: not known yet */
    int *rep;         /* each lane's representative, alone time in alone_us */
    double *alone_us; /* per rank, NAN: not measured */
    int n_lanes;
    int flow_bytes; /* the lane and uplink flows' message size */
    int src[2], dst[2];
};

/* The flow from `from` to rank d alone (journaled as lane d,d). */
static int lane_alone(struct uplinks *u, int from, int d)
{
    if (!isnan(u->alone_us[d])) {
        return 0;
    }
    u->src[0] = from;
    u->dst[0] = d;
    return flows_get(u->j, MODEL_Q_LANE, d, d, 1, u->flow_bytes, u->src, u->dst,
                     &u->alone_us[d], u->cost_s, u->n_new);
}

/* Rank d's lane, from two ranks a0, a1 of a switch d is not on: the flows
 * a0 -> a lane's representative and a1 -> d at once, against the first
 * alone, lane by lane (those with a representative off the switch, which
 * for a lane whose first representative is on it becomes its first
 * member off it); a new lane where none is shared and every lane was
 * tried, else (a lane with no member known off the switch) not known.
 * The lanes in turn from the one after rank d - 1's: a fat tree routes
 * by the destination's number, lanes in turn (SimGrid's d-mod-k), and
 * ranks mostly follow their nodes' order, so the first one tried is
 * mostly d's (on 2 lanes 1 pair a rank, not 1.5). */
static int lane_find(struct uplinks *u, int a0, int a1, int d)
{
    int s = u->switch_of[a0], is_untested = 0, first = 0;
    if (d > 0 && u->lane_of[d - 1] >= 0) {
        first = u->lane_of[d - 1] + 1;
    }
    for (int i = 0; i < u->n_lanes; i++) {
        int l = (first + i) % u->n_lanes, rep = u->rep[l];
        for (int r = 0; r < u->world_size && u->switch_of[rep] == s; r++) {
            rep = u->lane_of[r] == l && u->switch_of[r] != s ? r : rep;
        }
        if (u->switch_of[rep] == s) {
            is_untested = 1; /* every member known is on the switch */
            continue;
        }
        if (lane_alone(u, a0, rep) != 0) {
            return -1;
        }
        double pair_us;
        u->src[0] = a0, u->dst[0] = rep, u->src[1] = a1, u->dst[1] = d;
        if (flows_get(u->j, MODEL_Q_LANE, rep, d, 2, u->flow_bytes, u->src,
                      u->dst, &pair_us, u->cost_s, u->n_new) != 0) {
            return -1;
        }
        if (model_lane_is_shared(pair_us, u->alone_us[rep], u->work_us)) {
            u->lane_of[d] = l;
            return 0;
        }
    }
    if (is_untested) {
        return 0; /* it may be in a lane not tested: not known */
    }
    u->rep[u->n_lanes] = d;
    u->lane_of[d] = u->n_lanes++;
    return lane_alone(u, a0, d);
}

/* The first two ranks of the first switch with two, other than switch
 * `other_than` (-1: any); 0, or -1 where there is none. */
static int two_ranks(const struct uplinks *u, int other_than, int *a0, int *a1)
{
    for (int s = 0; s < u->n_switches; s++) {
        int k = 0;
        for (int r = 0; r < u->world_size && k < 2 && s != other_than; r++) {
            if (u->switch_of[r] == s) {
                *(k++ ? a1 : a0) = r;
            }
        }
        if (k == 2) {
            return 0;
        }
    }
    return -1;
}

/* Rank 0: every rank's lane: those off the first switch with two ranks
 * from its two first ranks, its own from the next such switch's; none
 * (each -1) once there are more than MODEL_MAX_LANES. */
static int lanes_measure(struct uplinks *u)
{
    int a0, a1, b0, b1;
    if (two_ranks(u, -1, &a0, &a1) != 0) {
        return 0;
    }
    int has_b = two_ranks(u, u->switch_of[a0], &b0, &b1) == 0;
    for (int pass = 0; pass < 2; pass++) {
        for (int d = 0; d < u->world_size; d++) {
            int is_off_a = u->switch_of[d] != u->switch_of[a0];
            if (pass == 0 && is_off_a && lane_find(u, a0, a1, d) != 0) {
                return -1;
            }
            if (pass == 1 && !is_off_a && has_b &&
                lane_find(u, b0, b1, d) != 0) {
                return -1;
            }
            if (u->n_lanes > MODEL_MAX_LANES) { /* the fit uses none */
                for (int r = 0; r < u->world_size; r++) {
                    u->lane_of[r] = -1;
                }
                return 0;
            }
        }
    }
    return 0;
}

/* Rank 0: each switch's uplink: its ranks (at most as many as the others
 * in that lane) each sending to a rank of the lane of the first rank after
 * it off the switch, those taken from the other switches in turns (the
 * first of each switch after it, then the second, ...: their downlinks
 * less loaded than its uplink), one flow alone then all at once. */
static int uplinks_measure(struct uplinks *u, int *src, int *dst)
{
    for (int s = 0; s < u->n_switches; s++) {
        int k = 0, n_dst = 0, lane = -1;
        for (int r = 0; r < u->world_size; r++) {
            if (u->switch_of[r] == s) {
                src[k++] = r;
            } else if (lane < 0 && r > src[0]) {
                lane = u->lane_of[r];
            }
        }
        for (int turn = 0, found = 1; n_dst < k && found; turn++) {
            found = 0;
            for (int o = 1; o < u->n_switches && n_dst < k; o++) {
                int other = (s + o) % u->n_switches, seen = 0;
                for (int r = 0; r < u->world_size; r++) {
                    if (u->switch_of[r] == other && u->lane_of[r] == lane &&
                        seen++ == turn) {
                        dst[n_dst++] = r;
                        found = 1;
                        break;
                    }
                }
            }
        }
        double t;
        if (n_dst < 2) {
            continue;
        }
        if (flows_get(u->j, MODEL_Q_UPLINK, src[0], 1, 1, u->flow_bytes, src,
                      dst, &t, u->cost_s, u->n_new) != 0 ||
            flows_get(u->j, MODEL_Q_UPLINK, src[0], n_dst, n_dst, u->flow_bytes,
                      src, dst, &t, u->cost_s, u->n_new) != 0) {
            return -1;
        }
    }
    return 0;
}

/* Rank 0: a message of the smallest rendezvous size of the calibration
 * (its first size above the largest eager one) from rank 0 to rank 1 (the
 * pair's switches) and to the first rank on another switch than rank 1:
 * how much longer it takes there, against the 1-byte hops, is what a
 * rendezvous makes of a longer route (its handshake crosses it too). */
static int rdv_hop_measure(struct uplinks *u, const struct model_params *p,
                           const long *sizes, int n_sizes)
{
    long eager = model_params_eager_max(p), m = 0;
    for (int i = n_sizes - 1; i >= 0 && sizes[i] > eager; i--) {
        m = sizes[i];
    }
    int far = -1;
    for (int r = 2; r < u->world_size && far < 0; r++) {
        far = u->switch_of[r] != u->switch_of[1] ? r : -1;
    }
    if (m <= 0 || eager <= 0 || far < 0 || u->world_size < 2) {
        return 0;
    }
    int ends[2] = {1, far};
    for (int i = 0; i < 2; i++) {
        double t;
        u->src[0] = 0;
        u->dst[0] = ends[i];
        if (flows_get(u->j, MODEL_Q_HOP_RDV, (int)m, ends[i], 1, (int)m, u->src,
                      u->dst, &t, u->cost_s, u->n_new) != 0) {
            return -1;
        }
    }
    return 0;
}

/* Rank 0: the flow from the second rank b of the first switch with two
 * to the first rank c off that switch, alone and while the first rank a
 * sends to b (a pipeline forwarding out of its switch): mix c,0 and c,1. */
static int mix_measure(struct uplinks *u)
{
    int a, b, c = -1;
    if (two_ranks(u, -1, &a, &b) != 0) {
        return 0;
    }
    for (int r = 0; r < u->world_size && c < 0; r++) {
        c = u->switch_of[r] != u->switch_of[a] ? r : -1;
    }
    if (c < 0) {
        return 0;
    }
    for (int mixed = 0; mixed < 2; mixed++) {
        double t;
        u->src[0] = b, u->dst[0] = c, u->src[1] = a, u->dst[1] = b;
        if (flows_get(u->j, MODEL_Q_MIX, c, mixed, 1 + mixed,
                      MODEL_STREAM_BYTES, u->src, u->dst, &t, u->cost_s,
                      u->n_new) != 0) {
            return -1;
        }
    }
    return 0;
}

/* Rank 0: a message size the calibration uses, the journal's flow row of
 * this kind's; else, where the journal holds any of the quantities
 * measured at it (a calibration measured before the row), the size they
 * were measured at, MODEL_STREAM_BYTES (it resumes as it was); else
 * new_bytes, journaled. -1 on a journal error. */
static int size_row_get(struct journal *j, int kind,
                        const enum model_quantity *measured, int n_measured,
                        int new_bytes, int *bytes, int *n_new)
{
    const struct measurement *rec = NULL;
    int has_measured = 0;
    for (size_t i = 0; i < journal_count(j) && !rec; i++) {
        const struct measurement *m = journal_record(j, i);
        int q = strcmp(m->collective, "p2p") == 0
                    ? model_quantity_find(m->algorithm)
                    : -1;
        rec = q == MODEL_Q_FLOW && m->segment_bytes == kind ? m : NULL;
        for (int f = 0; f < n_measured; f++) {
            has_measured |= q == (int)measured[f];
        }
    }
    if (rec) {
        *bytes = (int)rec->msg_bytes;
        return 0;
    }
    *bytes = has_measured ? MODEL_STREAM_BYTES : new_bytes;
    if (has_measured) {
        return 0;
    }
    double times[MODEL_MAX_REPS] = {0};
    struct measurement m;
    fill_record(&m, MODEL_Q_FLOW, 1, *bytes, kind, times, 0);
    (*n_new)++;
    return journal_append(j, &m);
}

/* Rank 0: the lane and uplink flows' message size (MODEL_FLOW_BYTES in a
 * new calibration). */
static int flow_bytes_get(struct journal *j, int *bytes, int *n_new)
{
    const enum model_quantity flows[] = {MODEL_Q_LANE, MODEL_Q_UPLINK,
                                         MODEL_Q_MIX};
    return size_row_get(j, MODEL_FLOW_LANES, flows, 3, MODEL_FLOW_BYTES, bytes,
                        n_new);
}

/* Every rank of nodes_comm, from 2 switches (rank 0's switch_of and
 * n_switches from placement_run): the lanes, the uplinks, the
 * rendezvous hop (sizes: the calibration's, on rank 0), then the mixed
 * flows; rank 0
 * drives, journals the observations the journal lacks and adds every
 * one's cost to *cost_s. */
static int uplinks_run(int rank, int world_size, const int *switch_of,
                       int n_switches, const long *sizes, int n_sizes,
                       struct journal *j, double *cost_s, int *n_new)
{
    int *src = malloc((size_t)world_size * sizeof *src);
    int *dst = malloc((size_t)world_size * sizeof *dst);
    flows_to = malloc((size_t)world_size * sizeof *flows_to);
    flows_from = malloc((size_t)world_size * sizeof *flows_from);
    flows_late = calloc((size_t)world_size, sizeof *flows_late);
    int has_room = src && dst && flows_to && flows_from && flows_late;
    int all_have, rc = 0;
    MPI_Allreduce(&has_room, &all_have, 1, MPI_INT, MPI_MIN, nodes_comm);
    if (all_have) { /* nodes_comm's errors are fatal: no status to check */
        clock_sync(nodes_comm, &clock_offset_s);
        flows_start_measure(rank, world_size);
    }
    if (!all_have) {
        fprintf(stderr, "autotune model: out of memory\n");
        rc = -1;
    } else if (rank != 0) {
        flows_serve();
    } else if (n_switches >= 2) {
        struct uplinks u = {.j = j,
                            .cost_s = cost_s,
                            .n_new = n_new,
                            .world_size = world_size,
                            .n_switches = n_switches,
                            .switch_of = switch_of};
        struct model_params *p = NULL;
        u.lane_of = malloc((size_t)world_size * sizeof *u.lane_of);
        u.rep = malloc((size_t)world_size * sizeof *u.rep);
        u.alone_us = malloc((size_t)world_size * sizeof *u.alone_us);
        rc = u.lane_of && u.rep && u.alone_us ? 0 : -1;
        if (rc != 0) {
            fprintf(stderr, "autotune model: out of memory\n");
        }
        if (rc == 0) {
            rc = flow_bytes_get(j, &u.flow_bytes, n_new);
        }
        /* A flow's work as the fit prices it, from the pair's sizes. */
        if (rc == 0) {
            struct model_obs *obs = NULL;
            size_t n_obs = 0;
            rc = journal_observations(j, &obs, &n_obs) != 0 ||
                         model_params_fit(obs, n_obs, &p) != 0
                     ? -1
                     : 0;
            free(obs);
        }
        if (rc == 0) {
            u.work_us = model_params_flow_work_us(p);
            for (int r = 0; r < world_size; r++) {
                u.lane_of[r] = -1;
                u.alone_us[r] = NAN;
            }
            rc = lanes_measure(&u);
        }
        if (rc == 0) {
            rc = uplinks_measure(&u, src, dst);
        }
        if (rc == 0) {
            rc = rdv_hop_measure(&u, p, sizes, n_sizes);
        }
        if (rc == 0) {
            rc = mix_measure(&u);
        }
        model_params_destroy(p);
        free(u.lane_of);
        free(u.rep);
        free(u.alone_us);
        flows_stop(world_size);
    } else {
        flows_stop(world_size);
    }
    free(src);
    free(dst);
    free(flows_to);
    free(flows_from);
    free(flows_late);
    flows_to = flows_from = NULL;
    flows_late = NULL;
    return rc;
}

static void worker_run(MPI_Comm pair)
{
    for (;;) {
        long cmd[3];
        double late_wait_s;
        MPI_Recv(cmd, 3, MPI_LONG, 0, MODEL_TAG, pair, MPI_STATUS_IGNORE);
        if (cmd[0] < 0) {
            return;
        }
        memcpy(&late_wait_s, &cmd[2], sizeof late_wait_s);
        observe(pair, 1, 0, (enum model_quantity)cmd[0], (int)cmd[1],
                late_wait_s, NULL, NULL);
    }
}

/* Every rank: rank 0's two peers, the first rank on another node
 * (*inter_peer) and the first other rank on its own node (*intra_peer), -1
 * where there is none; on every rank, the first rank of each node in
 * nodes_comm (MPI_COMM_NULL on the others) and its number of nodes in
 * *n_nodes. Nodes are MPI_Comm_split_type(MPI_COMM_TYPE_SHARED)'s (under
 * SMPI, the simulated hosts). -1 out of memory (on every rank). */
static int nodes_find(int rank, int world_size, int *inter_peer,
                      int *intra_peer, int *n_nodes)
{
    MPI_Comm node;
    int first = rank, node_rank;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank,
                        MPI_INFO_NULL, &node);
    MPI_Comm_rank(node, &node_rank);
    MPI_Bcast(&first, 1, MPI_INT, 0, node); /* its least world rank */
    MPI_Comm_free(&node);
    int *first_of = malloc((size_t)world_size * sizeof *first_of);
    int has_room = first_of != NULL, all_have;
    MPI_Allreduce(&has_room, &all_have, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (!all_have) {
        fprintf(stderr, "autotune model: out of memory\n");
        free(first_of);
        return -1;
    }
    MPI_Allgather(&first, 1, MPI_INT, first_of, 1, MPI_INT, MPI_COMM_WORLD);
    *inter_peer = *intra_peer = -1;
    *n_nodes = 0;
    for (int r = 0; r < world_size; r++) {
        *n_nodes += first_of[r] == r;
        if (first_of[r] != first_of[0] && *inter_peer < 0) {
            *inter_peer = r;
        }
        if (r > 0 && first_of[r] == first_of[0] && *intra_peer < 0) {
            *intra_peer = r;
        }
    }
    free(first_of);
    MPI_Comm_split(MPI_COMM_WORLD, node_rank == 0 ? 0 : MPI_UNDEFINED, rank,
                   &nodes_comm);
    return 0;
}

/* Every rank: the pair of rank 0 and peer at ppn (1: two nodes, 2: one
 * node), rank 0 driving; 0 or 1, the same on every rank. */
static int pair_run(int rank, int peer, int ppn, const long *sizes, int n_sizes,
                    struct journal *j, double *cost_s, int *n_new)
{
    MPI_Comm pair;
    int status = 0;
    MPI_Comm_split(MPI_COMM_WORLD,
                   rank == 0 || rank == peer ? 0 : MPI_UNDEFINED, rank, &pair);
    if (rank == 0) {
        status = controller_run(pair, ppn, sizes, n_sizes, j, cost_s, n_new);
    } else if (rank == peer) {
        worker_run(pair);
    }
    if (pair != MPI_COMM_NULL) {
        MPI_Comm_free(&pair);
    }
    MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
    return status == 0 ? 0 : 1;
}

/* Rank 0: what the fit makes of the placement, where it found 2 switches
 * or more (one line; nothing if the fit fails: model.csv is written). */
static void placement_print(const struct journal *j, int n_nodes)
{
    struct model_obs *obs = NULL;
    struct model_params *p = NULL;
    size_t n_obs = 0;
    if (journal_observations(j, &obs, &n_obs) == 0 &&
        model_params_fit(obs, n_obs, &p) == 0 &&
        model_params_n_switches(p) >= 2) {
        double least = INFINITY, most = 0;
        for (int a = 0; a < n_nodes; a++) {
            least = fmin(least, model_params_uplink_flows(p, a));
            most = fmax(most, model_params_uplink_flows(p, a));
        }
        printf("autotune model: placement: %d switches, %d lanes, uplinks "
               "carrying %.2f to %.2f flows (0: not limited), rendezvous hop "
               "factor %.2f, mixed flows %.2f\n",
               model_params_n_switches(p), model_params_n_lanes(p), least, most,
               model_params_rdv_hop_factor(p), model_params_mix_flows(p));
    }
    model_params_destroy(p);
    free(obs);
}

int calibrate_run(const char *config_path, bool is_fresh)
{
    int rank, world_size, status = 1, is_setup = 0;
    struct config cfg;
    struct rundir_lock *lock = NULL;
    struct journal *j = NULL;
    long *sizes = NULL, max_size = 0;
    int n_sizes = 0, inter_peer = -1, intra_peer = -1, n_nodes = 0;
    int n_new = 0;

    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &world_size);
    char hosts[64] = "";
    if (nodes_find(rank, world_size, &inter_peer, &intra_peer, &n_nodes) == 0 &&
        hosts_setting(rank, world_size, hosts, sizeof hosts) == 0 &&
        rank == 0 &&
        controller_open(config_path, is_fresh, world_size, hosts, inter_peer,
                        intra_peer, &cfg, &lock, &j) == 0) {
        /* The streams' size (MODEL_STREAMK_BYTES in a new calibration). */
        const enum model_quantity streams[] = {MODEL_Q_STREAMK};
        int bytes = 0;
        sizes = model_sizes(&cfg, &n_sizes);
        is_setup = sizes != NULL &&
                   size_row_get(j, MODEL_FLOW_STREAM, streams, 1,
                                MODEL_STREAMK_BYTES, &bytes, &n_new) == 0;
        if (!sizes) {
            fprintf(stderr, "autotune model: out of memory\n");
        } else {
            max_size = sizes[n_sizes - 1];
        }
        stream_bytes = bytes;
    }
    MPI_Bcast(&is_setup, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Bcast(&max_size, 1, MPI_LONG, 0, MPI_COMM_WORLD);
    MPI_Bcast(&n_reps, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Bcast(&n_warmup, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Bcast(&stream_bytes, 1, MPI_LONG, 0, MPI_COMM_WORLD);
    if (!is_setup) {
        goto done;
    }
    if (rank == 0 && intra_peer < 0) {
        printf("autotune model: no rank shares rank 0's node: intra-node "
               "parameters not measured (priced as inter-node; smpirun "
               "-hostfile with host:2 lines measures them)\n");
    }
    if (rank == 0 && inter_peer < 0) {
        printf("autotune model: every rank is on rank 0's node: inter-node "
               "parameters not measured (priced as intra-node)\n");
    }
    clock_enter_epoch();
    /* Twice the largest size: the reduction's two operands; at least two
     * flows' messages (a rank receiving one while it sends one). */
    size_t buffer_bytes = 2 * (size_t)max_size + 1;
    if (buffer_bytes < 2 * MODEL_STREAM_BYTES) { /* a flow each way */
        buffer_bytes = 2 * MODEL_STREAM_BYTES;
    }
    buffer = calloc(buffer_bytes, 1);
    int has_buffer = buffer != NULL, all_have;
    MPI_Allreduce(&has_buffer, &all_have, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (!all_have) {
        fprintf(stderr, "autotune model: out of memory for %zu bytes\n",
                buffer_bytes);
        goto done;
    }
    double cost_s = 0;
    status = 0;
    if (inter_peer > 0) {
        status =
            pair_run(rank, inter_peer, 1, sizes, n_sizes, j, &cost_s, &n_new);
    }
    if (status == 0 && intra_peer > 0) {
        status =
            pair_run(rank, intra_peer, 2, sizes, n_sizes, j, &cost_s, &n_new);
    }
    if (nodes_comm != MPI_COMM_NULL) {
        int node, n;
        MPI_Comm_rank(nodes_comm, &node);
        MPI_Comm_size(nodes_comm, &n);
        int *switch_of = NULL, n_switches = 0;
        if (status == 0 && placement_run(node, n, j, &cost_s, &n_new,
                                         &switch_of, &n_switches) != 0) {
            status = 1;
        }
        MPI_Bcast(&status, 1, MPI_INT, 0, nodes_comm);
        if (status == 0 && uplinks_run(node, n, switch_of, n_switches, sizes,
                                       n_sizes, j, &cost_s, &n_new) != 0) {
            status = 1;
        }
        free(switch_of);
        /* {status, whether the fit uses the pairs: on one switch, yes} */
        int go[2] = {status, 1};
        if (node == 0 && status == 0 && n_switches >= 2) {
            go[1] = uses_pairs(j);
        }
        MPI_Bcast(go, 2, MPI_INT, 0, nodes_comm);
        status = go[0] == 0 && go[1] < 0 ? 1 : go[0];
        if (status == 0 && go[1] > 0 &&
            pairs_run(node, n, j, &cost_s, &n_new) != 0) {
            status = 1;
        }
    }
    if (rank == 0 && status == 0) {
        char path[2048];
        if (rundir_path(path, sizeof path, cfg.output, RUNDIR_MODEL) != 0 ||
            store_write_file(path, write_model_csv, j) != 0) {
            status = 1;
        } else {
            printf("autotune model: %d sizes from 0 to %ld bytes, %d "
                   "observations measured now (%zu in the journal), cost "
                   "%.3f s; wrote %s\n",
                   n_sizes, max_size, n_new, journal_count(j), cost_s, path);
            placement_print(j, n_nodes);
        }
    }
    MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
done:
    if (nodes_comm != MPI_COMM_NULL) {
        MPI_Comm_free(&nodes_comm);
    }
    free(buffer);
    free(sizes);
    if (rank == 0 && j) {
        journal_close(j);
        rundir_lock_close(lock);
        config_free(&cfg);
    }
    return status == 0 ? 0 : 1;
}
