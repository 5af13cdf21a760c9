/* `autotune model`: measures the point-to-point parameters of seed 003
 * §3.3 between world ranks 0 and 1 at the config's message and segment
 * sizes (and every power of two up to the largest), journaled in
 * RUN/model.journal like experiments (a rerun measures only what is
 * missing), then written to RUN/model.csv. Rank 0 drives; rank 1 answers;
 * the other ranks wait. */
#include "autotune/model_cli.h"
#include "autotune/clock.h"
#include "autotune/config.h"
#include "model/model.h"
#include "store/journal.h"
#include "store/rundir.h"
#include "store/tables.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MODEL_MAX_REPS = 9, MODEL_TAG = 9001 };
/* Repetitions and warm-ups of each observation: the config's measure
 * settings, at most 9 and 1 (a simulation needs 1 and none). */
static int n_reps = MODEL_MAX_REPS, n_warmup = 1;
static const int pending_levels[] = {0, 1, 3, 7, 15};
#define N_LEVELS ((int)(sizeof pending_levels / sizeof pending_levels[0]))

static const char model_usage[] =
    "usage: mpirun -np N autotune model -c tune.cfg\n"
    "       smpirun -np N -platform P.xml autotune-smpi model -c tune.cfg\n";

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static char *buffer;

/* One repetition of quantity q between ranks 0 and 1 of pair; the duration
 * the observing rank saw (rank 1 for late receives and streams), in us. */
static double one_rep(MPI_Comm pair, int rank, enum model_quantity q, int m,
                      int pending, double late_wait_s)
{
    MPI_Request reqs[MODEL_STREAM_K + 1];
    double t0, t = 0;
    int k = q == MODEL_Q_STREAMK ? MODEL_STREAM_K
            : q == MODEL_Q_ISEND ? pending + 1
                                 : 1;
    char *buf = buffer;
    switch (q) {
    case MODEL_Q_ISEND:
    case MODEL_Q_SEND:
    case MODEL_Q_STREAM1:
    case MODEL_Q_STREAMK:
        if (rank == 1) {
            for (int i = 0; i < k; i++) {
                MPI_Irecv(buf, m, MPI_BYTE, 0, MODEL_TAG, pair, &reqs[i]);
            }
        }
        MPI_Barrier(pair);
        t0 = MPI_Wtime();
        if (rank == 0 && q == MODEL_Q_SEND) {
            MPI_Send(buf, m, MPI_BYTE, 1, MODEL_TAG, pair);
            t = MPI_Wtime() - t0;
        } else if (rank == 0) {
            for (int i = 0; i < k; i++) {
                double ti = MPI_Wtime();
                MPI_Isend(buf, m, MPI_BYTE, 1, MODEL_TAG, pair, &reqs[i]);
                t = MPI_Wtime() - ti; /* the last one's */
            }
            MPI_Waitall(k, reqs, MPI_STATUSES_IGNORE);
        } else {
            MPI_Waitall(k, reqs, MPI_STATUSES_IGNORE);
            t = MPI_Wtime() - t0;
        }
        break;
    case MODEL_Q_ONEWAY:
        MPI_Barrier(pair);
        t0 = MPI_Wtime();
        if (rank == 0) {
            MPI_Send(buf, m, MPI_BYTE, 1, MODEL_TAG, pair);
            MPI_Recv(buf, m, MPI_BYTE, 1, MODEL_TAG, pair, MPI_STATUS_IGNORE);
            t = (MPI_Wtime() - t0) / 2;
        } else {
            MPI_Recv(buf, m, MPI_BYTE, 0, MODEL_TAG, pair, MPI_STATUS_IGNORE);
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
            t = MPI_Wtime() - t0;
        }
        break;
    case MODEL_Q_REDUCE:
        MPI_Barrier(pair);
        if (rank == 0) {
            t0 = MPI_Wtime();
            MPI_Reduce_local(buf + m, buf, m, MPI_UNSIGNED_CHAR, MPI_SUM);
            t = MPI_Wtime() - t0;
        }
        break;
    case MODEL_N_QUANTITIES:
        break;
    }
    return t * 1e6;
}

/* Runs one observation on ranks 0 and 1 (n_warmup, then n_reps timed);
 * rank 0 gets the statistics in *out. */
