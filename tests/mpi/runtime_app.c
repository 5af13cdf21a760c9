/* An application for libautotune's tests: plain MPI calls on communicators
 * that come and go (split, dup, free cycles), MPI_COMM_SELF, size-1
 * communicators, an inter-communicator (not under SMPI, which has none)
 * and a non-commutative operation,
 * each result checked here. Prints "runtime_app: ok" on rank 0 when every
 * rank's results were right. Usage: runtime_app [-t | -i] (-t:
 * MPI_Init_thread with MPI_THREAD_MULTIPLE; -i: instead, bcast, allreduce,
 * allgather and barrier once on the world's ranks interleaved, even ranks
 * first then odd ones: a layout whose nodes' ranks are not consecutive) */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

enum { CYCLES = 20, N = 1000 };
#ifdef SMPI_H
enum { HAS_INTERCOMM = 0 };
#else
enum { HAS_INTERCOMM = 1 };
#endif

static int n_bad;

static void expect(int is_ok, const char *what, int rank)
{
    if (!is_ok) {
        fprintf(stderr, "runtime_app: rank %d: %s is wrong\n", rank, what);
        n_bad++;
    }
}

/* 2x2 integer matrices: inout = in x inout, associative, not commutative. */
static void op_matmul(void *in, void *inout, int *len, MPI_Datatype *dtype)
{
    (void)dtype;
    int *a = in, *b = inout;
    for (int i = 0; i < *len; i++, a += 4, b += 4) {
        int c[4] = {a[0] * b[0] + a[1] * b[2], a[0] * b[1] + a[1] * b[3],
                    a[2] * b[0] + a[3] * b[2], a[2] * b[1] + a[3] * b[3]};
        memcpy(b, c, sizeof c);
    }
}

/* bcast, allreduce, allgather and barrier on comm, checked. */
static void exercise(MPI_Comm comm, int world_rank)
{
    int rank, size, buf[N], sum = 0, all[64];
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    for (int i = 0; i < N; i++) {
        buf[i] = rank == size - 1 ? i * 3 + 1 : -1;
    }
    MPI_Bcast(buf, N, MPI_INT, size - 1, comm);
    expect(buf[0] == 1 && buf[N - 1] == 3 * (N - 1) + 1, "bcast", world_rank);
    int one = rank + 1;
    MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, comm);
    expect(sum == size * (size + 1) / 2, "allreduce", world_rank);
    if (size <= 64) {
        MPI_Allgather(&rank, 1, MPI_INT, all, 1, MPI_INT, comm);
        for (int i = 0; i < size; i++) {
            expect(all[i] == i, "allgather", world_rank);
        }
    }
    MPI_Barrier(comm);
}

/* Rank r contributes [[r + 1, 1], [1, 0]]: their product in rank order
 * differs from the product in any other order. */
static void noncommutative(MPI_Comm comm, int world_rank)
{
    int rank, size, m[4], got[4], want[4] = {1, 0, 0, 1};
    MPI_Op op;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    MPI_Op_create(op_matmul, 0, &op);
    for (int r = size - 1; r >= 0; r--) {
        int a[4] = {r + 1, 1, 1, 0}, len = 1;
        MPI_Datatype t = MPI_INT;
        op_matmul(a, want, &len, &t);
    }
    m[0] = rank + 1;
    m[1] = 1;
    m[2] = 1;
    m[3] = 0;
    MPI_Datatype mat;
    MPI_Type_contiguous(4, MPI_INT, &mat);
    MPI_Type_commit(&mat);
    MPI_Allreduce(m, got, 1, mat, op, comm);
    expect(memcmp(got, want, sizeof got) == 0, "non-commutative allreduce",
           world_rank);
    MPI_Type_free(&mat);
    MPI_Op_free(&op);
}

int main(int argc, char **argv)
{
    int rank, size, provided;
    if (argc > 1 && strcmp(argv[1], "-t") == 0) {
        MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    } else {
        MPI_Init(&argc, &argv);
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    if (argc > 1 && strcmp(argv[1], "-i") == 0) {
        MPI_Comm interleaved;
        MPI_Comm_split(MPI_COMM_WORLD, 0, (rank % 2) * size + rank,
                       &interleaved);
        exercise(interleaved, rank);
        MPI_Comm_free(&interleaved);
        goto done;
    }
    exercise(MPI_COMM_WORLD, rank);
    exercise(MPI_COMM_SELF, rank);
    noncommutative(MPI_COMM_WORLD, rank);
    for (int i = 0; i < CYCLES; i++) {
        MPI_Comm half, copy, single;
        MPI_Comm_split(MPI_COMM_WORLD, rank % 2, size - rank, &half);
        MPI_Comm_dup(half, &copy);
        MPI_Comm_split(MPI_COMM_WORLD, rank, 0, &single);
        exercise(half, rank);
        exercise(copy, rank);
        exercise(single, rank);
        MPI_Comm_free(&half);
        exercise(copy, rank);
        MPI_Comm_free(&copy);
        MPI_Comm_free(&single);
    }
    /* SimGrid 3.32 has no MPI_Intercomm_create. */
    if (size >= 2 && HAS_INTERCOMM) {
        MPI_Comm half, inter;
        MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
        MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, 1 - rank % 2, 7, &inter);
        int v = rank % 2 == 0 ? 42 : -1;
        int hrank;
        MPI_Comm_rank(half, &hrank);
        int root = rank % 2 == 0 ? (hrank == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;
        MPI_Bcast(&v, 1, MPI_INT, root, inter);
        expect(rank % 2 == 0 || v == 42, "inter-communicator bcast", rank);
        MPI_Comm_free(&inter);
        MPI_Comm_free(&half);
    }

done:;
    int total = 0;
    MPI_Allreduce(&n_bad, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && total == 0) {
        printf("runtime_app: ok\n");
    }
    MPI_Finalize();
    return total != 0;
}
