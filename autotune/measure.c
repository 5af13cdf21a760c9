/* Times a collective the way SKaMPI and OCC do: barrier, time one call, take
 * the slowest rank; repeat until the mean is known well enough. */
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "autotune/measure.h"

/* Buffers grow to the largest message seen and are reused, so allocation
 * never lands inside a timed call. */
static unsigned char *send_buf, *recv_buf;
static size_t buf_bytes;

void measure_free_buffers(void)
{
    free(send_buf);
    free(recv_buf);
    send_buf = recv_buf = NULL;
    buf_bytes = 0;
}

static int ensure_buffers(size_t bytes)
{
    if (bytes <= buf_bytes) {
        return 0;
    }
    measure_free_buffers();
    send_buf = malloc(bytes);
    recv_buf = malloc(bytes);
    if (!send_buf || !recv_buf) {
        measure_free_buffers();
        return -1;
    }
    /* Touch every page now so first-touch faults are not timed. */
    memset(send_buf, 1, bytes);
    memset(recv_buf, 0, bytes);
    buf_bytes = bytes;
    return 0;
}

/* All ranks learn whether any rank failed. */
static int any_failed(int failed, MPI_Comm comm)
{
    int global = 1;
    MPI_Allreduce(&failed, &global, 1, MPI_INT, MPI_MAX, comm);
    return global;
}

static double relative_standard_error(const double *t, size_t n)
{
    double mean = gsl_stats_mean(t, 1, n);
    if (n < 2 || mean <= 0) {
        return 0;
    }
    return gsl_stats_sd_m(t, 1, n, mean) / sqrt((double)n) / mean;
}

static void summarise(const double *t, size_t n, struct measurement *out)
{
    double *sorted = malloc(n * sizeof *sorted);
    out->reps = (int)n;
    out->mean_us = gsl_stats_mean(t, 1, n);
    out->sd_us = n > 1 ? gsl_stats_sd_m(t, 1, n, out->mean_us) : 0;
    gsl_stats_minmax(&out->min_us, &out->max_us, t, 1, n);
    if (sorted) {
        memcpy(sorted, t, n * sizeof *sorted);
        gsl_sort(sorted, 1, n);
        out->median_us = gsl_stats_median_from_sorted_data(sorted, 1, n);
        free(sorted);
    } else {
        out->median_us = out->mean_us;
    }
}

int measure_settle(MPI_Comm comm)
{
    int rank, size, token = 0, err = MPI_SUCCESS;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    if (rank != 0) {
        return MPI_Send(&token, 1, MPI_INT, 0, 0, comm);
    }
    for (int i = 1; i < size && err == MPI_SUCCESS; i++) {
        err = MPI_Recv(&token, 1, MPI_INT, i, 0, comm, MPI_STATUS_IGNORE);
    }
    return err;
}

const char *measure_method_name(const struct coll_def *coll, int alg)
{
    return alg == MEASURE_DEFAULT ? MEASURE_DEFAULT_NAME : coll->algs[alg].name;
}

int measure_applies(const struct measure_request *req, int n_ranks)
{
    const struct coll_def *coll = req->coll;
    if (req->alg == MEASURE_DEFAULT) {
        return 1;
    }
    const struct coll_alg *alg = &coll->algs[req->alg];
    if (req->is_native) {
        return native_runs_as_named(coll->name, alg->name, n_ranks,
                                    req->msg_bytes, req->seg_bytes);
    }
    return coll_alg_applies(alg, n_ranks,
                            coll->is_reduction ? MPI_SUM : MPI_OP_NULL);
}

/* What a request times: our algorithm on comm, or the library's collective
 * on comm (its default decision) or on a duplicate forced to one of its
 * algorithms (*run_comm, freed by the caller when it is not comm). */
static int method_prepare(const struct measure_request *req, MPI_Comm comm,
                          coll_fn *run, MPI_Comm *run_comm, const char **name)
{
    const struct coll_def *coll = req->coll;
    *run = coll->reference;
    *run_comm = comm;
    *name = measure_method_name(coll, req->alg);
    if (req->alg == MEASURE_DEFAULT) {
        return 0;
    }
    const struct coll_alg *alg = &coll->algs[req->alg];
    if (!req->is_native) {
        *run = alg->run;
        return 0;
    }
    return native_comm_create(comm, coll->name, alg->name, req->seg_bytes,
                              req->chain_fanout, run_comm);
}

