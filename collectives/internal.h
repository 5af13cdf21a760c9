/* Private to collectives/: message tags, the algorithm functions the table
 * names, the shared tree engines and buffer helpers. Every buffer offset is
 * computed from the datatype's extent, every temporary sized by its true
 * extent, so derived types with holes or a non-zero lower bound work. */
#ifndef COLLECTIVES_INTERNAL_H
#define COLLECTIVES_INTERNAL_H

#include "collectives/collectives.h"
#include "collectives/topo.h"

/* One fixed tag per collective: the caller's communicator is private to the
 * tuner, and a collective's messages between two ranks are matched in order. */
enum coll_tag {
    COLL_TAG_BCAST = 7001,
    COLL_TAG_REDUCE = 7002,
    COLL_TAG_SCATTER = 7003,
    COLL_TAG_GATHER = 7004,
    COLL_TAG_ALLREDUCE = 7005,
    COLL_TAG_ALLGATHER = 7006,
    COLL_TAG_ALLTOALL = 7007,
    COLL_TAG_BARRIER = 7008
};

/* Radix of the k-nomial tree algorithms. */
enum { COLL_KNOMIAL_RADIX = 4 };

/* Receives and sends each that alltoall linear_sync keeps outstanding. */
enum { COLL_ALLTOALL_WINDOW = 4 };

/* What an algorithm starts from: its rank, the communicator's size and the
 * datatype's layout. */
int coll_begin(const struct coll_args *args, int *rank, int *size,
               struct coll_layout *layout);

/* A temporary buffer for n elements, sized by the true extent. The returned
 * pointer is used like a user buffer (data starts at ptr + true_lb) and is
 * freed with coll_temp_destroy; NULL when out of memory. */
void *coll_temp_create(const struct coll_layout *layout, int n);
void coll_temp_destroy(void *buf, const struct coll_layout *layout);

/* Copies n elements honouring the datatype: holes in dst stay untouched. */
int coll_copy(const void *src, void *dst, int n, MPI_Datatype dtype,
              MPI_Comm comm, int tag);

/* Bytes from the start of a buffer of blocks of count elements to block
 * i. */
static inline MPI_Aint coll_block_offset(int i, int count, MPI_Aint extent)
{
    return (MPI_Aint)i * count * extent;
}

/* A message cut into segments of whole elements. */
struct coll_segs {
    int count;     /* elements in the message */
    int seg_count; /* elements per segment (the last one may be shorter) */
    int n_segs;    /* 0 when count is 0 */
};

/* seg_bytes 0 or >= the message gives one segment; otherwise seg_bytes is
 * rounded down to whole elements, at least one. */
void coll_segs_init(struct coll_segs *segs, int count, MPI_Datatype dtype,
                    int seg_bytes);
/* Elements in segment i. */
static inline int coll_segs_elems(const struct coll_segs *segs, int i)
{
    int rest = segs->count - i * segs->seg_count;
    return rest < segs->seg_count ? rest : segs->seg_count;
}

/* Bytes from the buffer's start to segment i. */
static inline MPI_Aint coll_segs_offset(const struct coll_segs *segs, int i,
                                        MPI_Aint extent)
{
    return (MPI_Aint)i * segs->seg_count * extent;
}

/* First element of block i when count elements are cut into n_blocks
 * blocks of count/n_blocks, the first count%n_blocks one element longer;
 * i = n_blocks gives count. */
int coll_block_start(int count, int n_blocks, int i);

/* Pipelined broadcast of count elements of buf down one tree: receive each
 * segment from parent (-1 at the root), forward it to the children, last
 * child first (the largest subtree of a binomial tree). */
int bcast_tree_region(void *buf, int count, MPI_Datatype dtype, int seg_bytes,
                      int parent, const int *children, int n_children,
                      MPI_Comm comm);
/* bcast_tree_region on a whole tree. */
int bcast_tree_run(const struct coll_args *args, const struct topo_tree *tree);
/* Builds the tree of shape rotated about args->root and broadcasts on it. */
int bcast_tree_shape(const struct coll_args *args, enum topo_shape shape,
                     int fanout);

/* Pipelined reduction up a tree built by topo (see topo.h for the operand
 * order); forwards the result when the tree root is not args->root. */
