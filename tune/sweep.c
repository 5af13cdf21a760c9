/* The sweep: rank 0 walks the grid and runs the search; the oracle answers
 * from the journal or has the point's ranks time the method. Invariant: a
 * result is in the journal, on disk, before the search sees it. */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "collectives/method.h"
#include "collectives/nodes.h"
#include "model/model.h"
#include "search/refine.h"
#include "store/journal.h"
#include "store/profile.h"
#include "store/rundir.h"
#include "store/tables.h"
#include "tune/baseline.h"
#include "tune/clock.h"
#include "tune/grid.h"
#include "tune/measure.h"
#include "tune/progress.h"
#include "tune/sweep.h"
#include "util/tuning.h"
#ifdef SMPI_H /* defined by SimGrid's mpi.h */
#include <xbt/config.h>
#endif

/* The command rank 0 sends before each experiment, as doubles so one
 * message carries it (every field is an integer below 2^53 or the rse). */
enum {
    CMD_OP,
    CMD_COLL,  /* index in coll_table */
    CMD_PROCS, /* the communicator: the first procs ranks of ... */
    CMD_PPN,   /* ... this placement's order (0: as launched) */
    CMD_ALG,
    CMD_MSG_BYTES,
    CMD_SEG_BYTES,
    CMD_FANOUT,
    CMD_WARMUP,
    CMD_MIN_REPS,
    CMD_MAX_REPS,
    CMD_RSE,
    CMD_NATIVE, /* backend native: the library's algorithm, forced */
    CMD_CLOCK_SYNC,
    CMD_ARRIVAL, /* measure.arrival */
    CMD_SPREAD_US,
    CMD_VECTORS,   /* the recorded calls replayed (measure_run sends them) */
    CMD_NEXT_COLL, /* the call run behind each timed one: index in
                      coll_table, -1 none; its bytes, the gap before it */
    CMD_NEXT_BYTES,
    CMD_NEXT_GAP_US,
    CMD_NODE_LEADERS, /* a node-aware method: its leaders per node (0: a
                         table algorithm, CMD_ALG) and its phases, each an
                         index in its collective's table (-1: unused) and
                         a segment size; OP_CREATE: 1 makes the new
                         communicator's node communicators */
    CMD_UP_ALG,
    CMD_UP_SEG,
    CMD_INTER_ALG,
    CMD_INTER_SEG,
    CMD_DOWN_ALG,
    CMD_DOWN_SEG,
    CMD_LEN
};
enum { OP_STOP = 0, OP_MEASURE = 1, OP_CREATE = 2, OP_FREE = 3 };
enum { CMD_TAG = 9302 };
enum { SUB_CREATE_TAG = 9303 };

/* How many point communicators live at once: a point needs its own and the
 * surrogate's pipelines (a few lengths per point, the same at every message
 * size), so a grid's procs block reuses them; beyond it the least recently
 * used is freed. Bounded, because a communicator costs memory on each of
 * its ranks, which on a thousand simulated ranks adds up. */
#define SUB_CACHE_SIZE 8

/* Clocks that are not one global clock drift apart: a rank's offset is
 * measured again once it is older than this (rank 0's seconds). */
#define CLOCK_RESYNC_S 1.0

/* Set (to anything but "" or 0): rank 0 says each communicator's world
 * ranks as it makes it, a testing aid (docs/usage.md). */
#define SWEEP_TRACE_ENV "AUTOTUNE_TRACE_COMMS"

/* The order in which a placement takes world ranks (nodes_block_order): a
 * communicator of procs ranks at ppn per node is ranks[0..procs-1], so
 * every rank knows the members of one from (procs, ppn) alone. */
struct placement {
    int ppn; /* 0: as launched (world ranks 0..procs-1) */
    int n;   /* ranks listed */
    int *ranks;
    int *pos; /* world rank -> its index in ranks, INT_MAX if not listed */
    /* world rank r -> the least pos in r's subtree of the commands'
     * binomial tree (world ranks r .. r + (r & -r) - 1) */
    int *subtree_pos;
};

/* A point's communicator: made when rank 0 first needs it (OP_CREATE),
 * collectively over its ranks only; freed when rank 0 says so (OP_FREE)
 * or at the end. */
struct sub_comm {
    int procs; /* the first procs ranks of placement ppn's order; 0: an
                  empty slot */
    int ppn;
    MPI_Comm comm;            /* the one the collective runs on */
    MPI_Comm ctl;             /* a duplicate for the harness's own messages */
    struct node_comms *nodes; /* its node-aware methods' communicators, made
                                 where the config has such methods and
                                 ranks lie on whole nodes; else NULL */
    long last_use;            /* rank 0 */
};

struct sweep {
    const struct config *cfg;
    struct journal *journal;
    MPI_Comm world;
    int world_size;
    int *node_of_rank; /* world rank -> node (collectives/nodes.h) */
    struct placement **placements; /* the ones used so far (each stays
                                       where it is made) */
    int n_placements;
    int is_tracing; /* rank 0: SWEEP_TRACE_ENV */
    /* The communicators of (procs, placement) made so far (the surrogate
     * times pipelines on fewer ranks than the point's); a rank holds those
     * it is in, rank 0 all of them. */
    struct sub_comm subs[SUB_CACHE_SIZE];
    long n_sub_uses;    /* rank 0: the clock of sub_comm.last_use */
    MPI_Comm ctl_world; /* the commands' communicator */
    double *synced_at;  /* rank 0: when each rank's clock offset was
                           measured (rank 0's MPI_Wtime), -1 never */
    int is_clock_global;
    int has_left_epoch; /* rank 0: clock_left_epoch() was reported */
    /* the current point */
    int coll_index;
    int ppn;                     /* its ranks per node, as recorded */
    enum config_arrival arrival; /* measure.arrival = "profile": its pattern */
    double spread_us;
    int point_measured;
    /* totals of this session */
    long experiments_new, experiments_reused, not_applicable;
    double experiment_s;
    struct baseline_counts baseline;
    struct progress *progress;
    /* search = "model": the calibration in RUN/model.csv (rank 0). */
    struct model_params *model;
};

static int mpi_check(int err, const char *what)
{
    if (err != MPI_SUCCESS) {
        char msg[MPI_MAX_ERROR_STRING];
        int len = 0;
        MPI_Error_string(err, msg, &len);
        fprintf(stderr, "autotune: %s: %s\n", what, msg);
    }
    return err;
}

static int coll_table_index(const struct coll_def *d)
{
    for (int i = 0; i < coll_table_size; i++) {
        if (coll_table[i] == d) {
            return i;
        }
    }
    return -1;
}

/* The node-aware method of coll numbered m into cmd's plan fields (a table
 * algorithm leaves them 0): a worker has not read the config, so it learns
 * the method by its phases, not by rank 0's number for it. */
static void command_set_method(double *cmd, const struct coll_def *coll, int m)
{
    const struct node_plan *plan = coll_method_plan(coll, m);
    if (!plan) {
        return;
    }
    cmd[CMD_NODE_LEADERS] = plan->leaders;
    for (int ph = 0; ph < NODE_N_PHASES; ph++) {
        const struct node_phase *f =
            node_plan_phase(plan, (enum node_phase_id)ph);
        const struct coll_def *pc =
            node_phase_coll(coll, (enum node_phase_id)ph);
        cmd[CMD_UP_ALG + 2 * ph] = pc ? (double)(f->alg - pc->algs) : -1;
        cmd[CMD_UP_SEG + 2 * ph] = f->seg_bytes;
    }
}

/* The method cmd names, numbered on this rank. */
static int command_method(const double *cmd, const struct coll_def *coll)
{
    if (cmd[CMD_NODE_LEADERS] == 0) {
        return (int)cmd[CMD_ALG];
    }
    struct node_plan plan = {.leaders = (int)cmd[CMD_NODE_LEADERS]};
    for (int ph = 0; ph < NODE_N_PHASES; ph++) {
        const struct coll_def *pc =
            node_phase_coll(coll, (enum node_phase_id)ph);
        int a = (int)cmd[CMD_UP_ALG + 2 * ph];
        if (pc && a >= 0 && a < pc->n_algs) {
            node_plan_set(&plan, (enum node_phase_id)ph,
                          (struct node_phase){&pc->algs[a],
                                              (int)cmd[CMD_UP_SEG + 2 * ph]});
        }
    }
    return coll_plan_method(coll, &plan);
}

