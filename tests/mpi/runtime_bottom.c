/* An application for libautotune's tests: every collective that takes a
 * buffer, with MPI_BOTTOM and datatypes of absolute addresses (with holes
 * and not, in order and not, on one rank or all), each result checked
 * against values computed here. Prints on rank 0 "runtime_bottom: ok"
 * when every rank's results were right, and per collective
 * "runtime_bottom: COLL CALLS BOTTOM": its calls summed over ranks, and
 * how many of them were reductions passing MPI_BOTTOM (which libautotune
 * leaves to the library). */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>

enum { N = 5, MAX_P = 16, GAP = 7 };

static int n_bad;

static void expect(int is_ok, const char *what, int rank)
{
    if (!is_ok) {
        fprintf(stderr, "runtime_bottom: rank %d: %s is wrong\n", rank, what);
        n_bad++;
    }
}

/* Element k of rank r's item in call salt. */
static int val(int salt, int r, int k)
{
    return 1000 * salt + 10 * r + k + 1;
}

/* One item: N ints, 3 at a and 2 at b, at their addresses (a struct of
 * absolute displacements, as Fortran codes build over common blocks). */
static MPI_Datatype item_type(int *a, int *b)
{
    MPI_Aint disp[2];
    int lens[2] = {3, 2};
    MPI_Datatype types[2] = {MPI_INT, MPI_INT}, t;
    MPI_Get_address(a, &disp[0]);
    MPI_Get_address(b, &disp[1]);
    MPI_Type_create_struct(2, lens, disp, types, &t);
    MPI_Type_commit(&t);
    return t;
}

/* Blocks of N ints at base, one every stride ints, at absolute addresses:
 * contiguous when stride is N, else with a hole after each block's third
 * int (3 ints, a hole of stride - N, 2 ints). */
static MPI_Datatype block_type(int *base, int stride)
{
    MPI_Aint at, disp[2];
    int lens[2] = {3, 2};
    MPI_Datatype types[2] = {MPI_INT, MPI_INT}, t, r;
    MPI_Get_address(base, &at);
    disp[0] = at;
    disp[1] = at + (MPI_Aint)(3 + stride - N) * (MPI_Aint)sizeof(int);
    MPI_Type_create_struct(2, lens, disp, types, &t);
    MPI_Type_create_resized(t, at, (MPI_Aint)stride * (MPI_Aint)sizeof(int),
                            &r);
    MPI_Type_free(&t);
    MPI_Type_commit(&r);
    return r;
}

/* N ints at base, without holes, at their addresses, listed from the
 * fourth: their order in messages is base[3], base[4], base[0..2]. */
static MPI_Datatype reversed_type(int *base)
{
    MPI_Aint disp[2];
    int lens[2] = {2, 3};
    MPI_Datatype types[2] = {MPI_INT, MPI_INT}, t;
    MPI_Get_address(base + 3, &disp[0]);
    MPI_Get_address(base, &disp[1]);
    MPI_Type_create_struct(2, lens, disp, types, &t);
    MPI_Type_commit(&t);
    return t;
}

/* Element k of block i in a buffer of block_type(base, stride). */
static int *block_at(int *base, int stride, int i, int k)
{
    return base + (long)i * stride + (k < 3 ? k : k + stride - N);
}

/* The memory the absolute datatypes describe. */
static struct {
    int item[3 + GAP + 2]; /* an item: 3 ints, a hole, 2 ints */
    int blocks[MAX_P * (N + 2)];
    int out[MAX_P * (N + 2)];
} mem;
static int *const item_a = mem.item, *const item_b = mem.item + 3 + GAP;

static void item_set(int salt, int r)
{
    for (int k = 0; k < N; k++) {
        *(k < 3 ? item_a + k : item_b + k - 3) = val(salt, r, k);
    }
}

static int item_get(int k)
{
    return k < 3 ? item_a[k] : item_b[k - 3];
}

/* Calls made, summed over ranks at the end: per collective, all and the
 * reductions on MPI_BOTTOM. */
enum { BCAST, REDUCE, ALLREDUCE, GATHER, SCATTER, ALLGATHER, ALLTOALL, N_C };
static const char *const names[N_C] = {"bcast",   "reduce",  "allreduce",
                                       "gather",  "scatter", "allgather",
                                       "alltoall"};
static long calls[2 * N_C];

/* The root's N ints of mem.blocks from MPI_BOTTOM with dtype, the
 * others' into an array: MPI asks only the type signatures to match.
 * Element k of the message is mem.blocks[at[k]]. */
