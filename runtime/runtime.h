/* libautotune: what the PMPI layer's files share. The decision and the
 * counters are per process and read-only after MPI_Init but for the
 * counters; every choice depends only on what all ranks of a call agree on
 * (communicator size, message bytes, root, op), so all ranks choose alike. */
#ifndef AUTOTUNE_RUNTIME_H
#define AUTOTUNE_RUNTIME_H

#include <mpi.h>
#include <stdbool.h>
#include <stdint.h>

#include "collectives/collectives.h"
#include "collectives/node.h"
#include "collectives/nodes.h"

/* The collectives libautotune intercepts (one MPI_ function each,
 * runtime/intercept.c), in the order of autotune_coll_name's table. */
enum autotune_coll {
    AUTOTUNE_BCAST,
    AUTOTUNE_REDUCE,
    AUTOTUNE_SCATTER,
    AUTOTUNE_GATHER,
    AUTOTUNE_ALLREDUCE,
    AUTOTUNE_ALLGATHER,
    AUTOTUNE_ALLTOALL,
    AUTOTUNE_BARRIER,
    AUTOTUNE_N_COLLS
};

/* The collective's name in collectives/ (coll_find) and in decisions and
 * profiles: runtime/'s one list of them. */
static inline const char *autotune_coll_name(enum autotune_coll coll)
{
    static const char *const names[AUTOTUNE_N_COLLS] = {
        "bcast",     "reduce",    "scatter",  "gather",
        "allreduce", "allgather", "alltoall", "barrier"};
    return names[coll];
}

/* Why a call went to the MPI library (PMPI_) instead of an algorithm of
 * collectives/; autotune_fallback_names says it in AUTOTUNE_VERBOSE. */
enum autotune_fallback {
    AUTOTUNE_RUN = -1,    /* not a fallback: the decision's algorithm runs */
    AUTOTUNE_NO_DECISION, /* no usable AUTOTUNE_DECISION, or not started */
    AUTOTUNE_NOT_TUNED,   /* the decision has no tree for the collective */
    AUTOTUNE_DEFAULT,     /* the decision says default */
    AUTOTUNE_OUTSIDE,   /* outside the tuned range, AUTOTUNE_OUTSIDE=library */
    AUTOTUNE_INTERCOMM, /* an inter-communicator */
    AUTOTUNE_PROCS,     /* the algorithm needs another communicator size */
    AUTOTUNE_NONCOMMUTATIVE, /* the algorithm needs a commutative operation */
    AUTOTUNE_TOO_LARGE, /* the message does not fit an int count of bytes */
    AUTOTUNE_THREAD_MULTIPLE, /* MPI_THREAD_MULTIPLE: libautotune stays out */
    AUTOTUNE_BOTTOM,    /* a reduction on MPI_BOTTOM (absolute addresses) */
    AUTOTUNE_PPN,       /* a regular layout of ranks per node not tuned for */
    AUTOTUNE_IRREGULAR, /* nodes hold different numbers of ranks */
    AUTOTUNE_NOT_CONSECUTIVE, /* a node's ranks are not consecutive ranks */
    AUTOTUNE_NODES,           /* a node-aware method that cannot run on the
                                 communicator's nodes (node_applies), or its node
                                 communicators could not be made */
    AUTOTUNE_N_FALLBACKS
};

/* What one call runs: an algorithm with its segment size, a node-aware
 * composition (plan, run on nodes), or the library (alg and plan NULL,
 * reason >= 0). comm is the private duplicate. */
struct autotune_choice {
    const struct coll_alg *alg;
    const struct node_plan *plan; /* borrowed from the decision's row */
    node_fn node_run;
    const struct node_comms *nodes; /* comm's, set when plan is */
    int seg_bytes;
    int chain_fanout;
    MPI_Comm comm;  /* set when alg is */
    int rank, size; /* in comm, set when alg is */
    enum autotune_fallback reason;
    int profile_index; /* AUTOTUNE_PROFILE's entry + 1; 0: not recorded */
    double start_s;    /* when the call began, if recorded */
};

