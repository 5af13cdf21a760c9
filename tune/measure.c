/* Times a collective from a common start (ReproMPI's window method): every
 * rank starts each call at one instant, a window after the slowest rank of
 * the previous call ended (plus its own delay under an arrival shape); a
 * call's time is the last rank's end minus that instant. No MPI library
 * collective takes part in a measurement but the barrier that
 * measure.arrival = "barrier" asks for. */
#include <assert.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tune/clock.h"
#include "tune/measure.h"

/* Buffers grow to the largest message seen and are reused, so allocation
 * never lands inside a timed call. Nothing reads what they hold: a time
 * does not depend on the bytes. */
static unsigned char *send_buf, *recv_buf;
static size_t buf_bytes;

#ifdef SMPI_H /* defined by SimGrid's mpi.h */
#include <simgrid/barrier.h>
/* Under SMPI every rank is in one process: 2 MiB a rank is 2 GB at 1,024
 * ranks. Shared buffers map the same pages on every rank, SimGrid copies
 * no payload between them, and simulated times are the same (the network
 * model never looks at the bytes). */
#define BUF_ALLOC(bytes) SMPI_SHARED_MALLOC(bytes)
#define BUF_FREE(p) SMPI_SHARED_FREE(p)
enum { BUF_TOUCH = 0 };
#else
#define BUF_ALLOC(bytes) malloc(bytes)
#define BUF_FREE(p) free(p)
/* Touch every page now so first-touch faults are not timed. */
enum { BUF_TOUCH = 1 };
#endif

void measure_free_buffers(void)
{
    if (send_buf) {
        BUF_FREE(send_buf);
    }
    if (recv_buf) {
        BUF_FREE(recv_buf);
    }
    send_buf = recv_buf = NULL;
    buf_bytes = 0;
}

static int ensure_buffers(size_t bytes)
{
    if (bytes <= buf_bytes) {
        return 0;
    }
    measure_free_buffers();
    send_buf = BUF_ALLOC(bytes);
    recv_buf = BUF_ALLOC(bytes);
    if (!send_buf || !recv_buf) {
        measure_free_buffers();
        return -1;
    }
    if (BUF_TOUCH) {
        memset(send_buf, 1, bytes);
        memset(recv_buf, 0, bytes);
    }
    buf_bytes = bytes;
    return 0;
}

enum { CONTROL_MAX_N = 8, CONTROL_ATTACH_TAG = 9311 };

/* The harness's own reductions: the maximum of a few doubles over ctl, by
 * our recursive-doubling allreduce, so that neither the library's
 * collectives nor its choice of algorithm shape a measurement. */
static int control_max(double *v, int n, MPI_Comm ctl)
{
    static coll_fn allreduce;
    if (!allreduce) {
        const struct coll_def *d = coll_find("allreduce");
        allreduce = d->algs[coll_find_alg(d, "recursive_doubling")].run;
    }
    double in[CONTROL_MAX_N];
    assert(n <= CONTROL_MAX_N);
    memcpy(in, v, (size_t)n * sizeof *v);
    struct coll_args args = {.sendbuf = in,
                             .recvbuf = v,
                             .count = n,
                             .dtype = MPI_DOUBLE,
                             .op = MPI_MAX,
                             .comm = ctl};
    return allreduce(&args);
}

#ifdef SMPI_H
/* Under SMPI the reductions that no timed call can overlap go through
 * memory (every rank is an actor of one process) and a simulation barrier:
 * no simulated time, no flows. As messages, each is log2(P) rounds of P
 * concurrent flows that SimGrid's bandwidth sharing solves again at every
 * flow's end: at 1,024 ranks the harness took more wall time than most
 * collectives it timed. The reduction right after each timed call stays
 * messages: ranks that finish early start it while others still run the
 * call, and the times recorded so far include that overlap. */
struct control_shared {
    sg_bar_t barrier;
    int n_ranks;
    int n_attached; /* ranks still holding it (actors run one at a time) */
    double *slots;  /* [2][n_ranks][CONTROL_MAX_N]: calls alternate halves */
};

/* One rank's view, cached on ctl as an attribute. */
struct control_view {
    struct control_shared *shared;
    int rank;
    unsigned calls;
};

static int control_keyval = MPI_KEYVAL_INVALID;