static void request_from_command(const double *cmd, struct measure_request *req)
{
    req->coll = coll_table[(int)cmd[CMD_COLL]];
    req->alg = command_method(cmd, req->coll);
    if (req->alg < 0 && cmd[CMD_NODE_LEADERS] != 0) {
        /* out of memory: the worker cannot time what rank 0 asks */
        fprintf(stderr, "autotune: out of memory naming a node-aware method\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    req->nodes = NULL;
    req->msg_bytes = (long)cmd[CMD_MSG_BYTES];
    req->seg_bytes = (int)cmd[CMD_SEG_BYTES];
    req->chain_fanout = (int)cmd[CMD_FANOUT];
    req->params.warmup = (int)cmd[CMD_WARMUP];
    req->params.min_reps = (int)cmd[CMD_MIN_REPS];
    req->params.max_reps = (int)cmd[CMD_MAX_REPS];
    req->params.rse = cmd[CMD_RSE];
    req->params.arrival = (enum config_arrival)cmd[CMD_ARRIVAL];
    req->params.spread_us = cmd[CMD_SPREAD_US];
    req->params.n_vectors = (int)cmd[CMD_VECTORS];
    req->params.vectors_us = NULL; /* rank 0 sets them */
    req->params.next_coll =
        cmd[CMD_NEXT_COLL] >= 0 ? coll_table[(int)cmd[CMD_NEXT_COLL]] : NULL;
    req->params.next_msg_bytes = (long)cmd[CMD_NEXT_BYTES];
    req->params.next_gap_us = cmd[CMD_NEXT_GAP_US];
    req->is_native = cmd[CMD_NATIVE] != 0;
    req->is_clock_sync = cmd[CMD_CLOCK_SYNC] != 0;
}

/* Rank 0: the placement of the current point. Without ranks_per_node the
 * ranks as launched (recorded as one rank per node); with it, whole nodes
 * of ppn consecutive ranks. */
static int point_placement(const struct sweep *s)
{
    return s->cfg->is_ppn_given ? s->ppn : 0;
}

static void placement_destroy(struct placement *p)
{
    if (p) {
        free(p->ranks);
        free(p->pos);
        free(p->subtree_pos);
        free(p);
    }
}

/* Placement ppn (made on first use; every rank makes the same from the
 * node map). NULL out of memory (said). */
static const struct placement *placement_of(struct sweep *s, int ppn)
{
    for (int i = 0; i < s->n_placements; i++) {
        if (s->placements[i]->ppn == ppn) {
            return s->placements[i];
        }
    }
    int size = s->world_size;
    struct placement **grown =
        realloc(s->placements, (size_t)(s->n_placements + 1) * sizeof *grown);
    struct placement *p = calloc(1, sizeof *p);
    if (grown) {
        s->placements = grown;
    }
    if (p) {
        p->ppn = ppn;
        p->ranks = malloc((size_t)size * sizeof *p->ranks);
        p->pos = malloc((size_t)size * sizeof *p->pos);
        p->subtree_pos = malloc((size_t)size * sizeof *p->subtree_pos);
    }
    if (!grown || !p || !p->ranks || !p->pos || !p->subtree_pos ||
        (p->n = nodes_block_order(s->node_of_rank, size, ppn, p->ranks)) < 0) {
        placement_destroy(p);
        fprintf(stderr, "autotune: out of memory\n");
        return NULL;
    }
    for (int r = 0; r < size; r++) {
        p->pos[r] = INT_MAX;
    }
    for (int i = 0; i < p->n; i++) {
        p->pos[p->ranks[i]] = i;
    }
    for (int r = 0; r < size; r++) {
        int end = r == 0 ? size : r + (r & -r);
        p->subtree_pos[r] = INT_MAX;
        for (int k = r; k < end && k < size; k++) {
            p->subtree_pos[r] =
                p->pos[k] < p->subtree_pos[r] ? p->pos[k] : p->subtree_pos[r];
        }
    }
    s->placements[s->n_placements++] = p;
    return p;
}

/* A command goes down the binomial tree of the world's ranks by
 * point-to-point messages, into the subtrees that hold a rank of the
 * command's communicator: the ranks of no such subtree see no traffic, and
 * no library collective runs between two experiments (as launched, the
 * tree over world ranks 0..procs-1). A rank's parent is itself with its
 * lowest set bit cleared, always, so commands arrive in the order rank 0
 * sent them; its children are itself plus the powers of two below that bit
 * (below the world size for rank 0). */
static int command_forward(struct sweep *s, int rank, const double *cmd)
{
    int procs = (int)cmd[CMD_PROCS], err = MPI_SUCCESS;
    const struct placement *p = placement_of(s, (int)cmd[CMD_PPN]);
    int low = rank & -rank;
    if (!p) {
        return MPI_ERR_NO_MEM;
    }
    if (rank == 0) {
        for (low = 1; low < s->world_size; low *= 2) {
        }
    }
    for (int bit = low / 2; bit >= 1 && err == MPI_SUCCESS; bit /= 2) {
        int child = rank + bit;
        if (child < s->world_size && p->subtree_pos[child] < procs) {
            err = MPI_Send(cmd, CMD_LEN, MPI_DOUBLE, child, CMD_TAG,
                           s->ctl_world);
        }
    }
    return mpi_check(err, "sending a command");
}

static int broadcast_stop(struct sweep *s)
{
    double cmd[CMD_LEN] = {0};
    cmd[CMD_OP] = OP_STOP;
    cmd[CMD_PROCS] = s->world_size; /* as launched: every rank */
    return command_forward(s, 0, cmd);
}

/* The slot of the communicator of procs ranks of placement ppn, -1 if
 * there is none; with procs 0, an empty slot. */
static int sub_find(const struct sweep *s, int procs, int ppn)
{
    for (int i = 0; i < SUB_CACHE_SIZE; i++) {
        if (s->subs[i].procs == procs && (!procs || s->subs[i].ppn == ppn)) {
            return i;
        }
    }
    return -1;
}

/* Rank 0 with SWEEP_TRACE_ENV set: the communicator's world ranks. */
static void sub_trace(const struct placement *p, int procs)
{
    fprintf(stderr, "autotune: communicator of %d ranks, ", procs);
    if (p->ppn) {
        fprintf(stderr, "%d per node:", p->ppn);
    } else {
        fprintf(stderr, "as launched:");
    }
    for (int i = 0; i < procs; i++) {
        fprintf(stderr, " %d", p->ranks[i]);
    }
    fprintf(stderr, "\n");
}

/* Collective over the placement's first procs ranks in its order
 * (MPI_Comm_create_group: the other ranks take no part), which are the
 * new communicator's ranks 0..procs-1. The slot must be empty. */
/* The node communicators of sub, whose ranks are the first procs of p's
 * order: their nodes renumbered from 0 in order of lowest rank, as
 * node_comms_create wants them. Collective over sub's ranks. */
static int sub_make_nodes(struct sweep *s, struct sub_comm *sub,
                          const struct placement *p)
{
    int procs = sub->procs;
    int *node_of = malloc((size_t)procs * sizeof *node_of);
    int *renamed = malloc((size_t)s->world_size * sizeof *renamed);
    int err = MPI_ERR_NO_MEM, n_nodes = 0;
    if (node_of && renamed) {
        for (int r = 0; r < s->world_size; r++) {
            renamed[r] = -1;
        }
        for (int i = 0; i < procs; i++) {
            int world_node = s->node_of_rank[p->ranks[i]];
            if (renamed[world_node] < 0) {
                renamed[world_node] = n_nodes++;
            }
            node_of[i] = renamed[world_node];
        }
        err = node_comms_create(sub->comm, node_of, &sub->nodes);
    }
    free(node_of);
    free(renamed);
    return mpi_check(err, "making the node communicators");
}

static int sub_create(struct sweep *s, int slot, int procs, int ppn,
                      int has_nodes)
{
    struct sub_comm *sub = &s->subs[slot];
    const struct placement *p = placement_of(s, ppn);
    MPI_Group world_group, group;
    if (!p) {
        return -1;
    }
    if (s->is_tracing) {
        sub_trace(p, procs);
    }
    int err = MPI_Comm_group(s->world, &world_group);
    if (err == MPI_SUCCESS) {
        err = MPI_Group_incl(world_group, procs, p->ranks, &group);
        MPI_Group_free(&world_group);
    }
    if (err == MPI_SUCCESS) {
        err =
            MPI_Comm_create_group(s->world, group, SUB_CREATE_TAG, &sub->comm);
        MPI_Group_free(&group);
    }
    if (err == MPI_SUCCESS) {
        MPI_Comm_set_errhandler(sub->comm, MPI_ERRORS_RETURN);
        err = MPI_Comm_dup(sub->comm, &sub->ctl);
        if (err != MPI_SUCCESS) {
            MPI_Comm_free(&sub->comm);
        }
    }
    if (mpi_check(err, "creating a communicator") != MPI_SUCCESS) {
        return -1;
    }
    sub->procs = procs;
    sub->ppn = ppn;
    sub->nodes = NULL;
    if (has_nodes && sub_make_nodes(s, sub, p) != MPI_SUCCESS) {
        return -1;
    }
    /* Ranks leave the creation at different times: settled as after an
     * experiment, the first experiment on it costs what it would cost on
     * a communicator made earlier (a resumed sweep makes them elsewhere). */
    return measure_settle(sub->ctl) == MPI_SUCCESS ? 0 : -1;
}

/* Collective over the communicator's ranks. */
static void sub_free(struct sub_comm *sub)
{
    node_comms_destroy(sub->nodes);
    sub->nodes = NULL;
    MPI_Comm_free(&sub->ctl);
    MPI_Comm_free(&sub->comm);
    sub->procs = 0;
}

/* Any rank, on OP_CREATE: the communicator of procs ranks of placement
 * ppn in an empty slot (rank 0 has emptied one: a rank holds none that
 * rank 0 does not). */
static int sub_create_in_free_slot(struct sweep *s, int procs, int ppn,
                                   int has_nodes)
{
    int slot = sub_find(s, 0, 0);
    return slot < 0 ? -1 : sub_create(s, slot, procs, ppn, has_nodes);
}

/* Rank 0, before an experiment on procs ranks of placement ppn: the slot
 * of their communicator, made now if it is new, after the least recently
 * used is freed if every slot is taken. Each is a command of its own, so
 * the experiment's command finds every rank waiting, as after any other. */
static int sub_prepare(struct sweep *s, int procs, int ppn)
{
    int slot = sub_find(s, procs, ppn);
    if (slot < 0 && sub_find(s, 0, 0) < 0) {
        int oldest = 0;
        for (int i = 1; i < SUB_CACHE_SIZE; i++) {
            if (s->subs[i].last_use < s->subs[oldest].last_use) {
                oldest = i;
            }
        }
        double cmd[CMD_LEN] = {[CMD_OP] = OP_FREE,
                               [CMD_PROCS] = s->subs[oldest].procs,
                               [CMD_PPN] = s->subs[oldest].ppn};
        if (command_forward(s, 0, cmd) != MPI_SUCCESS) {
            return -1;
        }
        sub_free(&s->subs[oldest]);
    }
    if (slot < 0) {
        /* node-aware methods run on whole nodes only */
        int has_nodes = s->cfg->has_node_methods && ppn > 1;
        double cmd[CMD_LEN] = {[CMD_OP] = OP_CREATE,
                               [CMD_PROCS] = procs,
                               [CMD_PPN] = ppn,
                               [CMD_NODE_LEADERS] = has_nodes};
        if (command_forward(s, 0, cmd) != MPI_SUCCESS ||
            sub_create_in_free_slot(s, procs, ppn, has_nodes) != 0) {
            return -1;
        }
        slot = sub_find(s, procs, ppn);
    }
    s->subs[slot].last_use = ++s->n_sub_uses;
    return slot;
}

/* At the end, on every rank: the communicators it is in, in one order
 * (placement, then smallest first) on every rank, so the collective frees
 * meet in the same order. */
static void sub_free_all(struct sweep *s)
{
    for (;;) {
        int smallest = -1;
        for (int i = 0; i < SUB_CACHE_SIZE; i++) {
            const struct sub_comm *a = &s->subs[i];
            const struct sub_comm *b = &s->subs[smallest < 0 ? i : smallest];
            if (a->procs > 0 && (smallest < 0 || a->ppn < b->ppn ||
                                 (a->ppn == b->ppn && a->procs < b->procs))) {
                smallest = i;
            }
        }
        if (smallest < 0) {
            return;
        }
        sub_free(&s->subs[smallest]);
    }
}

/* Ranks other than 0: run what rank 0 asks until it says stop. */
static int worker_loop(struct sweep *s)
{
    int rank;
    MPI_Comm_rank(s->world, &rank);
    for (;;) {
        double cmd[CMD_LEN];
        if (mpi_check(MPI_Recv(cmd, CMD_LEN, MPI_DOUBLE, rank & (rank - 1),
                               CMD_TAG, s->ctl_world, MPI_STATUS_IGNORE),
                      "waiting for a command") != MPI_SUCCESS ||
            command_forward(s, rank, cmd) != MPI_SUCCESS) {
            return 1;
        }
        if (cmd[CMD_OP] == OP_STOP) {
            return 0;
        }
        int procs = (int)cmd[CMD_PROCS], ppn = (int)cmd[CMD_PPN];
        if (placement_of(s, ppn)->pos[rank] >= procs) {
            continue; /* passed on to ranks of the communicator */
        }
        int slot = sub_find(s, procs, ppn);
        if (cmd[CMD_OP] == OP_FREE) {
            if (slot >= 0) { /* always: rank 0 frees only what it made */
                sub_free(&s->subs[slot]);
            }
            continue;
        }
        if (cmd[CMD_OP] == OP_CREATE) {
            if (sub_create_in_free_slot(s, procs, ppn,
                                        cmd[CMD_NODE_LEADERS] != 0) != 0) {
                return 1;
            }
            continue;
        }
        if (slot < 0) {
            fprintf(stderr,
                    "autotune: no communicator of %d ranks at placement "
                    "%d\n",
                    procs, ppn);
            return 1;
        }
        struct measure_request req;
        struct measurement m;
        request_from_command(cmd, &req);
        req.nodes = s->subs[slot].nodes;
        /* rank 0 reports */
        measure_run(&req, s->subs[slot].comm, s->subs[slot].ctl, &m);
    }
}

/* Rank 0: whether the clock offsets of the communicator of procs ranks
 * of placement p are due to be measured (never with one global clock),
 * marking them measured. */
static int clock_sync_due(struct sweep *s, const struct placement *p, int procs)
{
    double now = MPI_Wtime();
    int is_due = 0;
    for (int i = 1; i < procs && !s->is_clock_global; i++) {
        double at = s->synced_at[p->ranks[i]];
        is_due |= at < 0 || now - at > CLOCK_RESYNC_S;
    }
    for (int i = 0; i < procs && is_due; i++) {
        s->synced_at[p->ranks[i]] = now;
    }
    return is_due;
}

/* The oracle: a journal hit, a not-applicable record, or a new experiment
 * journaled before it is returned. */
/* The pattern a record of (the current collective, procs, the current
 * ppn, msg_bytes) is timed under: measure.arrival's; under "profile", the
 * grid point's of that key (its recorded calls, if it has them), or (a
 * surrogate's pipeline on fewer ranks than any point) the current point's
 * shape. */
static void record_pattern(const struct sweep *s, int procs, long msg_bytes,
                           struct config_measure *m)
{
    const struct config *c = s->cfg;
    m->arrival = c->measure.arrival;
    m->spread_us = c->measure.spread_us;
    m->n_vectors = 0;
    m->vectors_us = NULL;
    m->next_coll = NULL;
    m->next_msg_bytes = 0;
    m->next_gap_us = 0;
    if (c->measure.arrival != ARRIVAL_PROFILE) {
        return;
    }
    m->arrival = s->arrival;
    m->spread_us = s->spread_us;
    for (int i = 0; i < c->n_points; i++) {
        const struct config_point *gp = &c->points[i];
        if (coll_table_index(c->colls[gp->ci]) == s->coll_index &&
            gp->procs == procs && gp->ppn == s->ppn &&
            gp->msg_bytes == msg_bytes) {
            m->arrival = gp->arrival;
            m->spread_us = gp->spread_us;
            m->n_vectors = gp->n_vectors;
            m->vectors_us = gp->vectors_us;
            m->next_coll = gp->next_coll;
            m->next_msg_bytes = gp->next_msg_bytes;
            m->next_gap_us = gp->next_gap_us;
            return;
        }
    }
}

static int sweep_time(struct sweep *s, int procs, long msg_bytes,
                      const struct search_method *method, double *time_us)
{
    const struct coll_def *coll = coll_table[s->coll_index];
    const char *name = measure_method_name(coll, method->alg);
    int is_baseline = method->alg == MEASURE_DEFAULT;
    const struct measurement *rec =
        journal_find(s->journal, coll->name, procs, s->ppn, msg_bytes, name,
                     method->seg_bytes);
    if (rec) {
        *(is_baseline ? &s->baseline.reused : &s->experiments_reused) += 1;
        *time_us = rec->is_applicable ? rec->mean_us : -1;
        return 0;
    }
    struct measurement m;
    struct measure_request want = {.coll = coll,
                                   .alg = method->alg,
                                   .is_native =
                                       s->cfg->backend == BACKEND_NATIVE,
                                   .msg_bytes = msg_bytes,
                                   .seg_bytes = method->seg_bytes};
    /* A node-aware method applies on the layout of the point's
     * communicator: made now if it is new. */
    if (coll_method_plan(coll, method->alg) && point_placement(s) > 1) {
        int slot = sub_prepare(s, procs, point_placement(s));
        if (slot < 0) {
            return -1;
        }
        want.nodes = s->subs[slot].nodes;
    }
    if (!measure_applies(&want, procs)) {
        memset(&m, 0, sizeof m);
        snprintf(m.collective, sizeof m.collective, "%s", coll->name);
        snprintf(m.algorithm, sizeof m.algorithm, "%s", name);
        m.procs = procs;
        m.ppn = s->ppn;
        m.msg_bytes = msg_bytes;
        m.segment_bytes = method->seg_bytes;
        s->not_applicable++;
    } else {
        const struct config *c = s->cfg;
        int ppn = point_placement(s);
        const struct placement *p = placement_of(s, ppn);
        struct config_measure pattern;
        if (!p) {
            return -1;
        }
        record_pattern(s, procs, msg_bytes, &pattern);
        double cmd[CMD_LEN] = {
            [CMD_OP] = OP_MEASURE,
            [CMD_COLL] = s->coll_index,
            [CMD_PROCS] = procs,
            [CMD_PPN] = ppn,
            [CMD_ALG] = method->alg,
            [CMD_MSG_BYTES] = (double)msg_bytes,
            [CMD_SEG_BYTES] = method->seg_bytes,
            [CMD_FANOUT] = c->chain_fanout,
            [CMD_WARMUP] = c->measure.warmup,
            [CMD_MIN_REPS] = c->measure.min_reps,
            [CMD_MAX_REPS] = c->measure.max_reps,
            [CMD_RSE] = c->measure.rse,
            [CMD_ARRIVAL] = pattern.arrival,
            [CMD_SPREAD_US] = pattern.spread_us,
            [CMD_VECTORS] = pattern.n_vectors,
            [CMD_NEXT_COLL] =
                pattern.next_coll ? coll_table_index(pattern.next_coll) : -1,
            [CMD_NEXT_BYTES] = (double)pattern.next_msg_bytes,
            [CMD_NEXT_GAP_US] = pattern.next_gap_us,
            [CMD_NATIVE] = want.is_native,
            [CMD_CLOCK_SYNC] = clock_sync_due(s, p, procs),
        };
        command_set_method(cmd, coll, method->alg);
        struct measure_request req;
        if (!s->has_left_epoch && clock_left_epoch()) {
            s->has_left_epoch = 1;
            fprintf(stderr,
                    "autotune: the simulated clock passed 2^%d s: "
                    "from here a resumed sweep may time a method "
                    "up to about 0.1 %% differently\n",
                    CLOCK_EPOCH_LOG2 + 1);
        }
        progress_experiment(s->progress, name, method->seg_bytes);
        int slot = sub_prepare(s, procs, ppn);
        if (slot < 0 || command_forward(s, 0, cmd) != MPI_SUCCESS) {
            return -1;
        }
        request_from_command(cmd, &req);
        req.nodes = s->subs[slot].nodes;
        req.params.vectors_us = pattern.vectors_us;
        if (measure_run(&req, s->subs[slot].comm, s->subs[slot].ctl, &m) != 0) {
            return -1;
        }
        m.ppn = s->ppn;
        if (is_baseline) {
            s->baseline.measured++;
        } else {
            s->experiments_new++;
            s->experiment_s += m.cost_s;
        }
        s->point_measured = 1;
    }
    if (journal_append(s->journal, &m) != 0) {
        return -1;
    }
    *time_us = m.is_applicable ? m.mean_us : -1;
    return 0;
}

static int sweep_oracle(void *ctx, const struct search_point *p, int i,
                        double *time_us)
{
    return sweep_time(ctx, p->procs, p->msg_bytes, &p->methods[i], time_us);
}

/* The surrogate's pipeline on the first n_ranks ranks of the point's
 * placement (a record of the point (collective, n_ranks, ppn, message
 * size), like any other). With ranks_per_node, n_ranks is rounded up to
 * whole nodes, as the journal's layouts are: the chain then has a few
 * more hops than the tree's longest path, and the segment size it finds
 * is confirmed on the tree anyway. */
static int sweep_pipeline(void *ctx, const struct search_point *p, int n_ranks,
                          int seg_bytes, double *time_us)
{
    struct sweep *s = ctx;
    struct search_method m = {p->pipeline_alg, seg_bytes};
    int ppn = point_placement(s);
    if (ppn > 1 && n_ranks > 0) {
        n_ranks = (n_ranks + ppn - 1) / ppn * ppn;
    }
    if (p->pipeline_alg < 0 || n_ranks < 1 || n_ranks > p->procs ||
        n_ranks > s->world_size) {
        *time_us = -1;
        return 0;
    }
    return sweep_time(s, n_ranks, p->msg_bytes, &m, time_us);
}

#ifdef SMPI_H
/* Under SMPI the simulated network is part of what was measured: the
 * platform (rank 0's host name without its number, e.g. "grig" of
 * "grig-0", "robust-01" of "robust-01-0") and the eager model, so a journal
 * is never resumed on another one. */
static void smpi_settings(struct journal_settings *settings)
{
    char host[MPI_MAX_PROCESSOR_NAME] = "";
    int len = 0;
    MPI_Get_processor_name(host, &len);
    while (len > 0 && host[len - 1] >= '0' && host[len - 1] <= '9') {
        host[--len] = '\0';
    }
    if (len > 0 && (host[len - 1] == '-' || host[len - 1] == '_')) {
        host[--len] = '\0';
    }
    journal_settings_add(settings, "smpi.platform", "%s", len ? host : "?");
    journal_settings_add(settings, "smpi.async_small_thresh", "%d",
                         sg_cfg_get_int("smpi/async-small-thresh"));
    journal_settings_add(settings, "smpi.send_is_detached_thresh", "%d",
                         sg_cfg_get_int("smpi/send-is-detached-thresh"));
}
#endif

/* measure.arrival = "profile": a fingerprint of every grid point's
 * pattern (each point's line chained to the CRC so far). */
static uint32_t profile_patterns_crc(const struct config *c)
{
    uint32_t crc = 0;
    for (int i = 0; i < c->n_points; i++) {
        const struct config_point *gp = &c->points[i];
        char line[256];
        int n = snprintf(line, sizeof line, "%08x %s %d %d %ld %s %.17g",
                         (unsigned)crc, c->colls[gp->ci]->name, gp->procs,
                         gp->ppn, gp->msg_bytes,
                         config_arrival_names[gp->arrival], gp->spread_us);
        crc = journal_crc32(line,
                            n < (int)sizeof line ? (size_t)n : sizeof line - 1);
        /* recorded calls chained after (none: the CRC of older journals) */
        for (long k = 0; k < (long)gp->n_vectors * gp->procs; k++) {
            n = snprintf(line, sizeof line, "%08x %.17g", (unsigned)crc,
                         gp->vectors_us[k]);
            crc = journal_crc32(line, (size_t)n);
        }
        if (gp->next_coll) {
            n = snprintf(line, sizeof line, "%08x next %s %ld %.17g",
                         (unsigned)crc, gp->next_coll->name, gp->next_msg_bytes,
                         gp->next_gap_us);
            crc = journal_crc32(line, n < (int)sizeof line ? (size_t)n
                                                           : sizeof line - 1);
        }
    }
    return crc;
}

static void settings_of(const struct config *c, const int *node_of_rank,
                        struct journal_settings *settings)
{
    char version[MPI_MAX_LIBRARY_VERSION_STRING] = "";
    int len = 0;
    MPI_Get_library_version(version, &len);
    /* The library's name and version: up to the first comma or newline. */
    version[strcspn(version, ",\n")] = '\0';
    for (char *p = version; *p; p++) {
        if (*p == ' ' || *p == '\t') {
            *p = '_';
        }
    }
    memset(settings, 0, sizeof *settings);
    journal_settings_add(settings, "library", "%s", version);
    journal_settings_add(settings, "backend", "%s",
                         config_backend_names[c->backend]);
    journal_settings_add(settings, "datatype", "uint8_sum");
    journal_settings_add(settings, "measure.warmup", "%d", c->measure.warmup);
    journal_settings_add(settings, "measure.min_reps", "%d",
                         c->measure.min_reps);
    journal_settings_add(settings, "measure.max_reps", "%d",
                         c->measure.max_reps);
    journal_settings_add(settings, "measure.rse", "%g", c->measure.rse);
    journal_settings_add(settings, "measure.start", "window");
    journal_settings_add(settings, "measure.clock", "%s",
                         clock_is_global() ? "global" : "ping-pong");
    /* Only when not "together", so that older journals resume. */
    if (c->measure.arrival == ARRIVAL_BARRIER) {
        journal_settings_add(settings, "measure.arrival", "barrier");
    } else if (c->measure.arrival == ARRIVAL_PROFILE) {
        /* the profile's patterns, too long for a setting: their CRC */
        journal_settings_add(settings, "measure.arrival", "profile");
        journal_settings_add(settings, "measure.arrival.patterns", "%08x",
                             profile_patterns_crc(c));
    } else if (c->measure.arrival != ARRIVAL_TOGETHER) {
        journal_settings_add(settings, "measure.arrival", "%s:%gus",
                             config_arrival_names[c->measure.arrival],
                             c->measure.spread_us);
    }
    journal_settings_add(settings, "chain_fanout", "%d", c->chain_fanout);
    /* Only with ranks_per_node, so that journals and configs without it
     * keep their settings; with it, a sweep as launched (recorded as one
     * rank per node) is never resumed on whole nodes, nor the reverse. */
    int block = 0;
    struct nodes_layout launched;
    if (c->is_ppn_given) {
        journal_settings_add(settings, "ranks_per_node.placement", "block");
        /* emulated nodes (a testing aid) are not the real ones: a journal
         * of one is never resumed on the other */
        if (nodes_parse_emulation(getenv(NODES_ENV), &block) == 0 &&
            block > 0) {
            journal_settings_add(settings, "ranks_per_node.nodes", "block:%d",
                                 block);
        }
    } else {
        /* As launched, recorded as one rank per node: where those ranks
         * share nodes, the journal says how, so that it is never resumed
         * on another launch (one that does not share, say) whose times
         * its one-rank-per-node rows would mix with. */
        nodes_layout(node_of_rank, c->procs[c->n_procs - 1], &launched);
        if (launched.n_nodes < c->procs[c->n_procs - 1]) {
            journal_settings_add(settings, "ranks_per_node.launched",
                                 "%d_ranks_on_%d_nodes",
                                 c->procs[c->n_procs - 1], launched.n_nodes);
        }
    }
    baseline_add_setting(c, settings);
#ifdef SMPI_H
    smpi_settings(settings);
#endif
}

/* Without ranks_per_node, one line if the ranks the sweep times share
 * nodes (they are timed as launched and recorded as one rank per node),
 * and one if the config lists node-aware methods (never timed). */
static void note_shared_nodes(const struct config *c, const int *node_of_rank)
{
    int largest = c->procs[c->n_procs - 1];
    struct nodes_layout used;
    if (c->is_ppn_given) {
        return;
    }
    if (c->has_node_methods) {
        printf("autotune: note: without ranks_per_node no node-aware method "
               "is timed (each is recorded as not applicable)\n");
    }
    nodes_layout(node_of_rank, largest, &used);
    if (used.n_nodes < largest) {
        printf("autotune: note: world ranks 0-%d share %d node%s; without "
               "ranks_per_node the sweep times them as launched and records "
               "one rank per node (set ranks_per_node to time real "
               "layouts)\n",
               largest - 1, used.n_nodes, used.n_nodes == 1 ? "" : "s");
    }
}

static int write_profile(FILE *f, const void *profile)
{
    return profile_write(f, profile);
}

static int load_model(const char *config_path, const struct config *c,
                      struct model_params **out);

/* Rank 0's checks before anything is measured (all before the run
 * directory is made); it holds the run directory's lock from here to the
 * end of the sweep. *model: the calibration search = "model" needs. */
static int controller_setup(const char *config_path, int is_fresh,
                            int world_size, const int *node_of_rank,
                            struct config *c, struct rundir_lock **lock,
                            struct journal **journal,
                            struct model_params **model)
{
    struct journal_settings settings;
    char path[2048];
    if (config_load(config_path, c) != 0) {
        return -1;
    }
    if (config_check_world(c, world_size, node_of_rank) != 0 ||
        baseline_check_backend(c) != 0 ||
        load_model(config_path, c, model) != 0 ||
        store_make_dir(c->output) != 0 ||
        rundir_lock_open(c->output, lock) != 0) {
        config_free(c);
        return -1;
    }
    note_shared_nodes(c, node_of_rank);
    settings_of(c, node_of_rank, &settings);
    if ((is_fresh && rundir_start_fresh(c->output) != 0) ||
        rundir_path(path, sizeof path, c->output, RUNDIR_JOURNAL) != 0 ||
        journal_open(path, &settings, journal) != 0) {
        rundir_lock_close(*lock);
        config_free(c);
        return -1;
    }
    /* How many points the grid has, for the offline commands to say how
     * much of an unfinished run is done. */
    if (journal_append_grid(*journal, grid_points(c)) != 0) {
        journal_close(*journal);
        rundir_lock_close(*lock);
        config_free(c);
        return -1;
    }
    /* The profile, for `report` to say what share of the application's
     * collective time the run covers. */
    if (c->profile &&
        (rundir_path(path, sizeof path, c->output, RUNDIR_PROFILE) != 0 ||
         store_write_file(path, write_profile, c->profile) != 0)) {
        journal_close(*journal);
        rundir_lock_close(*lock);
        config_free(c);
        return -1;
    }
    return 0;
}

/* Ctrl-C (SIGINT) or a kill (SIGTERM) ends the sweep at once, as kill -9
 * would, and that is safe: every record is on disk before it is used and
 * a torn last line is dropped on resume. Rank 0 says one line instead of
 * the MPI library's or SimGrid's text; a signal-safe write, so the number
 * is kept ready. */
static volatile sig_atomic_t interrupt_points_done;
static char interrupt_lock[4096]; /* the run's lock, removed on the way out */
static volatile sig_atomic_t interrupt_is_quiet; /* not rank 0 */

static void on_interrupt(int sig)
{
    static const char head[] = "autotune: interrupted: ",
                      tail[] = " points done; the same command resumes\n";
    char line[sizeof head + sizeof tail + 24], digits[24];
    size_t n = 0, k = 0;
    long v = interrupt_points_done;
    do {
        digits[k++] = (char)('0' + v % 10);
        v /= 10;
    } while (v > 0 && k < sizeof digits);
    for (size_t i = 0; i + 1 < sizeof head; i++) {
        line[n++] = head[i];
    }
    while (k > 0) {
        line[n++] = digits[--k];
    }
    for (size_t i = 0; i + 1 < sizeof tail; i++) {
        line[n++] = tail[i];
    }
    if (!interrupt_is_quiet && write(STDERR_FILENO, line, n) < 0) {
        n = 0; /* nothing more to do: the process ends */
    }
    if (interrupt_lock[0]) {
        unlink(interrupt_lock);
    }
#ifndef SMPI_H
    /* mpirun forwards the line while the job lives: a moment for it, every
     * rank (mpirun's SIGKILL follows its SIGTERM by a second). */
    struct timespec moment = {0, 200000000};
    nanosleep(&moment, NULL);
#endif
    _exit(128 + sig);
}

/* Rank 0 with its journal and lock; under mpirun the other ranks too,
 * quietly (j and lock NULL); not under SMPI, whose ranks share one
 * process and its handler, the last one set. */
static void catch_interrupts(const struct journal *j,
                             const struct rundir_lock *lock)
{
    interrupt_is_quiet = !j;
    snprintf(interrupt_lock, sizeof interrupt_lock, "%s",
             lock ? rundir_lock_path(lock) : "");
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_interrupt;
    sigemptyset(&sa.sa_mask); /* one line when both come (smpirun's TERM) */
    sigaddset(&sa.sa_mask, SIGINT);
    sigaddset(&sa.sa_mask, SIGTERM);
    interrupt_points_done = j ? (sig_atomic_t)journal_point_count(j) : 0;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
}

/* Whether an adaptive grid walks with the corrected predictor: a
 * calibration and grid_options (max_penalty) set. */
static bool is_walk_predicting(const struct sweep *s)
{
    return s->model != NULL && s->cfg->grid_max_penalty > 0;
}

struct grid_results {
    struct measurement *optimal;  /* one per point */
    struct inferred_info *info;   /* per optimal row: its prediction */
    struct measurement *measured; /* every known result of the grid */
    size_t n_optimal, n_measured;
};

/* Journals the strategy's choice at a point and keeps its optimal row. */
static int finish_point(struct sweep *s, const struct search_point *point,
                        int best, struct grid_results *out)
{
    const struct coll_def *coll = coll_table[s->coll_index];
    struct point_result done = {
        .procs = point->procs, .ppn = s->ppn, .msg_bytes = point->msg_bytes};
    snprintf(done.collective, sizeof done.collective, "%s", coll->name);
    snprintf(done.strategy, sizeof done.strategy, "%s", s->cfg->search->name);
    if (best < 0) {
        snprintf(done.algorithm, sizeof done.algorithm, "-");
        fprintf(stderr,
                "autotune: no algorithm of %s can run at P=%d %ld "
                "bytes\n",
                coll->name, point->procs, point->msg_bytes);
        return journal_append_point(s->journal, &done);
    }
    const struct search_method *m = &point->methods[best];
    snprintf(done.algorithm, sizeof done.algorithm, "%s",
             coll_method_name(coll, m->alg));
    done.segment_bytes = m->seg_bytes;
    /* The journal keeps the strategy's choice; the optimal table gives
     * the point to the library where its default was measured faster. */
    out->info[out->n_optimal] = (struct inferred_info){-1, -1};
    if (table_point_optimum(s->journal, &done, &out->optimal[out->n_optimal]) ==
        0) {
        out->n_optimal++;
    }
    return journal_append_point(s->journal, &done);
}

/* What a point's search needs besides the sweep. */
struct point_walk {
    struct sweep *s;
    int ci; /* in the config's collectives */
    struct search_series *series;
    struct progress *progress;
    struct grid_results *out;
};

/* Searches one point (and times the baseline there), journals the choice
 * and keeps its optimal row; *chosen: the strategy's choice, alg -1 where
 * nothing can run. */
/* search = "model" needs the calibration `autotune model -c CONFIG` writes
 * into the run directory; other strategies need nothing. */
static int load_model(const char *config_path, const struct config *c,
                      struct model_params **out)
{
    char path[4096];
    double cost_s = 0;
    *out = NULL;
    if (strcmp(c->search->name, "model") != 0) {
        return 0;
    }
    if (rundir_path(path, sizeof path, c->output, RUNDIR_MODEL) != 0) {
        return -1;
    }
    if (access(path, R_OK) != 0) {
        fprintf(stderr,
                "%s:%d: search: \"model\" needs the calibration %s: %s "
                "(run `autotune model -c %s` first)\n",
                config_path, c->search_line, path, strerror(errno),
                config_path);
        return -1;
    }
    int rc = model_load(path, out, &cost_s);
    if (rc == 0) {
        printf("autotune: search = \"model\": the calibration of %s "
               "(%.3f s of experiments)\n",
               path, cost_s);
    }
    return rc;
}

static int sweep_point(struct point_walk *w, int procs, long msg_bytes,
                       struct search_method *chosen)
{
    struct sweep *s = w->s;
    const struct config *c = s->cfg;
    struct search_method methods[GRID_MAX_METHODS];
    int depths[CONFIG_MAX_ALGS];
    struct search_oracle oracle = {sweep_oracle, sweep_pipeline, s};
    struct search_point point;
    grid_search_point(&point, c->colls[w->ci], procs, msg_bytes,
                      c->chain_fanout, methods,
                      grid_point_methods(c, w->ci, msg_bytes, methods), depths,
                      &c->search_params);
    point.ppn = s->ppn;
    double predicted_us[GRID_MAX_METHODS];
    if (s->model) {
        if (grid_predict_methods(s->model, c->colls[w->ci], procs, s->ppn,
                                 msg_bytes, c->chain_fanout, point.methods,
                                 point.n_methods, predicted_us) != 0) {
            return -1;
        }
        point.predicted_us = predicted_us;
    }
    int best = -1;
    progress_point_start(w->progress, (struct progress_point){
                                          .collective = c->colls[w->ci]->name,
                                          .procs = procs,
                                          .ppn = s->ppn,
                                          .msg_bytes = msg_bytes});
    s->point_measured = 0;
    int rc = search_series_run(w->series, c->search, &point, &oracle, &best);
    if (rc == 0 && c->has_baseline) {
        rc = baseline_measure(&point, &oracle);
    }
    if (rc == 0) {
        /* The point's line and the count Ctrl-C reports change together:
         * a signal between them would say one point too few. */
        sigset_t stop, before;
        sigemptyset(&stop);
        sigaddset(&stop, SIGINT);
        sigaddset(&stop, SIGTERM);
        sigprocmask(SIG_BLOCK, &stop, &before);
        rc = finish_point(s, &point, best, w->out);
        interrupt_points_done = (sig_atomic_t)journal_point_count(s->journal);
        sigprocmask(SIG_SETMASK, &before, NULL);
    }
    progress_point_done(w->progress, s->point_measured);
    *chosen = best >= 0 ? methods[best] : (struct search_method){-1, 0};
    return rc;
}

/* grid = "adaptive": the walk's state for one collective. A label is an
 * index in methods; row[i] is point i's optimal row (or -1). The grid's
 * rows are the layouts (ppn, procs). */
struct adaptive_walk {
    struct point_walk *w;
    const int *procs; /* per row */
    const int *ppn;   /* per row */
    int n_procs;
    const long *sizes;
    int n_sizes;
    struct search_method methods[GRID_MAX_METHODS];
    int n_methods;
    long *row;
    double *chosen_us;
    /* search = "model": the corrected predictor over every candidate,
     * labelled before the walk (gp.n_labels of them) */
    struct grid_predictor gp;
};

/* The label of method m (an algorithm at a configured segment size, so
 * there is room). */
static int adaptive_label(struct adaptive_walk *a,
                          const struct search_method *m)
{
    int label = 0;
    while (label < a->n_methods &&
           grid_method_cmp(&a->methods[label], m) != 0) {
        label++;
    }
    if (label == a->n_methods) {
        a->methods[a->n_methods++] = *m;
    }
    return label;
}

static const struct measurement *adaptive_record(const struct adaptive_walk *a,
                                                 int pi, int mi, int label)
{
    const struct config *c = a->w->s->cfg;
    const struct coll_def *coll = c->colls[a->w->ci];
    return journal_find(a->w->s->journal, coll->name, a->procs[pi], a->ppn[pi],
                        a->sizes[mi],
                        coll_method_name(coll, a->methods[label].alg),
                        a->methods[label].seg_bytes);
}

static int adaptive_measure(void *ctx, int pi, int mi, int *label,
                            double *time_us)
{
    struct adaptive_walk *a = ctx;
    struct search_method chosen;
    size_t before = a->w->out->n_optimal;
    a->w->s->ppn = a->ppn[pi];
    int rc = sweep_point(a->w, a->procs[pi], a->sizes[mi], &chosen);
    *label = -1;
    *time_us = -1;
    if (rc != 0 || chosen.alg < 0) {
        return rc;
    }
    a->row[pi * a->n_sizes + mi] =
        a->w->out->n_optimal > before ? (long)before : -1;
    *label = adaptive_label(a, &chosen);
    const struct measurement *m = adaptive_record(a, pi, mi, *label);
    *time_us = m && m->is_applicable ? m->mean_us : -1;
    a->chosen_us[pi * a->n_sizes + mi] = *time_us;
    /* what the search timed there, for the predictor's residuals */
    for (int k = 0; a->gp.pred_us && k < a->gp.n_labels; k++) {
        const struct measurement *rec = adaptive_record(a, pi, mi, k);
        if (rec && rec->is_applicable && rec->mean_us > 0) {
            grid_predictor_seen(&a->gp, pi, mi, k, rec->mean_us);
        }
    }
    return 0;
}

/* search = "model": every candidate of the collective labelled and the
 * model's time of each at each point into a->gp. */
static int adaptive_predictions(struct adaptive_walk *a)
{
    const struct config *c = a->w->s->cfg;
    const struct coll_def *coll = c->colls[a->w->ci];
    struct search_method cands[GRID_MAX_METHODS];
    double predicted_us[GRID_MAX_METHODS];
    for (int mi = 0; mi < a->n_sizes; mi++) {
        int n = grid_point_methods(c, a->w->ci, a->sizes[mi], cands);
        for (int k = 0; k < n && a->n_methods < GRID_MAX_METHODS; k++) {
            adaptive_label(a, &cands[k]);
        }
    }
    a->gp = (struct grid_predictor){a->ppn,   a->procs,   a->n_procs,
                                    a->sizes, a->n_sizes, a->n_methods,
                                    NULL,     NULL,       NULL};
    if (grid_predictor_init(&a->gp) != 0) {
        return -1;
    }
    for (int k = 0; k < a->n_methods; k++) {
        a->gp.group[k] = a->methods[k].alg;
    }
    for (int pi = 0; pi < a->n_procs; pi++) {
        for (int mi = 0; mi < a->n_sizes; mi++) {
            int n = grid_point_methods(c, a->w->ci, a->sizes[mi], cands);
            if (grid_predict_methods(a->w->s->model, coll, a->procs[pi],
                                     a->ppn[pi], a->sizes[mi], c->chain_fanout,
                                     cands, n, predicted_us) != 0) {
                return -1;
            }
            for (int k = 0; k < n; k++) {
                int label = adaptive_label(a, &cands[k]);
                a->gp.pred_us[((size_t)pi * (size_t)a->n_sizes + (size_t)mi) *
                                  (size_t)a->gp.n_labels +
                              (size_t)label] = predicted_us[k];
            }
        }
    }
    return 0;
}

/* Known where the search timed that method at the point. */
static double adaptive_penalty(void *ctx, int pi, int mi, int label)
{
    struct adaptive_walk *a = ctx;
    const struct measurement *m = adaptive_record(a, pi, mi, label);
    double chosen_us = a->chosen_us[pi * a->n_sizes + mi];
    if (!m || !m->is_applicable || !(chosen_us > 0)) {
        return -1;
    }
    return tuning_penalty(m->mean_us, chosen_us);
}

/* The configured segment size between two labels', where that method is
 * a candidate at point (pi, mi) (search/refine.h). */
static int adaptive_between(void *ctx, int a, int b, double f, int pi, int mi)
{
    struct adaptive_walk *w = ctx;
    const struct config *c = w->w->s->cfg;
    struct search_method m, candidates[GRID_MAX_METHODS];
    (void)pi;
    if (grid_method_between(&w->methods[a], &w->methods[b], f, c->seg_sizes,
                            c->n_segs, &m) != 0) {
        return -1;
    }
    int n = grid_point_methods(c, w->w->ci, w->sizes[mi], candidates);
    for (int k = 0; k < n; k++) {
        if (grid_method_cmp(&candidates[k], &m) == 0) {
            return adaptive_label(w, &m);
        }
    }
    return -1;
}

/* One collective on the adaptive grid of layouts (ppn, procs) x sizes
 * (search/refine.h: refined along the ranks per node too): the walk
 * measures what it chooses (each point's optimal row appended in the
 * walk's order); then the rows are put in grid order, the inferred ones
 * (reps 0) among them. */
static int adaptive_collective(struct point_walk *w, const int *procs,
                               const int *ppn, int n_procs, const long *sizes,
                               int n_sizes)
{
    const struct config *c = w->s->cfg;
    size_t n = (size_t)n_procs * (size_t)n_sizes;
    size_t first = w->out->n_optimal;
    struct adaptive_walk *a = calloc(1, sizeof *a);
    struct refine_point *points = malloc(n * sizeof *points);
    struct measurement *rows = malloc(n * sizeof *rows);
    struct inferred_info *info = malloc(n * sizeof *info);
    int rc = a && points && rows && info ? 0 : -1;
    if (rc == 0) {
        a->w = w;
        a->procs = procs;
        a->ppn = ppn;
        a->n_procs = n_procs;
        a->sizes = sizes;
        a->n_sizes = n_sizes;
        a->row = malloc(n * sizeof *a->row);
        a->chosen_us = malloc(n * sizeof *a->chosen_us);
        rc = a->row && a->chosen_us ? 0 : -1;
    }
    for (size_t i = 0; rc == 0 && i < n; i++) {
        a->row[i] = -1;
        a->chosen_us[i] = -1;
    }
    struct refine_layers grid = {ppn, procs, n_procs, sizes, n_sizes};
    struct refine_params params = REFINE_PARAMS_DEFAULT;
    params.max_penalty = c->grid_max_penalty;
    params.budget = c->grid_budget;
    struct refine_oracle oracle = {adaptive_measure, adaptive_penalty,
                                   adaptive_between, a};
    /* with a calibration (search = "model") and grid_options set, the
     * corrected predictor */
    struct refine_predictor predictor = {grid_predictor_predict,
                                         a ? &a->gp : NULL};
    bool is_predicting = is_walk_predicting(w->s);
    rc = rc == 0 && is_predicting ? adaptive_predictions(a) : rc;
    rc = rc == 0
             ? refine_walk_layers_predicted(&grid, &params, &oracle,
                                            is_predicting ? &predictor : NULL,
                                            points)
             : rc;
    size_t n_rows = 0;
    for (size_t i = 0; rc == 0 && i < n; i++) {
        const struct refine_point *pt = &points[i];
        struct measurement *m = &rows[n_rows];
        if (pt->is_measured) {
            if (a->row[i] >= 0) {
                info[n_rows] = w->out->info[a->row[i]];
                rows[n_rows++] = w->out->optimal[a->row[i]];
            }
            continue;
        }
        if (pt->label < 0) {
            continue;
        }
        const struct coll_def *coll = c->colls[w->ci];
        memset(m, 0, sizeof *m);
        snprintf(m->collective, sizeof m->collective, "%s", coll->name);
        snprintf(m->algorithm, sizeof m->algorithm, "%s",
                 coll_method_name(coll, a->methods[pt->label].alg));
        m->procs = procs[i / (size_t)n_sizes];
        m->ppn = ppn[i / (size_t)n_sizes];
        m->msg_bytes = sizes[i % (size_t)n_sizes];
        m->segment_bytes = a->methods[pt->label].seg_bytes;
        m->mean_us = pt->time_us > 0 ? pt->time_us : 0;
        m->is_applicable = 1;
        info[n_rows] = (struct inferred_info){pt->uncertainty, pt->penalty};
        n_rows++;
    }
    if (rc == 0) {
        memcpy(w->out->optimal + first, rows, n_rows * sizeof *rows);
        memcpy(w->out->info + first, info, n_rows * sizeof *info);
        w->out->n_optimal = first + n_rows;
    }
    if (a) {
        free(a->row);
        free(a->chosen_us);
        grid_predictor_free(&a->gp);
    }
    free(a);
    free(points);
    free(rows);
    free(info);
    return rc;
}

/* Walks the grid in a fixed order (collectives as configured, procs and
 * message sizes ascending; a profile's points costliest first), so tables
 * never depend on the run's history; an adaptive grid walks each collective
 * as search/refine.c decides. */
static int controller_loop(struct sweep *s, struct grid_results *out)
{
    const struct config *c = s->cfg;
    struct progress progress;
    struct point_walk w = {s, 0, search_series_create(), &progress, out};
    struct config_point *points = NULL;
    int rc = w.series ? 0 : -1;

    progress_start(&progress, c);
    s->progress = &progress;
    int *procs = malloc((size_t)c->n_layouts * sizeof *procs);
    int *ppn = malloc((size_t)c->n_layouts * sizeof *ppn);
    rc = procs && ppn ? rc : -1;
    if (c->is_grid_adaptive) {
        /* the layouts, ppn-major and ascending: the rows of one refined
         * grid of ppn x procs x sizes per collective */
        for (int li = 0; li < c->n_layouts; li++) {
            procs[li] = c->layouts[li].procs;
            ppn[li] = c->layouts[li].ppn;
        }
        for (int ci = 0; ci < c->n_colls && rc == 0; ci++) {
            const long *sizes;
            int n_sizes = grid_msg_sizes(c, ci, &sizes);
            s->coll_index = coll_table_index(c->colls[ci]);
            w.ci = ci;
            rc = c->n_layouts
                     ? adaptive_collective(&w, procs, ppn, c->n_layouts, sizes,
                                           n_sizes)
                     : 0;
        }
    } else {
        long n_points = grid_points(c);
        rc = rc == 0 ? grid_list_points(c, &points) : rc;
        for (long i = 0; i < n_points && rc == 0; i++) {
            const struct config_point *gp = &points[i];
            struct search_method chosen;
            s->coll_index = coll_table_index(c->colls[gp->ci]);
            s->ppn = gp->ppn;
            s->arrival = gp->arrival;
            s->spread_us = gp->spread_us;
            w.ci = gp->ci;
            rc = sweep_point(&w, gp->procs, gp->msg_bytes, &chosen);
        }
    }
    free(procs);
    free(ppn);
    free(points);
    progress_finish(&progress);
    s->progress = NULL;
    search_series_destroy(w.series);
    return rc;
}

/* measurements.csv: every recorded, applicable method of the grid's points,
 * in grid and method order. */
static int collect_measurements(const struct sweep *s, struct grid_results *out)
{
    const struct config *c = s->cfg;
    struct search_method methods[GRID_MAX_METHODS];
    size_t cap = 1024;
    out->measured = malloc(cap * sizeof *out->measured);
    if (!out->measured) {
        return -1;
    }
    struct config_point *points;
    if (grid_list_points(c, &points) != 0) {
        return -1;
    }
    for (long i = 0; i < grid_points(c); i++) {
        const struct config_point *gp = &points[i];
        const struct coll_def *coll = c->colls[gp->ci];
        int n = grid_point_methods(c, gp->ci, gp->msg_bytes, methods);
        /* the baseline's row after the point's methods */
        methods[n++] = (struct search_method){MEASURE_DEFAULT, 0};
        for (int k = 0; k < n; k++) {
            const struct measurement *m = journal_find(
                s->journal, coll->name, gp->procs, gp->ppn, gp->msg_bytes,
                measure_method_name(coll, methods[k].alg),
                methods[k].seg_bytes);
            if (!m || !m->is_applicable) {
                continue;
            }
            if (out->n_measured == cap) {
                cap *= 2;
                struct measurement *grown =
                    realloc(out->measured, cap * sizeof *grown);
                if (!grown) {
                    free(points);
                    return -1;
                }
                out->measured = grown;
            }
            out->measured[out->n_measured++] = *m;
        }
    }
    free(points);
    return 0;
}

static int write_tables(const struct sweep *s, struct grid_results *r)
{
    char path[2048];
    const char *dir = s->cfg->output;
    if (collect_measurements(s, r) != 0) {
        fprintf(stderr, "autotune: out of memory\n");
        return -1;
    }
    if (rundir_path(path, sizeof path, dir, RUNDIR_MEASUREMENTS) != 0 ||
        table_write_measurements(path, r->measured, r->n_measured) != 0 ||
        rundir_path(path, sizeof path, dir, RUNDIR_OPTIMAL) != 0 ||
        (s->cfg->is_grid_adaptive
             ? table_write_optimal_marked(path, r->optimal, r->n_optimal)
             : table_write_optimal(path, r->optimal, r->n_optimal)) != 0 ||
        (s->cfg->is_grid_adaptive && is_walk_predicting(s) &&
         (rundir_path(path, sizeof path, dir, RUNDIR_INFERRED) != 0 ||
          table_write_inferred(path, r->optimal, r->info, r->n_optimal) !=
              0)) ||
        rundir_path(path, sizeof path, dir, RUNDIR_SPEEDUP) != 0 ||
        baseline_write_speedup(s->journal, path, r->optimal, r->n_optimal) !=
            0) {
        return -1;
    }
    return 0;
}

static int make_control(struct sweep *s)
{
    s->synced_at = malloc((size_t)s->world_size * sizeof *s->synced_at);
    if (!s->synced_at || mpi_check(MPI_Comm_dup(s->world, &s->ctl_world),
                                   "creating a communicator") != MPI_SUCCESS) {
        return -1;
    }
    for (int i = 0; i < s->world_size; i++) {
        s->synced_at[i] = -1;
    }
    return 0;
}

static void free_communicators(struct sweep *s)
{
    sub_free_all(s);
    if (s->ctl_world != MPI_COMM_NULL) {
        MPI_Comm_free(&s->ctl_world);
    }
    free(s->synced_at);
}

int sweep_main(const char *config_path, int is_fresh)
{
    struct sweep s = {.ctl_world = MPI_COMM_NULL,
                      .is_clock_global = clock_is_global()};
    struct config cfg;
    struct rundir_lock *lock = NULL;
    struct grid_results results = {0};
    int rank, world_size, status = 1;
    int is_setup = 0;
    double start = progress_now();

    MPI_Comm_dup(MPI_COMM_WORLD, &s.world);
    MPI_Comm_set_errhandler(s.world, MPI_ERRORS_RETURN);
    MPI_Comm_rank(s.world, &rank);
    MPI_Comm_size(s.world, &world_size);

    /* Every rank learns every rank's node, before anything is recorded. */
    int block = 0;
    const char *emulated = getenv(NODES_ENV);
    if (rank == 0 && nodes_parse_emulation(emulated, &block) != 0) {
        fprintf(stderr,
                "autotune: %s=%s: not block:K (K >= 1 world ranks on each "
                "emulated node)\n",
                NODES_ENV, emulated);
        block = -1;
    }
    MPI_Bcast(&block, 1, MPI_INT, 0, s.world);
    if (block < 0) {
        goto done;
    }
    s.world_size = world_size;
    s.node_of_rank = malloc((size_t)world_size * sizeof *s.node_of_rank);
    int n_nodes = 0;
    if (!s.node_of_rank ||
        mpi_check(nodes_of_comm(s.world, block, s.node_of_rank, &n_nodes),
                  "finding the nodes") != MPI_SUCCESS) {
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    if (rank == 0 &&
        controller_setup(config_path, is_fresh, world_size, s.node_of_rank,
                         &cfg, &lock, &s.journal, &s.model) == 0) {
        is_setup = 1;
        s.cfg = &cfg;
        const char *trace = getenv(SWEEP_TRACE_ENV);
        s.is_tracing = trace && *trace && strcmp(trace, "0") != 0;
    }
    MPI_Bcast(&is_setup, 1, MPI_INT, 0, s.world);
    if (!is_setup) {
        goto done;
    }
    if (make_control(&s) != 0) {
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    clock_enter_epoch();
    measure_settle(s.world);

    if (rank != 0) {
#ifndef SMPI_H
        catch_interrupts(NULL, NULL);
#endif
        status = worker_loop(&s);
        goto done;
    }
    catch_interrupts(s.journal, lock);
    results.optimal =
        calloc((size_t)grid_points(&cfg), sizeof *results.optimal);
    results.info = calloc((size_t)grid_points(&cfg), sizeof *results.info);
    int rc =
        results.optimal && results.info ? controller_loop(&s, &results) : -1;
    broadcast_stop(&s);
    if (rc == 0 && write_tables(&s, &results) == 0) {
        printf("autotune: %ld point%s, %ld experiment%s run (%.3f s of "
               "experiments), %ld taken from the journal, %ld not "
               "applicable; %.1f s wall\n",
               grid_points(&cfg), grid_points(&cfg) == 1 ? "" : "s",
               s.experiments_new, s.experiments_new == 1 ? "" : "s",
               s.experiment_s, s.experiments_reused, s.not_applicable,
               progress_now() - start);
        if (cfg.is_grid_adaptive) {
            size_t measured = 0;
            for (size_t i = 0; i < results.n_optimal; i++) {
                measured += results.optimal[i].reps > 0;
            }
            printf("autotune: adaptive grid: %zu of %zu points measured, "
                   "the others inferred (optimal.csv, column measured)\n",
                   measured, results.n_optimal);
        }
        baseline_print_summary(s.journal, &s.baseline, results.optimal,
                               results.n_optimal);
        printf("autotune: results in %s/ (optimal.csv, measurements.csv, "
               "%sjournal)\n",
               cfg.output, cfg.has_baseline ? "speedup.csv, " : "");
        status = 0;
    } else {
        fprintf(stderr,
                "autotune: stopped; what was measured is in %s/"
                "journal and the same command resumes\n",
                cfg.output);
    }
done:
    if (rank == 0 && is_setup) {
        interrupt_lock[0] = '\0'; /* from here on, not ours to remove */
        journal_close(s.journal);
        rundir_lock_close(lock);
        config_free(&cfg);
    }
    model_params_destroy(s.model);
    free(results.optimal);
    free(results.info);
    free(results.measured);
    free_communicators(&s);
    for (int i = 0; i < s.n_placements; i++) {
        placement_destroy(s.placements[i]);
    }
    free(s.placements);
    free(s.node_of_rank);
    measure_free_buffers();
    native_close();
    MPI_Comm_free(&s.world);
    return status;
}