/* Whether the library's collective takes the call. */
static inline bool autotune_is_library(const struct autotune_choice *ch)
{
    return !ch->alg && !ch->plan;
}

/* Runs the choice (not the library's) with args. */
static inline int autotune_run(const struct autotune_choice *ch,
                               const struct coll_args *args)
{
    return ch->plan ? ch->node_run(args, ch->nodes, ch->plan)
                    : ch->alg->run(args);
}

/* AUTOTUNE_PROFILE's counts on this rank (runtime/profile.c): one entry
 * per (collective, communicator size, processes per node, message bytes)
 * the rank called. */
struct autotune_profile_entry {
    int coll, procs, per_node;
    long msg_bytes;
    long calls;
    double seconds;
    /* Arrivals, kept per communicator and root (all ranks of a
     * communicator see its calls in one order, so the k-th call of each
     * rank's entry is the same call): the entry time of every stride-th
     * call, on the clock common to the ranks. */
    long comm_id;   /* autotune_comm_state's id */
    int root, rank; /* root -1 for a collective without one; rank in comm */
    long arrivals;  /* calls seen, the next one's number */
    long stride;    /* a power of two: when samples fill, every other goes */
    int n_samples, cap_samples; /* cap_samples -1: a sample was lost */
    double *samples;
    /* The entry of the call that most often came next on the same
     * communicator (a majority vote: next_votes > 0 when it stands), and
     * the time from a call's end to its entry, summed over the n_gaps
     * calls it followed; end_s the last call's end (PMPI_Wtime). */
    int next_entry;
    long next_votes, n_gaps;
    double gap_sum_s, end_s;
};
struct autotune_profile {
    int is_on;
    struct autotune_profile_entry *entries;
};
extern struct autotune_profile autotune_prof;

/* Rank 0 opens the profile's file (PATH.part until MPI_Finalize renames
 * it); on failure one line, and nothing is recorded. Collective over
 * MPI_COMM_WORLD. */
void autotune_profile_start(const char *path, int rank);
struct autotune_comm_state;
/* Records a call on s's communicator entered at start_s (PMPI_Wtime):
 * the index of its entry (made on first use), or -1 when out of memory.
 * root: the root's rank in the communicator, -1 for a collective without
 * one. */
int autotune_profile_entry(enum autotune_coll coll,
                           const struct autotune_comm_state *s, long msg_bytes,
                           int root, double start_s);
/* Merges every rank's entries at rank 0, which writes the profile; frees
 * them. Collective over MPI_COMM_WORLD. */
void autotune_profile_stop(void);

/* Ends a call that autotune_choose began: adds its time to its profile
 * entry, if recorded. Returns rc. */
static inline int autotune_call_end(const struct autotune_choice *ch, int rc)
{
    if (ch->profile_index > 0) {
        struct autotune_profile_entry *e =
            &autotune_prof.entries[ch->profile_index - 1];
        e->calls++;
        e->end_s = PMPI_Wtime();
        e->seconds += e->end_s - ch->start_s;
    }
    return rc;
}

/* MPI_Init and MPI_Init_thread call it after the library's init: reads
 * AUTOTUNE_DECISION (rank 0 reads, every rank gets its bytes) and the other
 * variables. Never fails: a bad input is one line from rank 0, and the
 * library's collectives run. Collective over MPI_COMM_WORLD. */
void autotune_start(int thread_level_required);
/* MPI_Finalize calls it before the library's finalize: AUTOTUNE_VERBOSE's
 * report (counts summed over ranks), then frees everything. Collective. */
void autotune_stop(void);

/* The choice for collective coll on the user's communicator comm, for
 * msg_bytes (the tuner's message size) and op (MPI_OP_NULL unless a
 * reduction) and root (the root's rank in comm, -1 for a collective
 * without one: the profile records it); counts it. is_bottom: the call passes
 * MPI_BOTTOM where no algorithm may take it (every rank of the call says the
 * same), so it goes to the library where an algorithm would run. Collective on
 * comm the first time a communicator is seen (its duplicate is made then).
 * MPI_SUCCESS, or the error code of making the duplicate. */