static int control_view_delete(MPI_Comm comm, int keyval, void *attr,
                               void *extra)
{
    struct control_view *view = attr;
    struct control_shared *sh = view->shared;
    (void)comm, (void)keyval, (void)extra;
    if (--sh->n_attached == 0) {
        sg_barrier_destroy(sh->barrier);
        free(sh->slots);
        free(sh);
    }
    free(view);
    return MPI_SUCCESS;
}

/* Collective over ctl, once: rank 0 creates the shared state and sends its
 * address to the others. */
static int control_attach(MPI_Comm ctl, struct control_view **out)
{
    int rank, size, has = 0, err = MPI_SUCCESS;
    if (control_keyval == MPI_KEYVAL_INVALID &&
        MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, control_view_delete,
                               &control_keyval, NULL) != MPI_SUCCESS) {
        return -1;
    }
    if (MPI_Comm_get_attr(ctl, control_keyval, out, &has) == MPI_SUCCESS &&
        has) {
        return 0;
    }
    MPI_Comm_rank(ctl, &rank);
    MPI_Comm_size(ctl, &size);
    struct control_shared *sh = NULL;
    struct control_view *view = malloc(sizeof *view);
    if (rank == 0) {
        sh = malloc(sizeof *sh);
        double *slots = calloc((size_t)2 * size * CONTROL_MAX_N, sizeof *slots);
        if (!sh || !slots || !view) { /* out of memory at 40 bytes: stop */
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        *sh = (struct control_shared){.barrier = sg_barrier_init(size),
                                      .n_ranks = size,
                                      .n_attached = size,
                                      .slots = slots};
        for (int r = 1; r < size && err == MPI_SUCCESS; r++) {
            err = MPI_Send(&sh, (int)sizeof sh, MPI_BYTE, r, CONTROL_ATTACH_TAG,
                           ctl);
        }
    } else {
        err = MPI_Recv(&sh, (int)sizeof sh, MPI_BYTE, 0, CONTROL_ATTACH_TAG,
                       ctl, MPI_STATUS_IGNORE);
        if (!view) {
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
    }
    if (err != MPI_SUCCESS) {
        free(view);
        return -1;
    }
    *view = (struct control_view){.shared = sh, .rank = rank};
    *out = view;
    return MPI_Comm_set_attr(ctl, control_keyval, view) == MPI_SUCCESS ? 0 : -1;
}

static int control_max_quiet(double *v, int n, MPI_Comm ctl)
{
    struct control_view *view;
    assert(n <= CONTROL_MAX_N);
    if (control_attach(ctl, &view) != 0) {
        return MPI_ERR_OTHER;
    }
    /* Alternate halves: a rank can be one call ahead of another, not two
     * (it would have passed a barrier the other has not reached). */
    const struct control_shared *sh = view->shared;
    double *half = sh->slots + (size_t)(view->calls++ % 2) *
                                   (size_t)sh->n_ranks * CONTROL_MAX_N;
    memcpy(half + (size_t)view->rank * CONTROL_MAX_N, v, (size_t)n * sizeof *v);
    sg_barrier_wait(sh->barrier);
    for (int i = 0; i < n; i++) {
        for (int r = 0; r < sh->n_ranks; r++) {
            double x = half[(size_t)r * CONTROL_MAX_N + (size_t)i];
            v[i] = x > v[i] ? x : v[i];
        }
    }
    return MPI_SUCCESS;
}
/* measure_settle's effect (no rank goes on before all have ended) without
 * its P - 1 messages to rank 0. */
static int control_settle(MPI_Comm ctl)
{
    struct control_view *view;
    if (control_attach(ctl, &view) != 0) {
        return MPI_ERR_OTHER;
    }
    sg_barrier_wait(view->shared->barrier);
    return MPI_SUCCESS;
}

/* Before the clock starts, every time: the attachment's messages, on a
 * communicator's first experiment, are no experiment's, and every
 * experiment starts with all ranks there (so cost_s does not depend on
 * which experiment came first, as resumed sweeps need). */
static int control_prepare(MPI_Comm ctl)
{
    return control_settle(ctl);
}
#else
static int control_max_quiet(double *v, int n, MPI_Comm ctl)
{
    return control_max(v, n, ctl);
}

static int control_settle(MPI_Comm ctl)
{
    return measure_settle(ctl);
}

static int control_prepare(MPI_Comm ctl)
{
    (void)ctl;
    return 0;
}
#endif

/* All ranks learn whether any rank failed (or the control messages did). */
static int any_failed(int failed, MPI_Comm ctl)
{
    double v = failed;
    return control_max_quiet(&v, 1, ctl) != MPI_SUCCESS || v != 0;
}

/* The standard error of the mean of t relative to the part of it beyond
 * floor_us: under an arrival shape the last rank arrives the spread after
 * the start, so every method's time holds the spread, and a mean it
 * dominates would meet any rse at once while the methods' own parts (what
 * tells them apart) are still a few draws' luck. */
static double relative_standard_error(const double *t, size_t n,
                                      double floor_us)
{
    double mean = gsl_stats_mean(t, 1, n);
    double part = mean - floor_us > 0 ? mean - floor_us : mean;
    if (n < 2 || part <= 0) {
        return 0;
    }
    return gsl_stats_sd_m(t, 1, n, mean) / sqrt((double)n) / part;
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
    return alg == MEASURE_DEFAULT ? MEASURE_DEFAULT_NAME
                                  : coll_method_name(coll, alg);
}

int measure_applies(const struct measure_request *req, int n_ranks)
{
    const struct coll_def *coll = req->coll;
    if (req->alg == MEASURE_DEFAULT) {
        return 1;
    }
    const struct node_plan *plan = coll_method_plan(coll, req->alg);
    if (plan) {
        return !req->is_native && req->nodes && node_is_composed(req->nodes) &&
               node_applies(coll->name, req->nodes, plan,
                            coll->is_reduction ? MPI_SUM : MPI_OP_NULL);
    }
    const struct coll_alg *alg = &coll->algs[req->alg];
    if (req->is_native) {
        return native_runs_as_named(coll->name, alg->name, n_ranks,
                                    req->msg_bytes, req->seg_bytes);
    }
    return coll_alg_applies(alg, n_ranks,
                            coll->is_reduction ? MPI_SUM : MPI_OP_NULL);
}

/* The node-aware method being timed: coll_fn takes only the call's
 * arguments, so node_run finds the rest here (one measurement at a time). */
static struct {
    node_fn run;
    const struct node_comms *nodes;
    const struct node_plan *plan;
} node_now;

static int node_run(const struct coll_args *args)
{
    return node_now.run(args, node_now.nodes, node_now.plan);
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
    const struct node_plan *plan = coll_method_plan(coll, req->alg);
    if (plan) {
        node_now.run = node_find(coll->name);
        node_now.nodes = req->nodes;
        node_now.plan = plan;
        *run = node_run;
        return node_now.run && req->nodes ? 0 : -1;
    }
    const struct coll_alg *alg = &coll->algs[req->alg];
    if (!req->is_native) {
        *run = alg->run;
        return 0;
    }
    return native_comm_create(comm, coll->name, alg->name, req->seg_bytes,
                              req->chain_fanout, run_comm);
}

/* The common start. Offsets and the window are agreed by every rank (they
 * come out of control_max), so every rank computes the same instants. */
struct start_window {
    double offset_s; /* this rank's clock minus comm rank 0's */
    double next_s;   /* the next call's start, on rank 0's clock */
    double width_s;  /* from the slowest rank's end to the next start */
    double lag_s;    /* how long this rank's last control_max ran past its
                        reference instant (the slowest rank's end) */
};

/* One clock offset per rank, kept between experiments: it is against
 * comm rank 0, which in every communicator the harness is given is world
 * rank 0. */
static double clock_offset_s;

enum { WINDOW_FLOOR_NS = 1000, LATE_RETRIES = 40 };

/* Everyone's clock reading, maximised: the reference instant from which
 * the first window is measured; twice, so the window can be sized from how
 * long such a reduction takes to release the last rank. With one call
 * planned, no window follows a call's reduction, and under SMPI (where the
 * quiet reduction releases every rank at once, so none is late) neither
 * reduction needs messages. */
static int window_open(struct start_window *w, MPI_Comm ctl, int n_calls)
{
    w->offset_s = clock_offset_s;
    w->lag_s = 0;
    for (int i = 0; i < 2; i++) {
        double v[2] = {MPI_Wtime() - w->offset_s, w->lag_s};
        /* The first is of the kind that follows each call: the second
         * sizes the window from its lag. */
        int is_quiet = i == 1 || n_calls == 1;
        if ((is_quiet ? control_max_quiet(v, 2, ctl)
                      : control_max(v, 2, ctl)) != MPI_SUCCESS) {
            return -1;
        }
        w->lag_s = MPI_Wtime() - w->offset_s - v[0];
        w->width_s = fmax(WINDOW_FLOOR_NS * 1e-9, 2 * v[1]);
        w->next_s = v[0] + w->width_s;
    }
    return 0;
}

/* How this rank reaches each call (measure.arrival). */
struct arrival {
    enum config_arrival kind;
    double spread_s;
    int rank, n_ranks; /* in the point's communicator; the root is 0 */
    int *order;        /* ARRIVAL_UNIFORM: n_ranks entries, the draw */
    MPI_Comm comm;     /* ARRIVAL_BARRIER: the point's communicator */
    unsigned long calls;
    int n_vectors;  /* recorded calls replayed: this rank's delay in */
    double *own_us; /* each (n_vectors), in place of the shape's */
    /* The application's next call, run (untimed) next_gap_s after each
     * timed call on each rank; next_run NULL: none. */
    coll_fn next_run;
    struct coll_args next_args;
    double next_gap_s;
};

enum { VECTORS_TAG = 9312 };

/* Recorded calls (params n_vectors > 0): comm rank 0, which holds them,
 * sends each rank its delay in each over ctl, into a->own_us (allocated
 * on every rank; col: n_vectors doubles on rank 0). */
static int arrival_share(struct arrival *a, const struct config_measure *p,
                         double *col, MPI_Comm ctl)
{
    int n = a->n_vectors, err = MPI_SUCCESS;
    if (a->rank != 0) {
        return MPI_Recv(a->own_us, n, MPI_DOUBLE, 0, VECTORS_TAG, ctl,
                        MPI_STATUS_IGNORE);
    }
    for (int r = 0; r < a->n_ranks && err == MPI_SUCCESS; r++) {
        double *to = r == 0 ? a->own_us : col;
        for (int k = 0; k < n; k++) {
            to[k] = p->vectors_us[(long)k * a->n_ranks + r];
        }
        if (r > 0) {
            err = MPI_Send(col, n, MPI_DOUBLE, r, VECTORS_TAG, ctl);
        }
    }
    return err;
}

/* SplitMix64: the draw must be the same on every rank and every run. */
static uint64_t arrival_next(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

/* This rank's delay after the common start for the next call. Uniform:
 * the delays k * spread / (P - 1), k = 0..P-1 (so the first arrival is at
 * the start and the last spread after it), dealt to the ranks by a
 * shuffle seeded with the call's number within the experiment, so every
 * method meets the same sequence of patterns. */
static double arrival_delay_s(struct arrival *a)
{
    unsigned long call = a->calls++;
    if (a->n_vectors > 0) {
        return a->own_us[call % (unsigned long)a->n_vectors] * 1e-6;
    }
    switch (a->kind) {
    case ARRIVAL_UNIFORM: {
        if (a->n_ranks < 2) {
            return 0;
        }
        uint64_t state = 0x61727269766c0000u ^ call;
        for (int i = 0; i < a->n_ranks; i++) {
            a->order[i] = i;
        }
        for (int i = a->n_ranks - 1; i > 0; i--) {
            int k = (int)(arrival_next(&state) % (uint64_t)(i + 1));
            int t = a->order[i];
            a->order[i] = a->order[k];
            a->order[k] = t;
        }
        return a->spread_s * a->order[a->rank] / (a->n_ranks - 1);
    }
    case ARRIVAL_ROOT_LAST:
        return a->rank == 0 ? a->spread_s : 0;
    case ARRIVAL_ROOT_FIRST:
        return a->rank == 0 ? 0 : a->spread_s;
    case ARRIVAL_ONE_LATE:
        return a->rank == a->n_ranks - 1 ? a->spread_s : 0;
    default:
        return 0;
    }
}

/* One call from the common start (each rank after its own delay, or after
 * the library's barrier entered there). *time_us is the slowest rank's end
 * minus the start or, after a barrier, the longest of the ranks' own times
 * from the barrier's exit; -1 if a rank arrived after its instant (its own
 * lateness would count): the call does not count. */
static int window_call(struct start_window *w, struct arrival *a, coll_fn run,
                       const struct coll_args *args, MPI_Comm ctl,
                       double *time_us)
{
    int is_late =
        clock_wait_until(w->next_s + arrival_delay_s(a) + w->offset_s);
    int err = MPI_SUCCESS;
    double began = 0;
    /* MPI_Wtime only where it is needed: under SMPI each reading takes
     * simulated time (smpi/wtime), which would shift every start. */
    if (a->kind == ARRIVAL_BARRIER) {
        err = MPI_Barrier(a->comm);
        began = MPI_Wtime();
    }
    /* Only the timed call: control_max's results must stay right. */
    coll_temp_share(1);
    err = err == MPI_SUCCESS ? run(args) : err;
    coll_temp_share(0);
    double end = MPI_Wtime(), next_end = end;
    if (a->next_run && err == MPI_SUCCESS) {
        /* as the application's ranks start it: its traffic meets the
         * timed call's tail on the ranks still in it */
        clock_wait_until(end + a->next_gap_s);
        err = a->next_run(&a->next_args);
        next_end = MPI_Wtime();
    }
    double u[6] = {end - w->offset_s, err != MPI_SUCCESS,    is_late, w->lag_s,
                   end - began,       next_end - w->offset_s};
    /* The reduction overlaps the call's tail on ranks that end early, so
     * its size is part of every time: the fifth and sixth numbers only
     * where used. */
    int n_max = a->next_run ? 6 : a->kind == ARRIVAL_BARRIER ? 5 : 4;
    if (control_max(u, n_max, ctl) != MPI_SUCCESS || u[1] != 0) {
        return -1;
    }
    /* The next window from the last end, of the next call where it ran. */
    double last_end = a->next_run ? fmax(u[0], u[5]) : u[0];
    w->lag_s = MPI_Wtime() - w->offset_s - last_end;
    /* Whole nanoseconds: below MPI_Wtime's resolution, and it keeps
     * simulated times free of rounding noise from the absolute clock. */
    double time_s = a->kind == ARRIVAL_BARRIER ? u[4] : u[0] - w->next_s;
    *time_us = u[2] != 0 ? -1 : round(time_s * 1e9) / 1e3;
    /* A late rank doubles the window; otherwise it eases back toward
     * twice the reduction's lag, so one hiccup does not slow every call
     * after it. */
    w->width_s = u[2] != 0 ? 2 * w->width_s
                           : fmax(fmax(2 * u[3], 0.9 * w->width_s),
                                  WINDOW_FLOOR_NS * 1e-9);
    w->next_s = last_end + w->width_s;
    return 0;
}

/* A call of coll on msg_bytes of the harness's buffers, root 0. Bytes with
 * a sum: every message size is exact, every MPI has it. */
static struct coll_args buffer_args(const struct coll_def *coll, long msg_bytes,
                                    MPI_Comm comm)
{
    return (struct coll_args){
        .sendbuf = coll->send_blocks == BLOCKS_NONE ? NULL : send_buf,
        .recvbuf = coll->send_blocks == BLOCKS_NONE ? send_buf : recv_buf,
        .count = (int)msg_bytes,
        .dtype = coll->is_reduction ? MPI_UNSIGNED_CHAR : MPI_BYTE,
        .op = coll->is_reduction ? MPI_SUM : MPI_OP_NULL,
        .root = 0,
        .comm = comm,
    };
}

int measure_run(const struct measure_request *req, MPI_Comm comm, MPI_Comm ctl,
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
                       coll_method_is_segmented(coll, req->alg);
    struct start_window w;
    struct arrival arrival = {
        .kind = p->arrival, .spread_s = p->spread_us * 1e-6, .comm = comm};

    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &n_ranks);
    arrival.rank = rank;
    arrival.n_ranks = n_ranks;
    memset(out, 0, sizeof *out);
    if (req->is_clock_sync && clock_sync(ctl, &clock_offset_s) != MPI_SUCCESS) {
        fprintf(stderr, "autotune: synchronising clocks failed\n");
        return -1;
    }
    if (control_prepare(ctl) != 0) {
        fprintf(stderr, "autotune: sharing the harness's reductions failed\n");
        return -1;
    }
    double start = MPI_Wtime();
    long send_bytes =
        coll_buffer_bytes(coll->send_blocks, n_ranks, req->msg_bytes);
    long recv_bytes =
        coll_buffer_bytes(coll->recv_blocks, n_ranks, req->msg_bytes);
    const struct coll_def *next = p->next_coll;
    if (next) { /* the next call shares the buffers */
        long nb =
            coll_buffer_bytes(next->send_blocks, n_ranks, p->next_msg_bytes);
        send_bytes = nb > send_bytes ? nb : send_bytes;
        nb = coll_buffer_bytes(next->recv_blocks, n_ranks, p->next_msg_bytes);
        recv_bytes = nb > recv_bytes ? nb : recv_bytes;
    }
    int failed =
        ensure_buffers(
            (size_t)(send_bytes > recv_bytes ? send_bytes : recv_bytes)) != 0;
    times = malloc((size_t)p->max_reps * sizeof *times);
    failed |= times == NULL;
    if (p->arrival == ARRIVAL_UNIFORM) {
        arrival.order = malloc((size_t)n_ranks * sizeof *arrival.order);
        failed |= arrival.order == NULL;
    }
    double *col = NULL;
    if (p->n_vectors > 0) {
        arrival.n_vectors = p->n_vectors;
        arrival.own_us = malloc((size_t)p->n_vectors * sizeof *arrival.own_us);
        col = rank == 0 ? malloc((size_t)p->n_vectors * sizeof *col) : NULL;
        failed |= !arrival.own_us || (rank == 0 && (!col || !p->vectors_us));
    }
    if (any_failed(failed, ctl)) {
        fprintf(stderr, "autotune: out of memory for a %ld-byte %s\n",
                req->msg_bytes, coll->name);
        free(col);
        goto done;
    }
    failed =
        p->n_vectors > 0 && arrival_share(&arrival, p, col, ctl) != MPI_SUCCESS;
    free(col);
    if (any_failed(failed, ctl)) {
        fprintf(stderr, "autotune: sharing the recorded arrivals failed\n");
        goto done;
    }
    /* Collective and agreed: every rank fails or none. */
    if (method_prepare(req, comm, &run, &run_comm, &name) != 0) {
        goto done;
    }

    struct coll_args args = buffer_args(coll, req->msg_bytes, run_comm);
    args.seg_bytes = is_segmented ? req->seg_bytes : 0;
    args.chain_fanout = req->chain_fanout;
    if (next) {
        arrival.next_run = next->reference;
        arrival.next_gap_s = p->next_gap_us * 1e-6;
        arrival.next_args = buffer_args(next, p->next_msg_bytes, comm);
    }
    if (window_open(&w, ctl, p->warmup + p->max_reps) != 0) {
        goto failed;
    }
    /* Warm-up calls also size the window: a late rank there costs nothing. */
    for (int i = 0; i < p->warmup; i++) {
        double t;
        if (window_call(&w, &arrival, run, &args, ctl, &t) != 0) {
            goto failed;
        }
    }
    size_t n = 0;
    int late = 0;
    /* Under every shape the last rank arrives the spread after the start. */
    int is_shape = p->arrival != ARRIVAL_TOGETHER &&
                   p->arrival != ARRIVAL_BARRIER &&
                   p->arrival != ARRIVAL_PROFILE;
    double floor_us = is_shape ? p->spread_us : 0;
    while (n < (size_t)p->max_reps) {
        double t;
        if (window_call(&w, &arrival, run, &args, ctl, &t) != 0) {
            goto failed;
        }
        if (t < 0) {
            if (++late > LATE_RETRIES) {
                if (rank == 0) {
                    fprintf(stderr,
                            "autotune: ranks never started together (%d "
                            "calls late)\n",
                            late);
                }
                goto failed;
            }
            continue;
        }
        times[n++] = t;
        /* A pattern drawn afresh for each call: one call says nothing of
         * how the draws differ. */
        if (n >= (size_t)p->min_reps &&
            (n >= 2 || p->arrival != ARRIVAL_UNIFORM) &&
            relative_standard_error(times, n, floor_us) <= p->rse) {
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
    control_settle(ctl);
    /* Whole microseconds: under SMPI a duration can differ by one ulp of the
     * absolute clock, which must not show in a resumed run's tables. */
    out->cost_s = round((MPI_Wtime() - start) * 1e6) / 1e6;
    rc = 0;
    goto done;
failed:
    measure_settle(ctl);
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
    free(arrival.order);
    free(arrival.own_us);
    return rc;
}
