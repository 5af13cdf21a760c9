/* Runs every algorithm of every collective in coll_table and compares its
 * result byte for byte with the MPI library's own collective, over roots,
 * counts, segment sizes, chain fan-outs, datatypes (one with holes and a
 * non-zero lower bound), operations (one non-commutative) and MPI_IN_PLACE.
 * Buffers are shaped from each coll_def (send_blocks, recv_blocks,
 * is_rooted, is_reduction), so a new collective needs no change here. Bytes
 * that hold no data (holes, guards around the buffer) must stay untouched,
 * send buffers entirely. A collective without buffers is a barrier: checked
 * for leaving before every rank entered.
 * With -r the program is an application of libautotune (runtime/): its
 * plain MPI_ calls, which the library intercepts, run in place of the
 * algorithms and are compared with the MPI library's own result (the
 * table's references call PMPI_); AUTOTUNE_DECISION picks what runs.
 * With -n the node-aware compositions (collectives/node.h) run in place of
 * the algorithms, a few plans each, on the nodes the MPI library gives (or
 * AUTOTUNE_NODE_OF_RANK emulates): on the communicator as launched, and on
 * one whose ranks are dealt round the nodes (nodes not consecutive).
 * Usage: test_collectives [-q] [-r | -n] [-c name]   (-q: fewer cases, for
 * large process counts; -c: only the named collective) */
#include "collectives/collectives.h"
#include "collectives/node.h"
#include "tests/check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
    GUARD_BYTES = 64,
    FILL_BYTE = 0xA5,
    BIG_COUNT = 10007,  /* a prime: no segment size divides it */
    QUICK_COUNT = 1009, /* the same, for -q */
    MAT_PRIME = 1009    /* matrix entries mod this keep products in an int */
};

/* A datatype and how to write it: n_base elements of base per element. */
struct test_type {
    const char *name;
    MPI_Datatype dtype;
    MPI_Datatype base;
    int n_base;
};

/* A reduction case: an operation on one of the types. */
struct test_op {
    const char *name;
    MPI_Op op;
    int type;                /* index in types[] */
    MPI_User_function *fold; /* user operations: its function */
};

/* The holey types: a 2x2 int matrix spread over 40 bytes, data at 0, 8, 16,
 * 24 from the element's address; "holey" has lower bound 0, "holey_lb" -4.
 * SimGrid 3.32 misplaces the elements of types with a non-zero lower bound
 * when count > 1 (and of struct and indexed types with negative
 * displacements), so holey_lb is left out under SMPI. */
static const MPI_Aint holey_disps[4] = {0, 8, 16, 24};
enum { HOLEY_LB = -4, HOLEY_EXTENT = 40 };
#ifdef SMPI_H
enum { HAS_HOLEY_LB = 0 };
#else
enum { HAS_HOLEY_LB = 1 };
#endif

static struct test_type types[4];
static struct test_op ops[5];
static int n_types, n_ops;

static int *holey_at(void *base, int i, int j)
{
    return (int *)((char *)base + (MPI_Aint)i * HOLEY_EXTENT + holey_disps[j]);
}

/* inout = in x inout, 2x2 matrices mod MAT_PRIME: associative, not
 * commutative, and every change of operand order shows. */
static void op_matmul(void *in, void *inout, int *len, MPI_Datatype *dtype)
{
    (void)dtype;
    for (int i = 0; i < *len; i++) {
        long a[4], b[4];
        for (int j = 0; j < 4; j++) {
            a[j] = *holey_at(in, i, j);
            b[j] = *holey_at(inout, i, j);
        }
        *holey_at(inout, i, 0) = (int)((a[0] * b[0] + a[1] * b[2]) % MAT_PRIME);
        *holey_at(inout, i, 1) = (int)((a[0] * b[1] + a[1] * b[3]) % MAT_PRIME);
        *holey_at(inout, i, 2) = (int)((a[2] * b[0] + a[3] * b[2]) % MAT_PRIME);
        *holey_at(inout, i, 3) = (int)((a[2] * b[1] + a[3] * b[3]) % MAT_PRIME);
    }
}

/* Element-wise sum on the holey type: a commutative user operation, so the
 * algorithms that need one meet a derived type too. */
static void op_add(void *in, void *inout, int *len, MPI_Datatype *dtype)
{
    (void)dtype;
    for (int i = 0; i < *len; i++) {
        for (int j = 0; j < 4; j++) {
            *holey_at(inout, i, j) += *holey_at(in, i, j);
        }
    }
}

static int setup_types(void)
{
    MPI_Datatype vec, holey, holey_lb;
    MPI_Op matmul, add;

    if (MPI_Type_vector(4, 1, 2, MPI_INT, &vec) ||
        MPI_Type_create_resized(vec, 0, HOLEY_EXTENT, &holey) ||
        MPI_Type_create_resized(vec, HOLEY_LB, HOLEY_EXTENT, &holey_lb) ||
        MPI_Type_commit(&holey) || MPI_Type_commit(&holey_lb) ||
        MPI_Op_create(op_matmul, 0, &matmul) ||
        MPI_Op_create(op_add, 1, &add)) {
        return 1;
    }
    MPI_Type_free(&vec);
    types[0] = (struct test_type){"int", MPI_INT, MPI_INT, 1};
    types[1] = (struct test_type){"double", MPI_DOUBLE, MPI_DOUBLE, 1};
    types[2] = (struct test_type){"holey", holey, MPI_INT, 4};
    types[3] = (struct test_type){"holey_lb", holey_lb, MPI_INT, 4};
    n_types = HAS_HOLEY_LB ? 4 : 3;
    ops[0] = (struct test_op){"sum", MPI_SUM, 0, NULL};
    ops[1] = (struct test_op){"max", MPI_MAX, 1, NULL};
    ops[2] = (struct test_op){"matmul", matmul, 2, op_matmul};
    ops[3] = (struct test_op){"add", add, 2, op_add};
    ops[4] = (struct test_op){"matmul", matmul, 3, op_matmul};
    n_ops = HAS_HOLEY_LB ? 5 : 4;
    return 0;
}

