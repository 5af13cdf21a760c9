/* Collective algorithms on MPI point-to-point, one table row per algorithm.
 * Names are the stable keys (config, journal, trees, exports); numbers never
 * leave this module except through exporters. */
#ifndef COLLECTIVES_H
#define COLLECTIVES_H

#include <mpi.h>
#include <stddef.h>

/* Arguments of one collective call; every algorithm of a collective takes
 * the same ones, like the MPI call it replaces. */
struct coll_args {
    const void *sendbuf; /* reduce: this rank's operand */
    void *recvbuf;       /* bcast: the buffer on every rank; reduce: result
                            (significant at the root only) */
    int count; /* elements of one rank's block, as in the MPI call (scatter,
                  gather, allgather, alltoall: scount = rcount = count) */
    MPI_Datatype dtype;
    MPI_Op op; /* reductions only */
    int root;
    MPI_Comm comm;
    int seg_bytes;    /* 0 = unsegmented; otherwise rounded down to whole
                         elements, at least one element per segment */
    int chain_fanout; /* chain algorithms: number of chains (>= 1) */
};

typedef int (*coll_fn)(const struct coll_args *args);

/* Conditions an algorithm needs, checked once by the caller: an algorithm
 * whose needs are not met is recorded as not applicable, never run. */
enum coll_need {
    NEED_POW2_PROCS = 1u << 0,  /* communicator size a power of two */
    NEED_TWO_PROCS = 1u << 1,   /* exactly two ranks */
    NEED_COMMUTATIVE = 1u << 2, /* commutative reduction operation */
    NEED_EVEN_PROCS = 1u << 3   /* an even communicator size */
};

struct coll_alg {
    const char *name; /* stable key */
    coll_fn run;
    unsigned needs;      /* NEED_* */
    int is_segmented;    /* uses seg_bytes; unsegmented ones run with 0 */
    const char *summary; /* one line for `autotune --list` */
    /* Tree-shaped algorithms: hops on the longest root-to-leaf path for
     * n_ranks ranks, the length of the pipeline that stands in for the tree
     * when searching for a segment size ([Vadhiyar 2004]). NULL for the
     * others. */
    int (*depth)(int n_ranks, int chain_fanout);
};

/* How many blocks of count elements a buffer holds: the harness and the
 * tests size buffers from it. */
enum coll_blocks {
    BLOCKS_NONE = 0, /* the buffer is not used */
    BLOCKS_ONE,      /* one block on every rank */
    BLOCKS_ROOT_P,   /* P blocks at the root, not significant elsewhere */
    BLOCKS_P         /* P blocks on every rank */
};

struct coll_def {
    const char *name; /* "bcast", "reduce", ... */
    const struct coll_alg *algs;
    int n_algs;
    coll_fn reference; /* the MPI library's own collective */
    int is_reduction;  /* uses sendbuf and op */
    int is_rooted;     /* uses root */
    enum coll_blocks send_blocks, recv_blocks; /* bcast: NONE, ONE */
};

/* Where the elements of a datatype lie. */
struct coll_layout {
    MPI_Aint extent;      /* stride between consecutive elements */
    MPI_Aint true_lb;     /* first byte holding data, from the buffer pointer */
    MPI_Aint true_extent; /* bytes from the first to the last data byte */
    int size;             /* data bytes in one element */
};

/* The layout of dtype. A predefined datatype's is asked of the library
 * once and kept (it never changes and its handle is never freed), so a
 * call on MPI_BYTE or MPI_DOUBLE asks nothing; any other is asked each
 * time. MPI_SUCCESS or the library's error code. */
int coll_layout_lookup(MPI_Datatype dtype, struct coll_layout *layout);

/* coll_layout_lookup, MPI_BYTE's (one byte, extent 1) answered inline:
 * every block collective runs on it. */
static inline int coll_layout_get(MPI_Datatype dtype,
                                  struct coll_layout *layout)
{
    if (dtype == MPI_BYTE) {
        *layout = (struct coll_layout){
            .extent = 1, .true_lb = 0, .true_extent = 1, .size = 1};
        return MPI_SUCCESS;
    }
    return coll_layout_lookup(dtype, layout);
}

/* Bytes a buffer of this shape takes on a rank of an n_ranks communicator
 * for msg_bytes per block (the largest any rank needs). */
long coll_buffer_bytes(enum coll_blocks blocks, int n_ranks, long msg_bytes);

/* The collectives this build offers, in a fixed order. */
extern const struct coll_def *const coll_table[];
extern const int coll_table_size;

/* Under SMPI, while on, the algorithms' temporaries of 64 KiB and more
 * are SMPI_SHARED_MALLOCed: every simulated rank maps the same pages, so
 * their contents, and the results, are meaningless. For a caller that
 * only times the calls (the harness); off by default, a no-op under a real
 * MPI. Simulated times do not depend on the bytes. */
void coll_temp_share(int is_shared);

/* Returns the named collective or NULL (borrowed). */
const struct coll_def *coll_find(const char *name);
/* Returns the index of the named algorithm in c->algs, or -1. */
int coll_find_alg(const struct coll_def *c, const char *name);
/* 1 if alg can run on n_ranks ranks with operation op (MPI_OP_NULL when the
 * collective does not reduce), 0 otherwise. */
int coll_alg_applies(const struct coll_alg *alg, int n_ranks, MPI_Op op);

/* The native backend (native.c): the MPI library's own algorithms, by our
 * names, forced one at a time through MPI_T (Open MPI's coll/tuned). Under
 * SMPI, which has no MPI_T, every entry point refuses with one line. */

/* 1 if this library offers the algorithm (store/ompi_algs.c, release). */
int native_has_algorithm(const char *collective, const char *algorithm);
/* 1 if the library's algorithm takes the forced segment size. */
int native_uses_segments(const char *collective, const char *algorithm);
/* 0 where the library would run another algorithm than the one forced, or
 * fail, at this size (count in bytes): recorded as not applicable. */
int native_runs_as_named(const char *collective, const char *algorithm,
                         int n_ranks, long count, int seg_bytes);
/* Before MPI_Init: the environment forcing needs (dynamic rules on,
 * components that bypass coll/tuned excluded). */
void native_prepare_environment(void);
/* After MPI_Init, on one rank: fails with one line on stderr unless every
 * collective's algorithm can be forced here. */
int native_check(const char *const *collectives, int n);
/* Collective over comm: *out (caller-frees with MPI_Comm_free) is a
 * duplicate of comm whose collective runs the named algorithm with these
 * parameters. Fails on every rank if any rank could not force it. */
int native_comm_create(MPI_Comm comm, const char *collective,
                       const char *algorithm, int seg_bytes, int chain_fanout,
                       MPI_Comm *out);
void native_close(void);
/* What the library's default decision depends on, as one journal value
 * without spaces: "ompi:coll=^han,hcoll;rules=fixed",
 * "smpi/coll-selector:ompi". */
int native_describe_default(char *buf, size_t size);

#endif