int autotune_choose(enum autotune_coll coll, MPI_Comm comm, long msg_bytes,
                    MPI_Op op, int root, bool is_bottom,
                    struct autotune_choice *out);
/* The collective's entry of collectives/' table (borrowed), found by its
 * name at autotune_start. */
const struct coll_def *autotune_coll_def(enum autotune_coll coll);

/* Which of a collective's tuned tables a communicator's calls use,
 * decided at its first call of that collective (runtime/setup.c). */
struct autotune_comm_table {
    bool is_known;
    int8_t reason;  /* enum autotune_fallback when table < 0 */
    int16_t table;  /* index among the collective's tables; -1: library */
    int16_t detail; /* the why line it counts in + 1; 0: none */
    /* The node-aware method last checked on the communicator's nodes + 1
     * (0: none), and whether it runs there with a commutative op (or
     * none): node_applies's loops once, not per call. */
    int node_method;
    bool is_node_fit;
};

/* What libautotune keeps about a user communicator (runtime/comm.c), in
 * an attribute on it. */
struct autotune_comm_state {
    MPI_Comm dup; /* private duplicate; MPI_COMM_NULL for an inter-comm */
    int rank, size;
    /* With AUTOTUNE_PROFILE, the same on every rank of the communicator
     * and on no other communicator: its rank 0's world rank times 2^32
     * plus the number of states that rank had made before. */
    long id;
    /* Its nodes, found when the state is made (zero for an
     * inter-communicator); node_counts says each node's ranks ("4, 4,
     * 3") when the layout is irregular. */
    struct nodes_layout layout;
    char node_counts[64];
    struct autotune_comm_table tables[AUTOTUNE_N_COLLS];
    /* The node and leaders' communicators of dup for node-aware methods,
     * made at the first call that runs one (autotune_comm_nodes), freed
     * with the state; is_nodes_failed: they could not be made (on some
     * rank), so node-aware methods go to the library on it. */
    struct node_comms *nodes;
    bool is_nodes_failed;
};
/* The last communicator looked up: most applications call their
 * collectives on one. Its delete callback forgets it. */
struct autotune_comm_last {
    MPI_Comm comm;
    struct autotune_comm_state *state;
};
extern struct autotune_comm_last autotune_comm_last;

/* Reads AUTOTUNE_NODE_OF_RANK (rank 0's value holds on every rank; a bad
 * one is one line from rank 0, and the real nodes count). Collective over
 * MPI_COMM_WORLD. */
void autotune_comm_start(int rank);
/* comm's state, made on first use (every rank being in that call: the
 * duplicate is made and the layout found then; freed with comm by an
 * attribute delete callback). MPI_SUCCESS, or an MPI error code. */
int autotune_comm_find(MPI_Comm comm, struct autotune_comm_state **out);

/* comm's state (borrowed), through the last one looked up. MPI_SUCCESS,
 * or an MPI error code. */
static inline int autotune_comm_get(MPI_Comm comm,
                                    struct autotune_comm_state **out)
{
    if (comm == autotune_comm_last.comm && autotune_comm_last.state) {
        *out = autotune_comm_last.state;
        return MPI_SUCCESS;
    }
    return autotune_comm_find(comm, out);
}
/* Whether every rank of comm says is_ok (false where they cannot agree).
 * Collective over comm. */
bool autotune_all_ok(MPI_Comm comm, bool is_ok);
/* s's node communicators (borrowed; NULL where they could not be made on
 * every rank), made on first use. Collective on s's communicator the first
 * time: every rank's call chose a node-aware method, so every rank is here
 * (the choice depends only on what the ranks of a call agree on). */
const struct node_comms *autotune_comm_nodes(struct autotune_comm_state *s);
/* How many communicators' node communicators this rank has made. */
long autotune_comm_nodes_made(void);
/* Frees the duplicates of the predefined communicators and the keyval. */
void autotune_comm_release(void);

#endif