/* A buffer of count elements with GUARD_BYTES on both sides of its data. */
struct test_buf {
    char *raw;
    char *ptr; /* what the collective gets */
    size_t n_raw;
};

static int buf_create(struct test_buf *b, const struct test_type *t, int count,
                      int fill)
{
    MPI_Aint lb, extent, true_lb, true_extent;
    MPI_Type_get_extent(t->dtype, &lb, &extent);
    MPI_Type_get_true_extent(t->dtype, &true_lb, &true_extent);
    MPI_Aint span = count > 0 ? true_extent + (count - 1) * extent : 0;
    b->n_raw = (size_t)span + 2 * GUARD_BYTES;
    b->raw = malloc(b->n_raw);
    if (!b->raw) {
        return 1;
    }
    memset(b->raw, fill, b->n_raw);
    b->ptr = b->raw + GUARD_BYTES - true_lb;
    return 0;
}

static void buf_destroy(struct test_buf *b)
{
    free(b->raw);
    b->raw = b->ptr = NULL;
}

/* Writes the values of seed into the data bytes of buf (a self-message keeps
 * the holes untouched); values suit every operation used on the type. */
static int buf_write(const struct test_type *t, void *buf, int count, int seed)
{
    int n = count * t->n_base;
    int rc;
    if (count == 0) {
        return 0;
    }
    if (t->base == MPI_DOUBLE) {
        double *d = malloc((size_t)n * sizeof *d);
        if (!d) {
            return 1;
        }
        for (int i = 0; i < n; i++) {
            d[i] = (double)((seed * 31 + i * 17) % 1999) - 999.0;
        }
        rc = MPI_Sendrecv(d, n, MPI_DOUBLE, 0, 1, buf, count, t->dtype, 0, 1,
                          MPI_COMM_SELF, MPI_STATUS_IGNORE);
        free(d);
    } else {
        int *v = malloc((size_t)n * sizeof *v);
        if (!v) {
            return 1;
        }
        for (int i = 0; i < n; i++) {
            v[i] = t->n_base > 1 ? (seed * 7919 + i * 31 + 1) % MAT_PRIME
                                 : (seed * 7919 + i * 104729) % 2001 - 1000;
        }
        rc = MPI_Sendrecv(v, n, MPI_INT, 0, 1, buf, count, t->dtype, 0, 1,
                          MPI_COMM_SELF, MPI_STATUS_IGNORE);
        free(v);
    }
    return rc != MPI_SUCCESS;
}

/* mask[i] = 1 where byte i of a buffer of count elements holds data. */
static int mask_create(const struct test_type *t, int count,
                       struct test_buf *mask)
{
    struct test_buf zeros = {0}, ones = {0};
    if (buf_create(&zeros, t, count, 0x00) ||
        buf_create(&ones, t, count, 0xFF) || buf_create(mask, t, count, 0) ||
        buf_write(t, zeros.ptr, count, 1) || buf_write(t, ones.ptr, count, 1)) {
        return 1;
    }
    for (size_t i = 0; i < mask->n_raw; i++) {
        mask->raw[i] = zeros.raw[i] == ones.raw[i];
    }
    buf_destroy(&zeros);
    buf_destroy(&ones);
    return 0;
}

/* Offset of the first wrong byte of got, or -1: data bytes must equal want,
 * the others must still hold FILL_BYTE. */
static long buf_diff(const struct test_buf *got, const struct test_buf *want,
                     const struct test_buf *mask)
{
    for (size_t i = 0; i < got->n_raw; i++) {
        if (mask->raw[i] ? got->raw[i] != want->raw[i]
                         : (unsigned char)got->raw[i] != FILL_BYTE) {
            return (long)i;
        }
    }
    return -1;
}

/* For a user operation, checks the library's reduction in want against
 * x0 op x1 op ... op x(P-1) folded here without MPI, and uses the fold when
 * they differ: SimGrid 3.32's MPI_Reduce hands user operations packed data
 * with the unpacked datatype, which breaks types with holes. */