static void observe(MPI_Comm pair, int rank, enum model_quantity q, int m,
                    int pending, double late_wait_s, struct measurement *out)
{
    double times[MODEL_MAX_REPS];
    int observer =
        q == MODEL_Q_RECV_LATE || q == MODEL_Q_STREAM1 || q == MODEL_Q_STREAMK;
    /* Both ranks start together, whatever came before (a resumed run). */
    MPI_Barrier(pair);
    double start = MPI_Wtime();
    for (int i = 0; i < n_warmup; i++) {
        one_rep(pair, rank, q, m, pending, late_wait_s);
    }
    for (int i = 0; i < n_reps; i++) {
        times[i] = one_rep(pair, rank, q, m, pending, late_wait_s);
    }
    if (observer && rank == 1) {
        MPI_Send(times, n_reps, MPI_DOUBLE, 0, MODEL_TAG, pair);
    } else if (observer && rank == 0) {
        MPI_Recv(times, n_reps, MPI_DOUBLE, 1, MODEL_TAG, pair,
                 MPI_STATUS_IGNORE);
    }
    if (rank != 0) {
        return;
    }
    qsort(times, (size_t)n_reps, sizeof times[0], cmp_double);
    double sum = 0, sq = 0;
    for (int i = 0; i < n_reps; i++) {
        sum += times[i];
    }
    double mean = sum / n_reps;
    for (int i = 0; i < n_reps; i++) {
        sq += (times[i] - mean) * (times[i] - mean);
    }
    memset(out, 0, sizeof *out);
    snprintf(out->collective, sizeof out->collective, "p2p");
    snprintf(out->algorithm, sizeof out->algorithm, "%s",
             model_quantity_names[q]);
    out->procs = 2;
    out->msg_bytes = m;
    out->segment_bytes = pending;
    out->is_applicable = 1;
    out->reps = n_reps;
    out->mean_us = mean;
    out->median_us = times[n_reps / 2];
    out->min_us = times[0];
    out->max_us = times[n_reps - 1];
    out->sd_us = n_reps > 1 ? sqrt(sq / (n_reps - 1)) : 0;
    out->cost_s = MPI_Wtime() - start;
}

/* The sizes measured: 0, every power of two up to the largest message or
 * segment of the config, and those sizes themselves; ascending, unique. */
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
    for (long m = 1; m <= max; m *= 2) {
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
    fprintf(f, "quantity,msg_bytes,pending,value_us,reps,cost_s\n");
    for (size_t i = 0; i < journal_count(j); i++) {
        const struct measurement *m = journal_record(j, i);
        if (strcmp(m->collective, "p2p") == 0) {
            /* The least of the repetitions: the cost itself, without
             * what other processes of a busy machine added. */
            fprintf(f, "%s,%ld,%d,%.3f,%d,%.6f\n", m->algorithm, m->msg_bytes,
                    m->segment_bytes, m->min_us, m->reps, m->cost_s);
        }
    }
    return ferror(f) ? -1 : 0;
}

/* Rank 0: opens the run directory and its model journal. */
static int controller_open(const char *config_path, int world_size,
                           struct config *c, struct rundir_lock **lock,
                           struct journal **journal)
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
    journal_settings_add(&settings, "model.quantities", "%d",
                         (int)MODEL_N_QUANTITIES);
    n_reps = c->measure.max_reps < MODEL_MAX_REPS ? c->measure.max_reps
                                                  : MODEL_MAX_REPS;
    n_reps = n_reps < 1 ? 1 : n_reps;
    n_warmup = c->measure.warmup > 0;
    journal_settings_add(&settings, "model.reps", "%d", n_reps);
    journal_settings_add(&settings, "model.warmup", "%d", n_warmup);
    journal_settings_add(&settings, "model.ranks", "0,1");
    if (store_make_dir(c->output) != 0 ||
        rundir_lock_open(c->output, lock) != 0) {
        config_free(c);
        return -1;
    }
    if (rundir_path(path, sizeof path, c->output, RUNDIR_MODEL_JOURNAL) != 0 ||
        journal_open(path, &settings, journal) != 0) {
        rundir_lock_close(*lock);
        config_free(c);
        return -1;
    }
    return 0;
}

/* Rank 0: every missing observation, in order of size. */
static int controller_run(MPI_Comm pair, const long *sizes, int n_sizes,
                          struct journal *j, double *cost_s, int *n_new)
{
    *cost_s = 0;
    *n_new = 0;
    for (int s = 0; s < n_sizes; s++) {
        long m = sizes[s];
        double late_wait_s = 0;
        for (int q = 0; q < MODEL_N_QUANTITIES; q++) {
            int n_pending = q == MODEL_Q_ISEND ? N_LEVELS : 1;
            for (int l = 0; l < n_pending; l++) {
                int pending = q == MODEL_Q_ISEND ? pending_levels[l] : 0;
                const struct measurement *rec = journal_find(
                    j, "p2p", 2, m, model_quantity_names[q], pending);
                if (!rec) {
                    long cmd[4] = {q, m, pending, 0};
                    memcpy(&cmd[3], &late_wait_s, sizeof late_wait_s);
                    struct measurement out;
                    MPI_Send(cmd, 4, MPI_LONG, 1, MODEL_TAG, pair);
                    observe(pair, 0, (enum model_quantity)q, (int)m, pending,
                            late_wait_s, &out);
                    if (journal_append(j, &out) != 0) {
                        return -1;
                    }
                    rec = journal_find(j, "p2p", 2, m, model_quantity_names[q],
                                       pending);
                    (*n_new)++;
                }
                *cost_s += rec->cost_s;
                if (q == MODEL_Q_ONEWAY) {
                    /* Long enough for the message to have arrived. */
                    late_wait_s = 4 * rec->max_us * 1e-6 + 1e-3;
                }
            }
        }
    }
    long stop[4] = {-1, 0, 0, 0};
    MPI_Send(stop, 4, MPI_LONG, 1, MODEL_TAG, pair);
    return 0;
}

