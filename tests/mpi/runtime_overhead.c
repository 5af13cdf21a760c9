/* libautotune's per-call overhead (make bench-runtime-overhead): an 8-byte
 * MPI_Bcast on MPI_COMM_SELF, which moves nothing, through its plain name
 * (libautotune when preloaded: lookup and dispatch) and through PMPI_Bcast
 * (the library directly). Prints the median over batches of each, in ns
 * per call. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

enum { BATCHES = 201, CALLS = 20000 };

static int compare(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median_ns(int (*bcast)(void *, int, MPI_Datatype, int, MPI_Comm))
{
    static double ns[BATCHES];
    double v = 0;
    for (int b = 0; b < BATCHES; b++) {
        double t0 = MPI_Wtime();
        for (int i = 0; i < CALLS; i++) {
            bcast(&v, 1, MPI_DOUBLE, 0, MPI_COMM_SELF);
        }
        ns[b] = (MPI_Wtime() - t0) / CALLS * 1e9;
    }
    qsort(ns, BATCHES, sizeof ns[0], compare);
    return ns[BATCHES / 2];
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    double direct = median_ns(PMPI_Bcast);
    double plain = median_ns(MPI_Bcast);
    printf("MPI_Bcast %.1f ns, PMPI_Bcast %.1f ns, overhead %.1f ns\n", plain,
           direct, plain - direct);
    MPI_Finalize();
    return 0;
}