int reduce_tree_run(const struct coll_args *args, const struct topo_tree *tree);
/* Builds the tree of shape for args (in rank order for non-commutative
 * operations, or when is_in_order) and runs reduce_tree_run on it. */
int reduce_tree_shape(const struct coll_args *args, enum topo_shape shape,
                      int fanout, int is_in_order);

/* A buffer of n_blocks blocks (one per rank) of count elements in all, cut
 * as by coll_block_start; block i belongs to virtual rank i = (rank - root)
 * mod n_blocks. */
struct coll_blockbuf {
    char *buf;
    int count;
    int n_blocks;
    MPI_Datatype dtype;
    MPI_Aint extent;
    int root;
    int tag;
    MPI_Comm comm;
};

void coll_blocks_init(struct coll_blockbuf *b, const struct coll_args *args,
                      void *buf, int count, int n_blocks, MPI_Aint extent,
                      int root, int tag);
/* Sends (is_send) or receives blocks [first, last) (clipped to n_blocks) to
 * or from peer; nothing when they hold no element. */
int coll_blocks_xfer(const struct coll_blockbuf *b, int first, int last,
                     int peer, int is_send);
/* Ring allgather: virtual rank v holds block first and, in P-1 steps,
 * passes on to v+1 the block it received last from v-1. */
int coll_blocks_ring(const struct coll_blockbuf *b, int v, int first);
/* Recursive-doubling allgather for any P: virtual rank v holds block v. */
int coll_blocks_doubling(const struct coll_blockbuf *b, int v);

/* What every allgather starts from: rank, size, layout, recvbuf cut in
 * size blocks of args->count elements (block bytes apart). */
struct coll_allgather {
    int rank, size;
    struct coll_layout layout;
    MPI_Aint block;
    struct coll_blockbuf b;
};

/* Fills g and copies this rank's block in from sendbuf unless
 * MPI_IN_PLACE. */
int allgather_begin(const struct coll_args *args, struct coll_allgather *g);

/* Binomial scatter: afterwards virtual rank v holds blocks
 * [v, v + lowbit(v)) and at least its own block v. */
int bcast_scatter_binomial(const struct coll_blockbuf *b, int v);
/* What both scatter-allgather broadcasts start with: args->recvbuf as b,
 * cut in P blocks about the root, scattered; v is this rank's virtual
 * rank. */
int bcast_scatter_begin(const struct coll_args *args, struct coll_blockbuf *b,
                        int *v);

/* inout = in op inout, or inout = inout op in when is_in_after (for a
 * non-commutative op that goes through in, which is overwritten). */
int coll_reduce_ordered(void *in, void *inout, int n, MPI_Datatype dtype,
                        MPI_Op op, int is_in_after, MPI_Comm comm, int tag);

/* One rank's part in the reductions that run on p, the largest power of
 * two <= P, ranks: the first 2(P-p) virtual ranks v = rank - root mod P
 * fold pairwise, the odd one's operand after the even one's, so that p ranks
 * remain, numbered me = v/2 or v - (P-p): each holds the reduction of a
 * contiguous range of virtual ranks in acc. */
struct coll_fold {
    const struct coll_args *args;
    struct coll_layout layout;
    int tag;
    int rank, size, v, pof2, rem;
    int me;     /* -1 on the ranks folded away */
    int lo, hi; /* blocks of p held (reduced after the reduce-scatter) */
    char *acc;  /* recvbuf or a temporary */
    char *tmp;
};

/* Folds this rank in (acc = recvbuf when is_acc_recvbuf). Callers run
 * coll_fold_destroy whatever it returns. */
int coll_fold_begin(struct coll_fold *f, const struct coll_args *args, int tag,
                    int is_acc_recvbuf);
/* The comm rank of remaining rank me. */
int coll_fold_rank(const struct coll_fold *f, int me);
/* Recursive halving over mask = 1 .. p/2: afterwards this rank's blocks
 * [lo, hi) hold the reduction over all ranks. */
int coll_fold_reduce_scatter(struct coll_fold *f);
/* Undoes reduce-scatter step mask with me xor mask: sends this rank's
 * blocks, receives the partner's (extending [lo, hi)), or both. */
int coll_fold_gather_step(struct coll_fold *f, int mask, int is_send,
                          int is_recv);
/* Even folded ranks send the result in acc to their odd partner's
 * recvbuf. */