static void worker_run(MPI_Comm pair)
{
    for (;;) {
        long cmd[4];
        double late_wait_s;
        MPI_Recv(cmd, 4, MPI_LONG, 0, MODEL_TAG, pair, MPI_STATUS_IGNORE);
        if (cmd[0] < 0) {
            return;
        }
        memcpy(&late_wait_s, &cmd[3], sizeof late_wait_s);
        observe(pair, 1, (enum model_quantity)cmd[0], (int)cmd[1], (int)cmd[2],
                late_wait_s, NULL);
    }
}

int model_main(int argc, char **argv)
{
    const char *config_path = NULL;
    int rank, world_size, status = 1, is_setup = 0, bad = 0;
    struct config cfg;
    struct rundir_lock *lock = NULL;
    struct journal *j = NULL;
    long *sizes = NULL, max_size = 0;
    int n_sizes = 0;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &world_size);
    for (int i = 1; i < argc && !bad; i++) {
        if (strcmp(argv[i], "-c") == 0 && i + 1 < argc) {
            config_path = argv[++i];
        } else {
            bad = 1;
            if (rank == 0) {
                fprintf(stderr, "autotune model: unknown argument '%s'\n%s",
                        argv[i], model_usage);
            }
        }
    }
    if (!config_path && !bad) {
        bad = 1;
        if (rank == 0) {
            fprintf(stderr, "autotune model: -c tune.cfg is required\n%s",
                    model_usage);
        }
    }
    if (bad) {
        MPI_Finalize();
        return 2;
    }
    if (rank == 0 &&
        controller_open(config_path, world_size, &cfg, &lock, &j) == 0) {
        sizes = model_sizes(&cfg, &n_sizes);
        is_setup = sizes != NULL;
        if (!sizes) {
            fprintf(stderr, "autotune model: out of memory\n");
        } else {
            max_size = sizes[n_sizes - 1];
        }
    }
    MPI_Bcast(&is_setup, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Bcast(&max_size, 1, MPI_LONG, 0, MPI_COMM_WORLD);
    MPI_Bcast(&n_reps, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Bcast(&n_warmup, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (!is_setup) {
        goto done;
    }
    MPI_Comm pair;
    MPI_Comm_split(MPI_COMM_WORLD, rank < 2 ? 0 : MPI_UNDEFINED, rank, &pair);
    clock_enter_epoch();
    /* Twice the largest size: the reduction's two operands. */
    buffer = calloc(2 * (size_t)max_size + 1, 1);
    int has_buffer = buffer != NULL, all_have;
    MPI_Allreduce(&has_buffer, &all_have, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (!all_have) {
        fprintf(stderr, "autotune model: out of memory for %ld bytes\n",
                2 * max_size);
        goto done;
    }
    status = 0;
    if (rank == 0) {
        double cost_s = 0;
        int n_new = 0;
        char path[2048];
        status = controller_run(pair, sizes, n_sizes, j, &cost_s, &n_new);
        if (status == 0 &&
            (rundir_path(path, sizeof path, cfg.output, RUNDIR_MODEL) != 0 ||
             store_write_file(path, write_model_csv, j) != 0)) {
            status = 1;
        }
        if (status == 0) {
            printf("autotune model: %d sizes from 0 to %ld bytes, %d "
                   "observations measured now (%zu in the journal), cost "
                   "%.3f s; wrote %s\n",
                   n_sizes, max_size, n_new, journal_count(j), cost_s, path);
        }
    } else if (rank == 1) {
        worker_run(pair);
    }
    if (pair != MPI_COMM_NULL) {
        MPI_Comm_free(&pair);
    }
    MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
done:
    free(buffer);
    free(sizes);
    if (rank == 0 && j) {
        journal_close(j);
        rundir_lock_close(lock);
        config_free(&cfg);
    }
    MPI_Finalize();
    return status == 0 ? 0 : 1;
}
