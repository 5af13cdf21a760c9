/* MPI_Reduce at every root and MPI_Allreduce with a non-commutative operation
 * (2x2 matrix products, created with commute = 0) at message sizes from 16 B
 * to 1 MiB; prints one line per call and rank with the number of elements
 * that differ from the product in rank order computed locally. Plain MPI: it
 * builds with Open MPI's mpicc and MPICH's mpicc.mpich alike. The export tests
 * run it with and without a rules file: every count must be 0, and the two
 * outputs identical. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Message sizes in matrices of 16 bytes: 16 B to 1 MiB, and some odd ones
 * between the powers of two so that rules cut between sizes are met. */
static const int probe_counts[] = {1,   3,    4,    17,   64,   100,   256,
                                   700, 1024, 3000, 4096, 9000, 16384, 65536};

/* inout[i] = in[i] x inout[i]: MPI hands the op the lower rank's operand
 * first. Unsigned arithmetic wraps, so the product stays associative. */
static void matrix_product(void *in, void *inout, int *len, MPI_Datatype *type)
{
    (void)type;
    const unsigned *a = in;
    unsigned *b = inout;
    for (int i = 0; i < *len; i++, a += 4, b += 4) {
        unsigned c[4] = {a[0] * b[0] + a[1] * b[2], a[0] * b[1] + a[1] * b[3],
                         a[2] * b[0] + a[3] * b[2], a[2] * b[1] + a[3] * b[3]};
        memcpy(b, c, sizeof c);
    }
}

/* Rank r's matrix at index i: no two ranks' matrices commute. */
static void fill(unsigned *m, int count, int rank)
{
    for (int i = 0; i < count; i++) {
        unsigned r = (unsigned)rank, k = (unsigned)i;
        m[4 * i + 0] = r + 1;
        m[4 * i + 1] = 2 * r + k % 5 + 1;
        m[4 * i + 2] = r * r + k % 3;
        m[4 * i + 3] = 3 * r + 2;
    }
}

/* The product of every rank's matrices in rank order, computed here. */
static void expected_product(unsigned *want, unsigned *tmp, int count, int size)
{
    fill(want, count, size - 1);
    for (int r = size - 2; r >= 0; r--) {
        fill(tmp, count, r);
        matrix_product(tmp, want, &count, NULL);
    }
}

static int count_wrong(const unsigned *got, const unsigned *want, int count)
{
    int wrong = 0;
    for (int i = 0; i < 4 * count; i++) {
        wrong += got[i] != want[i];
    }
    return wrong;
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Datatype matrix;
    MPI_Type_contiguous(4, MPI_UNSIGNED, &matrix);
    MPI_Type_commit(&matrix);
    MPI_Op op;
    MPI_Op_create(matrix_product, 0, &op);
    int n_counts = (int)(sizeof probe_counts / sizeof probe_counts[0]);
    size_t max = (size_t)probe_counts[n_counts - 1] * 4;
    unsigned *send = malloc(max * sizeof *send);
    unsigned *recv = malloc(max * sizeof *recv);
    unsigned *want = malloc(max * sizeof *want);
    unsigned *tmp = malloc(max * sizeof *tmp);
    if (!send || !recv || !want || !tmp) {
        fprintf(stderr, "rank %d: out of memory\n", rank);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    for (int c = 0; c < n_counts; c++) {
        int count = probe_counts[c];
        int bytes = count * 16;
        fill(send, count, rank);
        expected_product(want, tmp, count, size);
        for (int root = 0; root < size; root++) {
            memset(recv, 0, (size_t)count * 16);
            MPI_Reduce(send, recv, count, matrix, op, root, MPI_COMM_WORLD);
            if (rank == root) {
                printf("reduce %d root %d wrong %d\n", bytes, root,
                       count_wrong(recv, want, count));
            }
        }
        memset(recv, 0, (size_t)count * 16);
        MPI_Allreduce(send, recv, count, matrix, op, MPI_COMM_WORLD);
        printf("allreduce %d rank %d wrong %d\n", bytes, rank,
               count_wrong(recv, want, count));
    }
    fflush(stdout);
    free(send);
    free(recv);
    free(want);
    free(tmp);
    MPI_Op_free(&op);
    MPI_Type_free(&matrix);
    MPI_Finalize();
    return 0;
}