static void want_check_fold(const struct test_type *t, const struct test_op *op,
                            int count, int n_ranks, struct test_buf *want,
                            const struct test_buf *mask)
{
    struct test_buf fold = {0}, x = {0};
    static int is_noted;

    if (!op->fold || count == 0) {
        return;
    }
    if (buf_create(&fold, t, count, FILL_BYTE) ||
        buf_create(&x, t, count, FILL_BYTE) ||
        buf_write(t, fold.ptr, count, n_ranks - 1)) {
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    for (int r = n_ranks - 2; r >= 0; r--) {
        MPI_Datatype dtype = t->dtype;
        int n = count;
        if (buf_write(t, x.ptr, count, r)) {
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        op->fold(x.ptr, fold.ptr, &n, &dtype);
    }
    for (size_t i = 0; i < want->n_raw; i++) {
        if (mask->raw[i] && want->raw[i] != fold.raw[i]) {
            if (!is_noted) {
                printf("note: the MPI library's reduce with %s on %s is "
                       "wrong; comparing with a serial fold instead\n",
                       op->name, t->name);
                is_noted = 1;
            }
            memcpy(want->raw, fold.raw, want->n_raw);
            break;
        }
    }
    buf_destroy(&fold);
    buf_destroy(&x);
}

/* One algorithm run: what it was, for the failure line. */
struct test_case {
    const struct coll_def *coll;
    const struct coll_alg *alg;
    const struct test_type *type;
    const char *op_name;
    int n_ranks, root, count, seg_bytes, fanout, is_in_place;
};

static int n_runs, n_failed;

/* -n: the composition the loops run as their one algorithm, its plan, the
 * communicators it runs on; how many cases it could not run. */
static struct {
    struct node_comms *nc;
    node_fn run;
    struct node_plan plan;
    int n_not_applicable;
} node_now;

static int node_run(const struct coll_args *args)
{
    return node_now.run(args, node_now.nc, &node_now.plan);
}

/* Whether alg can run here: the table's conditions, or with -n the
 * composition's. */
static int test_applies(const struct coll_def *c, const struct coll_alg *alg,
                        int n_ranks, MPI_Op op)
{
    if (!node_now.nc) {
        return coll_alg_applies(alg, n_ranks, op);
    }
    int is_applicable = node_applies(c->name, node_now.nc, &node_now.plan, op);
    node_now.n_not_applicable += !is_applicable;
    return is_applicable;
}

/* Everyone learns whether some rank failed; rank 0 prints one line. */
static void case_report(const struct test_case *c, MPI_Comm comm, int rank,
                        int rc, long bad_byte, const char *what)
{
    int is_bad = rc != MPI_SUCCESS || bad_byte >= 0;
    int first_bad = is_bad ? rank : c->n_ranks, any_bad;
    char msg[MPI_MAX_ERROR_STRING] = "";
    int len;

    if (rc != MPI_SUCCESS) {
        MPI_Error_string(rc, msg, &len);
        fprintf(stderr, "rank %d: %s/%s: error: %s\n", rank, c->coll->name,
                c->alg->name, msg);
    }
    MPI_Allreduce(&first_bad, &any_bad, 1, MPI_INT, MPI_MIN, comm);
    n_runs++;
    if (any_bad == c->n_ranks) {
        return;
    }
    n_failed++;
    if (any_bad == rank) {
        printf("FAIL %s/%s P=%d root=%d count=%d seg=%d type=%s op=%s "
               "fanout=%d in_place=%d: rank %d %s at byte %ld\n",
               c->coll->name, c->alg->name, c->n_ranks, c->root, c->count,
               c->seg_bytes, c->type->name, c->op_name ? c->op_name : "-",
               c->fanout, c->is_in_place, rank,
               rc != MPI_SUCCESS ? "returned an error" : what, bad_byte);
        fflush(stdout);
    }
}

/* Segment sizes that give distinct segments for count elements: 0, one
 * element, odd byte counts, 1024 and more than the message; segments below
 * 512 bytes only for counts up to 64, to keep the run short. */
static int segs_for(const struct test_type *t, int count, int *segs)
{
    int size, n = 0, seen[8];
    MPI_Type_size(t->dtype, &size);
    const int cand[] = {0, size, 7, 3 * size + 1, 1000, 1024, 1 << 30};
    for (int i = 0; i < (int)(sizeof cand / sizeof cand[0]); i++) {
        long bytes = (long)count * size;
        if (cand[i] > 0 && cand[i] < 512 && count > 64) {
            continue;
        }
        int per = cand[i] == 0 || cand[i] >= bytes ? count : cand[i] / size;
        per = per < 1 ? 1 : per;
        int is_dup = 0;
        for (int j = 0; j < n; j++) {
            is_dup |= seen[j] == per;
        }
        if (!is_dup) {
            seen[n] = per;
            segs[n++] = cand[i];
        }
    }
    return n;
}

/* The table does not say which algorithms read chain_fanout; the chain
 * ones do. */
static int alg_uses_fanout(const struct coll_alg *alg)
{
    return strstr(alg->name, "chain") != NULL &&
           strstr(alg->name, "scatter") == NULL;
}

/* Blocks of count elements a buffer of this shape holds on this rank; 0
 * where MPI says it is not significant (the collective gets NULL there). */
static int blocks_here(enum coll_blocks blocks, int n_ranks, int is_root)
{
    switch (blocks) {
    case BLOCKS_NONE:
        return 0;
    case BLOCKS_ONE:
        return 1;
    case BLOCKS_ROOT_P:
        return is_root ? n_ranks : 0;
    case BLOCKS_P:
        return n_ranks;
    }
    return 0;
}

/* MPI_IN_PLACE exists for the collectives with both buffers: it replaces
 * the recvbuf of a root that alone sends P blocks (scatter), the sendbuf
 * otherwise, and only at the root of a rooted collective. */
static int coll_has_in_place(const struct coll_def *c)
{
    return c->send_blocks != BLOCKS_NONE && c->recv_blocks != BLOCKS_NONE;
}

/* Whether c moves P blocks somewhere: its large count is split over them. */
static int coll_is_p_blocks(const struct coll_def *c)
{
    return c->send_blocks >= BLOCKS_ROOT_P || c->recv_blocks >= BLOCKS_ROOT_P;
}

/* Copies n elements of t from src to dst, leaving the holes alone. */
static int copy_elems(const struct test_type *t, const void *src, void *dst,
                      int n)
{
    if (n == 0) {
        return 0;
    }
    return MPI_Sendrecv(src, n, t->dtype, 0, 2, dst, n, t->dtype, 0, 2,
                        MPI_COMM_SELF, MPI_STATUS_IGNORE) != MPI_SUCCESS;
}

/* Offset of the first byte where a and b differ, or -1. */
static long bytes_diff(const struct test_buf *a, const struct test_buf *b)
{
    for (size_t i = 0; i < a->n_raw; i++) {
        if (a->raw[i] != b->raw[i]) {
            return (long)i;
        }
    }
    return -1;
}

/* Runs every applicable algorithm of algs (c's own, or the application's
 * call) on one (type, op, count, root) and compares each with the
 * reference result computed once. */
static void test_point(MPI_Comm comm, const struct coll_def *c,
                       const struct coll_alg *algs, int n_algs,
                       const struct test_type *t, const struct test_op *op,
                       int count, int root, int is_in_place)
{
    int rank, size;
    struct test_buf mask = {0}, want = {0}, got = {0}, send = {0},
                    send_copy = {0};
    MPI_Aint lb, extent;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    MPI_Type_get_extent(t->dtype, &lb, &extent);
    int is_root = !c->is_rooted || rank == root;
    /* Segments cut the whole stream of P blocks in tree scatters and
     * gathers: sized from it, tiny ones only for small streams. */
    int segs[8],
        n_segs = segs_for(t, coll_is_p_blocks(c) ? count * size : count, segs);
    MPI_Op mpi_op = op ? op->op : MPI_OP_NULL;
    struct coll_args args = {.count = count,
                             .dtype = t->dtype,
                             .op = mpi_op,
                             .root = root,
                             .comm = comm};

    /* The buffers this rank passes: a rooted reduction's result is
     * significant at the root only; an in-place recvbuf holds nothing. */
    int is_recv_in_place =
        is_in_place && is_root && c->send_blocks == BLOCKS_ROOT_P;
    int is_send_in_place = is_in_place && is_root && !is_recv_in_place;
    int n_send_blocks = blocks_here(c->send_blocks, size, is_root);
    int n_recv_blocks = blocks_here(c->recv_blocks, size, is_root);
    if ((c->is_reduction && c->is_rooted && !is_root) || is_recv_in_place) {
        n_recv_blocks = 0;
    }
    int n_send = n_send_blocks * count, n_recv = n_recv_blocks * count;

    if (mask_create(t, n_recv, &mask) ||
        buf_create(&want, t, n_recv, FILL_BYTE) ||
        buf_create(&got, t, n_recv, FILL_BYTE) ||
        buf_create(&send, t, n_send, FILL_BYTE) ||
        buf_create(&send_copy, t, n_send, FILL_BYTE) ||
        buf_write(t, send.ptr, n_send, rank)) {
        fprintf(stderr, "rank %d: out of memory\n", rank);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    memcpy(send_copy.raw, send.raw, send.n_raw);

    /* Initial recvbuf: bcast: the root's data at the root, other data
     * elsewhere; the others: stale data to be overwritten, and in place the
     * operand where MPI expects it (this rank's block of P, or all of it). */
    buf_write(t, want.ptr, n_recv,
              c->send_blocks != BLOCKS_NONE ? 3000 + rank
              : rank == root                ? 1000 + root
                                            : rank);
    if (is_send_in_place) {
        MPI_Aint at = n_send_blocks == n_recv_blocks
                          ? 0
                          : (MPI_Aint)rank * count * extent;
        copy_elems(t, send.ptr, want.ptr + at, n_send);
    }
    char *init = malloc(want.n_raw);
    if (!init) {
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    memcpy(init, want.raw, want.n_raw);

    args.sendbuf = is_send_in_place ? MPI_IN_PLACE
                   : n_send_blocks  ? (const void *)send.ptr
                                    : NULL;
    args.recvbuf = is_recv_in_place ? MPI_IN_PLACE
                   : n_recv_blocks  ? (void *)want.ptr
                                    : NULL;
    args.seg_bytes = 0;
    args.chain_fanout = 1;
    /* With count 0 there is nothing to compare with (and SimGrid 3.32's
     * MPI_Allreduce divides by the count on 16 ranks). */
    int rc = count > 0 ? c->reference(&args) : MPI_SUCCESS;
    if (rc != MPI_SUCCESS) {
        char msg[MPI_MAX_ERROR_STRING];
        int len;
        MPI_Error_string(rc, msg, &len);
        fprintf(stderr, "rank %d: reference %s failed: %s\n", rank, c->name,
                msg);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    if (op && n_recv_blocks) {
        want_check_fold(t, op, count, size, &want, &mask);
    }

    for (int a = 0; a < n_algs; a++) {
        const struct coll_alg *alg = &algs[a];
        if (!test_applies(c, alg, size, mpi_op)) {
            continue;
        }
        int n_alg_segs = alg->is_segmented ? n_segs : 1;
        int n_fanouts = alg_uses_fanout(alg) ? 3 : 1;
        for (int s = 0; s < n_alg_segs; s++) {
            for (int f = 0; f < n_fanouts; f++) {
                const int fanouts[] = {1, 2, 4};
                struct test_case tc = {c,
                                       alg,
                                       t,
                                       op ? op->name : NULL,
                                       size,
                                       root,
                                       count,
                                       alg->is_segmented ? segs[s] : 0,
                                       n_fanouts > 1 ? fanouts[f] : 2,
                                       is_in_place};
                long bad = -1;
                const char *what = NULL;

                memcpy(got.raw, init, got.n_raw);
                if (args.recvbuf != MPI_IN_PLACE && args.recvbuf) {
                    args.recvbuf = got.ptr;
                }
                args.seg_bytes = tc.seg_bytes;
                args.chain_fanout = tc.fanout;
                rc = alg->run(&args);
                if (rc == MPI_SUCCESS) {
                    bad = buf_diff(&got, &want, &mask);
                    what = "wrong data in recvbuf";
                }
                if (rc == MPI_SUCCESS && bad < 0) {
                    bad = bytes_diff(&send, &send_copy);
                    what = "changed sendbuf";
                }
                case_report(&tc, comm, rank, rc, bad, what);
            }
        }
    }
    free(init);
    buf_destroy(&mask);
    buf_destroy(&want);
    buf_destroy(&got);
    buf_destroy(&send);
    buf_destroy(&send_copy);
}

/* A barrier must not let a rank leave before every rank entered. One rank
 * comes late: for LATE_S seconds (by MPI_Wtime, simulated under SMPI) it
 * probes for the token every other rank sends it on leaving. A token seen
 * before it entered proves an early exit; none seen proves nothing, so a
 * correct barrier is never flagged and a broken one is caught as soon as
 * its early ranks' tokens arrive within LATE_S. */
static const double LATE_S = 0.002;
enum { TAG_LEFT = 99, MAX_PROBES = 100000 };

static int barrier_run(const struct coll_args *args, coll_fn run, int late,
                       long *bad)
{
    int rank, size, token = 0, is_early = 0, rc;
    MPI_Comm_rank(args->comm, &rank);
    MPI_Comm_size(args->comm, &size);
    if (rank == late) {
        double t0 = MPI_Wtime();
        for (long i = 0;
             i < MAX_PROBES && !is_early && MPI_Wtime() - t0 < LATE_S; i++) {
            MPI_Iprobe(MPI_ANY_SOURCE, TAG_LEFT, args->comm, &is_early,
                       MPI_STATUS_IGNORE);
        }
    }
    rc = run(args);
    if (rank != late) {
        MPI_Send(&token, 1, MPI_INT, late, TAG_LEFT, args->comm);
    }
    for (int i = 0; rank == late && i < size - 1; i++) {
        MPI_Recv(&token, 1, MPI_INT, MPI_ANY_SOURCE, TAG_LEFT, args->comm,
                 MPI_STATUS_IGNORE);
    }
    *bad = is_early ? 0 : -1;
    return rc;
}

/* Every algorithm of algs for a collective without buffers, and the
 * reference. */
static void test_barrier(MPI_Comm comm, const struct coll_def *c,
                         const struct coll_alg *algs, int n_algs, int late)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    struct coll_args args = {
        .dtype = MPI_BYTE, .op = MPI_OP_NULL, .comm = comm, .chain_fanout = 2};
    const struct coll_alg ref = {"(MPI library)", c->reference, 0, 0, "", NULL};

    for (int a = -1; a < n_algs; a++) {
        const struct coll_alg *alg = a < 0 ? &ref : &algs[a];
        struct test_case tc = {c, alg, &types[0], NULL, size, late, 0, 0, 2, 0};
        long bad;
        if (a >= 0 && !test_applies(c, alg, size, MPI_OP_NULL)) {
            continue;
        }
        int rc = barrier_run(&args, alg->run, late, &bad);
        case_report(&tc, comm, rank, rc, bad,
                    "(the late rank) saw a rank leave before it entered");
    }
}

/* -r: each collective as an application calls it, a plain MPI_ call
 * (libautotune intercepts it). A collective missing here is not tested
 * as some other one: the run fails. */
static int app_bcast(const struct coll_args *a)
{
    return MPI_Bcast(a->recvbuf, a->count, a->dtype, a->root, a->comm);
}

static int app_reduce(const struct coll_args *a)
{
    return MPI_Reduce(a->sendbuf, a->recvbuf, a->count, a->dtype, a->op,
                      a->root, a->comm);
}

static int app_allreduce(const struct coll_args *a)
{
    return MPI_Allreduce(a->sendbuf, a->recvbuf, a->count, a->dtype, a->op,
                         a->comm);
}

static int app_scatter(const struct coll_args *a)
{
    return MPI_Scatter(a->sendbuf, a->count, a->dtype, a->recvbuf, a->count,
                       a->dtype, a->root, a->comm);
}

static int app_gather(const struct coll_args *a)
{
    return MPI_Gather(a->sendbuf, a->count, a->dtype, a->recvbuf, a->count,
                      a->dtype, a->root, a->comm);
}

static int app_allgather(const struct coll_args *a)
{
    return MPI_Allgather(a->sendbuf, a->count, a->dtype, a->recvbuf, a->count,
                         a->dtype, a->comm);
}

static int app_alltoall(const struct coll_args *a)
{
    return MPI_Alltoall(a->sendbuf, a->count, a->dtype, a->recvbuf, a->count,
                        a->dtype, a->comm);
}

static int app_barrier(const struct coll_args *a)
{
    return MPI_Barrier(a->comm);
}

static const struct {
    const char *name;
    coll_fn call;
} app_calls[] = {
    {"bcast", app_bcast},         {"reduce", app_reduce},
    {"allreduce", app_allreduce}, {"scatter", app_scatter},
    {"gather", app_gather},       {"allgather", app_allgather},
    {"alltoall", app_alltoall},   {"barrier", app_barrier},
};

/* The application's MPI_ call of collective c, or NULL. */
static coll_fn app_call_of(const struct coll_def *c)
{
    for (size_t i = 0; i < sizeof app_calls / sizeof app_calls[0]; i++) {
        if (strcmp(app_calls[i].name, c->name) == 0) {
            return app_calls[i].call;
        }
    }
    return NULL;
}

/* Whether v[i] already appeared in v[0 .. i-1]. */
static int is_repeat(const int *v, int i)
{
    for (int j = 0; j < i; j++) {
        if (v[j] == v[i]) {
            return 1;
        }
    }
    return 0;
}

/* The smallest prime >= n (n >= 2). */
static int prime_from(int n)
{
    for (;; n++) {
        int is_prime = 1;
        for (int d = 2; d * d <= n && is_prime; d++) {
            is_prime = n % d != 0;
        }
        if (is_prime) {
            return n;
        }
    }
}

/* Every case of collective c (roots, counts, types or operations, in place
 * or not) for the algorithms algs. */
static void test_coll(MPI_Comm comm, const struct coll_def *c,
                      const struct coll_alg *algs, int n_algs, int is_quick)
{
    int size;
    MPI_Comm_size(comm, &size);
    int roots[] = {0, size - 1, size / 2};
    int n_roots = is_quick ? 2 : 3;
    /* Collectives of P blocks take the large count split over them,
     * rounded up to a prime. */
    int big = is_quick ? QUICK_COUNT : BIG_COUNT;
    if (coll_is_p_blocks(c)) {
        big = prime_from(big / size > 2 ? big / size : 2);
    }
    int counts[] = {0, 1, size - 1, size, big};
    int n_counts = 5;
    int n_cases = c->is_reduction ? n_ops : n_types;
    int has_buffers =
        c->send_blocks != BLOCKS_NONE || c->recv_blocks != BLOCKS_NONE;
    for (int r = 0; r < n_roots && !has_buffers; r++) {
        if (!is_repeat(roots, r)) {
            test_barrier(comm, c, algs, n_algs, roots[r]);
        }
    }
    for (int k = 0; k < n_cases && has_buffers; k++) {
        const struct test_op *op = c->is_reduction ? &ops[k] : NULL;
        const struct test_type *t = op ? &types[op->type] : &types[k];
        /* -q: P-block collectives skip the double type, which moves
         * like int, to keep the P^2 messages of large runs few. */
        if (is_quick && !op && coll_is_p_blocks(c) && t->base == MPI_DOUBLE) {
            continue;
        }
        for (int i = 0; i < n_counts; i++) {
            if (is_repeat(counts, i) || (is_quick && i == 2)) {
                continue;
            }
            for (int r = 0; r < n_roots; r++) {
                if (is_repeat(roots, r) || (!c->is_rooted && r > 0)) {
                    continue;
                }
                test_point(comm, c, algs, n_algs, t, op, counts[i], roots[r],
                           coll_has_in_place(c) && (i + r) % 2 == 1);
            }
        }
    }
}

/* -n: the plans each composition runs, by their method names (the
 * grammar of collectives/method.h, parsed here by node_plan_parse):
 * segmented and not, trees and rings, several on odd node sizes. */
static const char *const node_plans[][2] = {
    {"bcast", "node:binomial/0+binomial/0"},
    {"bcast", "node:pipeline/1000+linear/0"},
    {"bcast", "node:scatter_allgather_ring/0+knomial/1024"},
    {"bcast", "node:split_binary/0+chain/512"},
    {"reduce", "node:binomial/0+binomial/0"},
    {"reduce", "node:linear/0+pipeline/1000"},
    {"reduce", "node:in_order_binary/1024+rabenseifner/0"},
    {"reduce", "node:chain/512+binary/0"},
    {"allreduce", "node:binomial/0+recursive_doubling/0+binomial/0"},
    {"allreduce", "node:linear/0+ring/0+pipeline/1000"},
    {"allreduce",
     "node:in_order_binary/1024+rabenseifner/0+scatter_allgather/0"},
    {"allreduce", "node:pipeline/512+allgather_reduce/0+linear/0"},
    {"allreduce", "node2:binomial/0+recursive_doubling/0+binomial/0"},
    {"allreduce", "node3:linear/0+ring/0+pipeline/1000"},
    {"allreduce", "node4:in_order_binary/1024+rabenseifner/0+split_binary/0"},
    {"allgather", "node:linear/0+ring/0+binomial/0"},
    {"allgather", "node:binomial/1024+recursive_doubling/0+pipeline/1000"},
    {"allgather", "node:linear_sync/512+bruck/0+scatter_allgather_ring/0"},
    {"allgather", "node:binary/0+neighbor_exchange/0+split_binary/0"},
    {"gather", "node:linear/0+binomial/0"},
    {"gather", "node:binomial/1024+linear_sync/1000"},
    {"gather", "node:chain/512+binary/0"},
    {"scatter", "node:linear/0+binomial/0"},
    {"scatter", "node:binomial/1024+linear_nb/0"},
    {"scatter", "node:chain/512+binary/1000"},
    {"alltoall", "node:linear/0+pairwise+linear/0"},
    {"alltoall", "node:binomial/1024+bruck+binomial/1024"},
    {"alltoall", "node:chain/512+linear_sync+binary/1000"},
    {"alltoall", "node:linear_sync/1000+linear+linear_nb/0"},
    {"barrier", "node:linear/0+recursive_doubling/0+linear/0"},
    {"barrier", "node:tree/0+bruck/0+tree/0"},
    {"barrier", "node:double_ring/0+tournament/0+extended_ring/0"},
};

/* -n: every plan of c's composition as the one algorithm of the loops; a
 * collective without a composition is left out. */
static void test_node_coll(MPI_Comm comm, const struct coll_def *c,
                           int is_quick)
{
    char label[200];
    struct coll_alg row = {label, node_run, 0, 0, "", NULL};
    if (!(node_now.run = node_find(c->name))) {
        return;
    }
    for (size_t i = 0; i < sizeof node_plans / sizeof node_plans[0]; i++) {
        const char *const *p = node_plans[i];
        if (strcmp(p[0], c->name) != 0) {
            continue;
        }
        char err[160];
        if (node_plan_parse(c, p[1], &node_now.plan, err, sizeof err) != 0) {
            fprintf(stderr, "test_collectives: plan %s: %s\n", p[1], err);
            n_failed++;
            continue;
        }
        snprintf(label, sizeof label, "%s", p[1]);
        test_coll(comm, c, &row, 1, is_quick);
    }
}

/* The nodes of comm's ranks (AUTOTUNE_NODE_OF_RANK's emulation, or the
 * library's) into node_of_rank; their count. */
static int node_map(MPI_Comm comm, int *node_of_rank)
{
    int block, n_nodes;
    if (nodes_parse_emulation(getenv(NODES_ENV), &block) ||
        nodes_of_comm(comm, block, node_of_rank, &n_nodes) != MPI_SUCCESS) {
        fprintf(stderr, "test_collectives: %s: cannot map the nodes\n",
                NODES_ENV);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    return n_nodes;
}

/* -n: the node communicators of comm as launched (is_dealt 0), or of a
 * communicator with comm's ranks dealt round the nodes, one from each in
 * turn (is_dealt 1; 1 returned, nothing made, where that changes
 * nothing). Checks what the layout must give: communicators of each
 * node's ranks and of the lowest ones, a non-commutative reduce only where
 * nodes hold consecutive ranks, an allgather on nodes of any size, K
 * leaders only where every node has K ranks. */
static int node_setup(MPI_Comm comm, int is_dealt, MPI_Comm *out)
{
    int rank, size, n_nodes;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    int *map = malloc((size_t)size * sizeof *map);
    int *count = calloc((size_t)size, sizeof *count);
    if (!map || !count) {
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    n_nodes = node_map(comm, map);
    *out = comm;
    if (is_dealt) {
        /* key: (index on its node) * n_nodes + node */
        int local = 0;
        for (int r = 0; r < rank; r++) {
            local += map[r] == map[rank];
        }
        if (n_nodes == 1 || n_nodes == size) {
            free(map);
            free(count);
            return 1;
        }
        MPI_Comm_split(comm, 0, local * n_nodes + map[rank], out);
        MPI_Comm_set_errhandler(*out, MPI_ERRORS_RETURN);
        MPI_Comm_rank(*out, &rank);
        n_nodes = node_map(*out, map);
    }
    struct node_comms *nc;
    if (node_comms_create(*out, map, &nc) != MPI_SUCCESS) {
        fprintf(stderr, "rank %d: node_comms_create failed\n", rank);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    int lowest = rank, n_here = 0, local = 0, sub;
    for (int r = size - 1; r >= 0; r--) {
        count[map[r]]++;
        n_here += map[r] == map[rank];
        local += r < rank && map[r] == map[rank];
        lowest = map[r] == map[rank] ? r : lowest;
    }
    /* peers: the ranks of this rank's index on the nodes that have one */
    int n_peers = 0, fewest = size, peer_rank = 0;
    for (int n = 0; n < n_nodes; n++) {
        fewest = count[n] < fewest ? count[n] : fewest;
        n_peers += count[n] > local;
        peer_rank += n < map[rank] && count[n] > local;
    }
    CHECK_INT(local, nc->local);
    MPI_Comm_size(nc->peers, &sub);
    CHECK_INT(n_peers, sub);
    MPI_Comm_rank(nc->peers, &sub);
    CHECK_INT(peer_rank, sub);
    CHECK_INT(n_nodes, nc->n_nodes);
    MPI_Comm_size(nc->intra, &sub);
    CHECK_INT(n_here, sub);
    CHECK_INT(lowest == rank, nc->leaders != MPI_COMM_NULL);
    if (nc->leaders != MPI_COMM_NULL) {
        MPI_Comm_size(nc->leaders, &sub);
        CHECK_INT(n_nodes, sub);
        MPI_Comm_rank(nc->leaders, &sub);
        CHECK_INT(map[rank], sub);
    }
    struct node_plan plan;
    char err[160];
    CHECK(!node_plan_parse(coll_find("reduce"), "node:binomial/0+binomial/0",
                           &plan, err, sizeof err));
    CHECK_INT(!is_dealt, node_applies("reduce", nc, &plan, ops[2].op));
    CHECK(node_applies("reduce", nc, &plan, MPI_SUM));
    CHECK(!node_plan_parse(coll_find("allgather"), "node:linear+ring+linear",
                           &plan, err, sizeof err));
    /* nodes of unequal size too: their node blocks padded */
    CHECK(node_applies("allgather", nc, &plan, MPI_OP_NULL));
    /* three leaders per node: only where every node has three ranks */
    CHECK(!node_plan_parse(coll_find("allreduce"), "node3:linear+ring+linear",
                           &plan, err, sizeof err));
    CHECK_INT(fewest >= 3, node_applies("allreduce", nc, &plan, MPI_SUM));
    if (rank == 0) {
        printf("node-aware: P=%d on %d nodes of", size, n_nodes);
        for (int n = 0; n < n_nodes; n++) {
            printf(" %d", count[n]);
        }
        printf(" ranks, %s\n",
               is_dealt ? "dealt round the nodes" : "as launched");
    }
    node_now.nc = nc;
    free(map);
    free(count);
    return 0;
}

/* The table itself: names unique, lookups and applicability work. */
static void test_table(void)
{
    CHECK(coll_table_size >= 2);
    CHECK(coll_find("bcast") != NULL);
    CHECK(coll_find("reduce") != NULL);
    CHECK(coll_find("no_such_collective") == NULL);
    for (int i = 0; i < coll_table_size; i++) {
        const struct coll_def *c = coll_table[i];
        CHECK(coll_find(c->name) == c);
        CHECK(c->reference != NULL);
        /* The shapes this test knows how to fill: a reduction combines one
         * block per rank; only a rooted collective has root-only buffers. */
        CHECK(!c->is_reduction ||
              (c->send_blocks == BLOCKS_ONE && c->recv_blocks == BLOCKS_ONE));
        CHECK(c->is_rooted || (c->send_blocks != BLOCKS_ROOT_P &&
                               c->recv_blocks != BLOCKS_ROOT_P));
        CHECK_INT(-1, coll_find_alg(c, "no_such_algorithm"));
        for (int a = 0; a < c->n_algs; a++) {
            CHECK_INT(a, coll_find_alg(c, c->algs[a].name));
            CHECK(c->algs[a].run != NULL && c->algs[a].summary != NULL);
        }
    }
    const struct coll_def *reduce = coll_find("reduce");
    int rab = reduce ? coll_find_alg(reduce, "rabenseifner") : -1;
    CHECK(rab >= 0);
    if (rab >= 0) {
        CHECK(coll_alg_applies(&reduce->algs[rab], 5, MPI_SUM));
        CHECK(!coll_alg_applies(&reduce->algs[rab], 5, ops[2].op));
    }
    const struct coll_alg pow2 = {"x", NULL, NEED_POW2_PROCS, 0, "x", NULL};
    const struct coll_alg two = {"x", NULL, NEED_TWO_PROCS, 0, "x", NULL};
    CHECK(coll_alg_applies(&pow2, 8, MPI_OP_NULL));
    CHECK(!coll_alg_applies(&pow2, 6, MPI_OP_NULL));
    CHECK(coll_alg_applies(&two, 2, MPI_OP_NULL));
    CHECK(!coll_alg_applies(&two, 3, MPI_OP_NULL));
}

int main(int argc, char **argv)
{
    MPI_Comm comm;
    int rank, size;
    int is_quick = 0, is_runtime = 0, is_node = 0;
    const char *only = NULL;
    struct coll_alg app = {"(libautotune)", NULL, 0, 0, "", NULL};

    MPI_Init(&argc, &argv);
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-q") == 0) {
            is_quick = 1;
        } else if (strcmp(argv[i], "-r") == 0) {
            is_runtime = 1;
        } else if (strcmp(argv[i], "-n") == 0) {
            is_node = 1;
        } else if (strcmp(argv[i], "-c") == 0 && i + 1 < argc) {
            only = argv[++i];
        } else {
            fprintf(stderr,
                    "usage: test_collectives [-q] [-r | -n] [-c name]\n");
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
    }
    if (is_runtime && is_node) {
        fprintf(stderr, "test_collectives: -r and -n exclude each other\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    if (only && !coll_find(only)) {
        fprintf(stderr, "test_collectives: -c %s: no such collective\n", only);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    if (setup_types()) {
        fprintf(stderr, "rank %d: cannot build the test datatypes\n", rank);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    test_table();
    if (rank == 0 && !HAS_HOLEY_LB) {
        printf("note: SMPI build: no type with a non-zero lower bound\n");
    }

    for (int dealt = 0; is_node && dealt < 2; dealt++) {
        MPI_Comm nodes_comm;
        if (node_setup(comm, dealt, &nodes_comm)) {
            continue;
        }
        for (int ci = 0; ci < coll_table_size; ci++) {
            if (!only || strcmp(only, coll_table[ci]->name) == 0) {
                test_node_coll(nodes_comm, coll_table[ci], is_quick);
            }
        }
        node_comms_destroy(node_now.nc);
        node_now.nc = NULL;
        if (nodes_comm != comm) {
            MPI_Comm_free(&nodes_comm);
        }
    }
    for (int ci = 0; ci < coll_table_size && !is_node; ci++) {
        const struct coll_def *c = coll_table[ci];
        if (only && strcmp(only, c->name) != 0) {
            continue;
        }
        const struct coll_alg *algs = is_runtime ? &app : c->algs;
        int n_algs = is_runtime ? 1 : c->n_algs;
        if (is_runtime && !(app.run = app_call_of(c))) {
            if (rank == 0) {
                fprintf(stderr,
                        "test_collectives: -r: no MPI_ call for collective "
                        "'%s' (add it to app_calls)\n",
                        c->name);
            }
            n_failed++;
            continue;
        }
        test_coll(comm, c, algs, n_algs, is_quick);
    }

    int failures = check_failures + n_failed, total;
    MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, comm);
    if (rank == 0) {
        if (is_node) {
            printf("test_collectives: P=%d: %d not applicable\n", size,
                   node_now.n_not_applicable);
        }
        printf("test_collectives: P=%d: %d runs, %d failed\n", size, n_runs,
               n_failed);
    }
    MPI_Op_free(&ops[2].op);
    MPI_Op_free(&ops[3].op);
    MPI_Type_free(&types[2].dtype);
    MPI_Type_free(&types[3].dtype);
    MPI_Comm_free(&comm);
    MPI_Finalize();
    return total != 0 || check_exit();
}