int coll_fold_release(const struct coll_fold *f);
void coll_fold_destroy(struct coll_fold *f);

/* Empty messages on COLL_TAG_BARRIER. */
int barrier_send(int peer, MPI_Comm comm);
int barrier_recv(int peer, MPI_Comm comm);
int barrier_sendrecv(int to, int from, MPI_Comm comm);

int bcast_linear(const struct coll_args *args);
int bcast_chain(const struct coll_args *args);
int bcast_pipeline(const struct coll_args *args);
int bcast_binary(const struct coll_args *args);
int bcast_split_binary(const struct coll_args *args);
int bcast_binomial(const struct coll_args *args);
int bcast_knomial(const struct coll_args *args);
int bcast_scatter_allgather(const struct coll_args *args);
int bcast_scatter_allgather_ring(const struct coll_args *args);

/* Scatter, gather: the root's own block from sendbuf to recvbuf, nothing
 * when the root's recvbuf (scatter) or sendbuf (gather) is MPI_IN_PLACE. */
int scatter_copy_own(const struct coll_args *args, int rank,
                     const struct coll_layout *layout);
int gather_copy_own(const struct coll_args *args, int rank,
                    const struct coll_layout *layout);

/* Scatter or gather down or up the tree of shape rotated about args->root,
 * whole subtrees' blocks at a time, in segments of seg_bytes (0: one
 * message per subtree). */
int scatter_tree_shape(const struct coll_args *args, enum topo_shape shape,
                       int fanout);
int gather_tree_shape(const struct coll_args *args, enum topo_shape shape,
                      int fanout);

/* coll_begin for an alltoall, and where its send blocks are: *send is
 * args->sendbuf, or with MPI_IN_PLACE a copy of recvbuf made in *temp
 * (NULL otherwise; the caller frees it with coll_temp_destroy). */
int alltoall_begin(const struct coll_args *args, int *rank, int *size,
                   struct coll_layout *layout, const char **send, void **temp);

int reduce_linear(const struct coll_args *args);
int reduce_chain(const struct coll_args *args);
int reduce_pipeline(const struct coll_args *args);
int reduce_binary(const struct coll_args *args);
int reduce_binomial(const struct coll_args *args);
int reduce_in_order_binary(const struct coll_args *args);
int reduce_rabenseifner(const struct coll_args *args);

int scatter_linear(const struct coll_args *args);
int scatter_linear_nb(const struct coll_args *args);
int scatter_binomial(const struct coll_args *args);
int scatter_chain(const struct coll_args *args);
int scatter_binary(const struct coll_args *args);

int gather_linear(const struct coll_args *args);
int gather_linear_sync(const struct coll_args *args);
int gather_binomial(const struct coll_args *args);
int gather_chain(const struct coll_args *args);
int gather_binary(const struct coll_args *args);

int alltoall_linear(const struct coll_args *args);
int alltoall_pairwise(const struct coll_args *args);
int alltoall_bruck(const struct coll_args *args);
int alltoall_linear_sync(const struct coll_args *args);
int alltoall_two_proc(const struct coll_args *args);

int allreduce_linear(const struct coll_args *args);
int allreduce_reduce_bcast(const struct coll_args *args);
int allreduce_recursive_doubling(const struct coll_args *args);
int allreduce_ring(const struct coll_args *args);
int allreduce_segmented_ring(const struct coll_args *args);
int allreduce_rabenseifner(const struct coll_args *args);
int allreduce_allgather_reduce(const struct coll_args *args);

int allgather_gather_bcast(const struct coll_args *args);
int allgather_bruck(const struct coll_args *args);
int allgather_recursive_doubling(const struct coll_args *args);
int allgather_ring(const struct coll_args *args);
int allgather_neighbor_exchange(const struct coll_args *args);
int allgather_two_proc(const struct coll_args *args);

int barrier_linear(const struct coll_args *args);
int barrier_double_ring(const struct coll_args *args);
int barrier_recursive_doubling(const struct coll_args *args);
int barrier_bruck(const struct coll_args *args);
int barrier_two_proc(const struct coll_args *args);
int barrier_tree(const struct coll_args *args);
int barrier_extended_ring(const struct coll_args *args);
int barrier_tournament(const struct coll_args *args);

#endif