static void bcast_to_array(MPI_Datatype dtype, const int at[N], int salt,
                           int root, int rank, const char *what)
{
    int plain[N];
    for (int k = 0; k < N; k++) {
        plain[k] = mem.blocks[k] = val(salt, rank, k);
    }
    if (rank == root) {
        MPI_Bcast(MPI_BOTTOM, 1, dtype, root, MPI_COMM_WORLD);
    } else {
        MPI_Bcast(plain, N, MPI_INT, root, MPI_COMM_WORLD);
    }
    for (int k = 0; k < N; k++) {
        expect(rank == root ? mem.blocks[k] == val(salt, root, k)
                            : plain[k] == val(salt, root, at[k]),
               what, rank);
    }
    calls[BCAST]++;
}

static void bcasts(int rank, int size)
{
    static const int in_order[N] = {0, 1, 2, 3, 4},
                     out_of_order[N] = {3, 4, 0, 1, 2};
    MPI_Datatype item = item_type(item_a, item_b);
    MPI_Datatype contig = block_type(mem.blocks, N);
    MPI_Datatype reversed = reversed_type(mem.blocks);
    for (int root = 0; root < size; root += size - 1) {
        item_set(1, rank);
        MPI_Bcast(MPI_BOTTOM, 1, item, root, MPI_COMM_WORLD);
        for (int k = 0; k < N; k++) {
            expect(item_get(k) == val(1, root, k), "bcast of a struct", rank);
        }
        calls[BCAST]++;
        bcast_to_array(contig, in_order, 2, root, rank,
                       "bcast from MPI_BOTTOM to an array");
        /* Without holes but out of order: in messages, the type map's
         * order. */
        bcast_to_array(reversed, out_of_order, 3, root, rank,
                       "bcast from an out-of-order MPI_BOTTOM");
        if (size == 1) {
            break;
        }
    }
    MPI_Type_free(&reversed);
    MPI_Type_free(&contig);
    MPI_Type_free(&item);
}

/* inout += in for items (MPI_SUM takes no derived datatype): a buffer of
 * the item's datatype holds element k at its displacement from the
 * buffer's address, MPI_BOTTOM being address 0. */
static void op_item_sum(void *in, void *inout, int *len, MPI_Datatype *dtype)
{
    (void)dtype;
    MPI_Aint disp[2];
    MPI_Get_address(item_a, &disp[0]);
    MPI_Get_address(item_b, &disp[1]);
    for (int k = 0; *len == 1 && k < N; k++) {
        MPI_Aint at = k < 3 ? disp[0] + k * (MPI_Aint)sizeof(int)
                            : disp[1] + (k - 3) * (MPI_Aint)sizeof(int);
        *(int *)((uintptr_t)inout + (uintptr_t)at) +=
            *(const int *)((uintptr_t)in + (uintptr_t)at);
    }
}

/* Sum over ranks of val(salt, r, k). */
static int sum_of(int salt, int size, int k)
{
    int s = 0;
    for (int r = 0; r < size; r++) {
        s += val(salt, r, k);
    }
    return s;
}

/* copy, as a buffer of the item's datatype: the item's displacements
 * from it land in copy as they land in mem.item from MPI_BOTTOM. */
static void *shifted(int *copy)
{
    MPI_Aint at;
    MPI_Get_address(mem.item, &at);
    return (void *)((uintptr_t)copy - (uintptr_t)at);
}

/* Element k of the item in copy. */
static int copy_get(const int *copy, int k)
{
    return k < 3 ? copy[k] : copy[3 + GAP + k - 3];
}