int measure_run(const struct measure_request *req, MPI_Comm comm,
                struct measurement *out)
{
    const struct coll_def *coll = req->coll;
    const struct config_measure *p = &req->params;
    double *times = NULL;
    int rc = -1, rank, n_ranks;
    coll_fn run;
    MPI_Comm run_comm = MPI_COMM_NULL;
    const char *name = MEASURE_DEFAULT_NAME;
    int is_segmented = req->alg != MEASURE_DEFAULT && !req->is_native &&
                       coll->algs[req->alg].is_segmented;

    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &n_ranks);
    memset(out, 0, sizeof *out);
    double start = MPI_Wtime();
    long send_bytes =
        coll_buffer_bytes(coll->send_blocks, n_ranks, req->msg_bytes);
    long recv_bytes =
        coll_buffer_bytes(coll->recv_blocks, n_ranks, req->msg_bytes);
    int failed =
        ensure_buffers(
            (size_t)(send_bytes > recv_bytes ? send_bytes : recv_bytes)) != 0;
    times = malloc((size_t)p->max_reps * sizeof *times);
    failed |= times == NULL;
    if (any_failed(failed, comm)) {
        fprintf(stderr, "autotune: out of memory for a %ld-byte %s\n",
                req->msg_bytes, coll->name);
        goto done;
    }
    /* Collective and agreed: every rank fails or none. */
    if (method_prepare(req, comm, &run, &run_comm, &name) != 0) {
        goto done;
    }

    /* Bytes with a sum: every message size is exact, every MPI has it. */
    struct coll_args args = {
        .sendbuf = coll->send_blocks == BLOCKS_NONE ? NULL : send_buf,
        .recvbuf = coll->send_blocks == BLOCKS_NONE ? send_buf : recv_buf,
        .count = (int)req->msg_bytes,
        .dtype = coll->is_reduction ? MPI_UNSIGNED_CHAR : MPI_BYTE,
        .op = coll->is_reduction ? MPI_SUM : MPI_OP_NULL,
        .root = 0,
        .comm = run_comm,
        .seg_bytes = is_segmented ? req->seg_bytes : 0,
        .chain_fanout = req->chain_fanout,
    };
    for (int i = 0; i < p->warmup; i++) {
        failed |= run(&args) != MPI_SUCCESS;
    }
    if (any_failed(failed, comm)) {
        goto failed;
    }
    size_t n = 0;
    while (n < (size_t)p->max_reps) {
        MPI_Barrier(comm);
        double t0 = MPI_Wtime();
        int err = run(&args);
        double local[2] = {MPI_Wtime() - t0, err != MPI_SUCCESS};
        double global[2];
        MPI_Allreduce(local, global, 2, MPI_DOUBLE, MPI_MAX, comm);
        if (global[1] != 0) {
            goto failed;
        }
        /* Whole nanoseconds: below MPI_Wtime's resolution, and it keeps
         * simulated times free of rounding noise from the absolute clock. */
        times[n++] = round(global[0] * 1e9) / 1e3;
        if (n >= (size_t)p->min_reps &&
            relative_standard_error(times, n) <= p->rse) {
            break;
        }
    }
    snprintf(out->collective, sizeof out->collective, "%s", coll->name);
    snprintf(out->algorithm, sizeof out->algorithm, "%s", name);
    out->procs = n_ranks;
    out->msg_bytes = req->msg_bytes;
    out->segment_bytes = req->seg_bytes;
    out->is_applicable = 1;
    summarise(times, n, out);
    measure_settle(comm);
    /* Whole microseconds: under SMPI a duration can differ by one ulp of the
     * absolute clock, which must not show in a resumed run's tables. */
    out->cost_s = round((MPI_Wtime() - start) * 1e6) / 1e6;
    rc = 0;
    goto done;
failed:
    measure_settle(comm);
    if (rank == 0) {
        fprintf(stderr,
                "autotune: %s %s failed (P=%d, %ld bytes, "
                "segment %d)\n",
                coll->name, name, n_ranks, req->msg_bytes, req->seg_bytes);
    }
done:
    if (run_comm != MPI_COMM_NULL && run_comm != comm) {
        MPI_Comm_free(&run_comm);
    }
    free(times);
    return rc;
}