static void reductions(int rank, int size)
{
    MPI_Datatype item = item_type(item_a, item_b);
    MPI_Op sum_op;
    int copy[sizeof mem.item / sizeof(int)];
    MPI_Op_create(op_item_sum, 1, &sum_op);
    for (int root = 0; root < size; root += size - 1) {
        /* Every rank sends from MPI_BOTTOM, the root receives into a copy
         * (the others' recvbuf is NULL). Not into MPI_BOTTOM: Open MPI
         * 4.1's own reduce leaves a recvbuf MPI_BOTTOM as it was. */
        item_set(3, rank);
        MPI_Reduce(MPI_BOTTOM, rank == root ? shifted(copy) : NULL, 1, item,
                   sum_op, root, MPI_COMM_WORLD);
        for (int k = 0; rank == root && k < N; k++) {
            expect(copy_get(copy, k) == sum_of(3, size, k),
                   "reduce from MPI_BOTTOM", rank);
        }
        calls[REDUCE]++;
        calls[N_C + REDUCE]++;
        /* NULL as the non-roots' recvbuf and with no elements is no
         * MPI_BOTTOM: these reductions stay tuned. */
        int one = val(4, rank, 0), sum = 0;
        MPI_Reduce(&one, rank == root ? &sum : NULL, 1, MPI_INT, MPI_SUM, root,
                   MPI_COMM_WORLD);
        expect(rank != root || sum == sum_of(4, size, 0), "reduce to NULL",
               rank);
        MPI_Reduce(NULL, NULL, 0, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD);
        calls[REDUCE] += 2;
        if (size == 1) {
            break;
        }
    }
    item_set(6, rank);
    MPI_Allreduce(MPI_IN_PLACE, MPI_BOTTOM, 1, item, sum_op, MPI_COMM_WORLD);
    for (int k = 0; k < N; k++) {
        expect(item_get(k) == sum_of(6, size, k), "allreduce in place", rank);
    }
    item_set(7, rank);
    MPI_Allreduce(MPI_BOTTOM, shifted(copy), 1, item, sum_op, MPI_COMM_WORLD);
    for (int k = 0; k < N; k++) {
        expect(copy_get(copy, k) == sum_of(7, size, k),
               "allreduce from MPI_BOTTOM", rank);
    }
    calls[ALLREDUCE] += 2;
    calls[N_C + ALLREDUCE] += 2;
    MPI_Op_free(&sum_op);
    MPI_Type_free(&item);
}

static void blocks(int rank, int size)
{
    enum { S = N + 2 }; /* blocks with holes */
    MPI_Datatype item = item_type(item_a, item_b);
    MPI_Datatype in = block_type(mem.blocks, S), out = block_type(mem.out, S);
    for (int root = 0; root < size; root += size - 1) {
        item_set(7, rank);
        MPI_Gather(MPI_BOTTOM, 1, item, MPI_BOTTOM, 1, out, root,
                   MPI_COMM_WORLD);
        for (int i = 0; rank == root && i < size; i++) {
            for (int k = 0; k < N; k++) {
                expect(*block_at(mem.out, S, i, k) == val(7, i, k), "gather",
                       rank);
            }
        }
        for (int i = 0; i < size; i++) {
            for (int k = 0; k < N; k++) {
                *block_at(mem.blocks, S, i, k) = val(8, i, k);
            }
        }
        MPI_Scatter(MPI_BOTTOM, 1, in, MPI_BOTTOM, 1, item, root,
                    MPI_COMM_WORLD);
        for (int k = 0; k < N; k++) {
            expect(item_get(k) == val(8, rank, k), "scatter", rank);
        }
        calls[GATHER]++;
        calls[SCATTER]++;
        if (size == 1) {
            break;
        }
    }
    item_set(9, rank);
    MPI_Allgather(MPI_BOTTOM, 1, item, MPI_BOTTOM, 1, out, MPI_COMM_WORLD);
    for (int i = 0; i < size; i++) {
        for (int k = 0; k < N; k++) {
            expect(*block_at(mem.out, S, i, k) == val(9, i, k), "allgather",
                   rank);
        }
    }
    /* Rank r sends rank i the block val(10 + i, r, k). */
    for (int i = 0; i < size; i++) {
        for (int k = 0; k < N; k++) {
            *block_at(mem.blocks, S, i, k) = val(10 + i, rank, k);
        }
    }
    MPI_Alltoall(MPI_BOTTOM, 1, in, MPI_BOTTOM, 1, out, MPI_COMM_WORLD);
    for (int i = 0; i < size; i++) {
        for (int k = 0; k < N; k++) {
            expect(*block_at(mem.out, S, i, k) == val(10 + rank, i, k),
                   "alltoall", rank);
        }
    }
    calls[ALLGATHER]++;
    calls[ALLTOALL]++;
    MPI_Type_free(&out);
    MPI_Type_free(&in);
    MPI_Type_free(&item);
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size > MAX_P) {
        if (rank == 0) {
            fprintf(stderr, "runtime_bottom: at most %d ranks\n", MAX_P);
        }
        MPI_Finalize();
        return 2;
    }
    bcasts(rank, size);
    reductions(rank, size);
    blocks(rank, size);

    int total = 0;
    long sum[2 * N_C];
    calls[ALLREDUCE]++;
    calls[REDUCE]++;
    MPI_Allreduce(&n_bad, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Reduce(calls, sum, 2 * N_C, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        for (int c = 0; c < N_C; c++) {
            printf("runtime_bottom: %s %ld %ld\n", names[c], sum[c],
                   sum[N_C + c]);
        }
        if (total == 0) {
            printf("runtime_bottom: ok\n");
        }
    }
    MPI_Finalize();
    return total != 0;
}
