/* A stencil mini-app whose ranks reach their collectives out of step, for
 * `make bench-truth`: a 1-D Jacobi sweep, rows split in blocks over the
 * ranks. Each step exchanges halo rows with the neighbours (point to
 * point), computes for a time that differs between ranks and steps (the
 * load imbalance: rank r works BASE_US x (1 + (r + step) mod P / P); under
 * SMPI a simulated sleep, elsewhere a spin on MPI_Wtime), then sums the
 * residual (allreduce, 8 bytes). Every EVERY steps the ranks sum a
 * histogram (allreduce of 2048 doubles) and rank 0, which also writes a
 * checkpoint (a further 2 x BASE_US), broadcasts the monitoring state
 * (bcast, 64 KiB): its ranks arrive with the root last.
 *   stencil [-n ROWS_PER_RANK] [-s STEPS] [-k EVERY] [-b BASE_US] [-w 1]
 * Prints the residual and the time (the slowest rank's, between
 * barriers). -w 1: one allreduce before the first barrier, untimed (SMPI's
 * first allreduce or bcast in a process takes longer, 217 us on frodo's
 * 16 ranks: libautotune's MPI_Init pays it outside the timed loop, the
 * app without libautotune inside it unless warmed). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef SMPI_H /* defined by SimGrid's mpi.h */
#include <simgrid/actor.h>
#endif

enum { HISTOGRAM = 2048, BOUNDARY = 8192 };

/* Work for us microseconds of the rank's time. */
static void work_for(double us)
{
#ifdef SMPI_H
    sg_actor_sleep_for(us * 1e-6);
#else
    double end = MPI_Wtime() + us * 1e-6;
    while (MPI_Wtime() < end) {
    }
#endif
}

int main(int argc, char **argv)
{
    int n = 4096, steps = 60, every = 6, base_us = 400, warm = 0, rank, size;
    for (int a = 1; a + 1 < argc; a += 2) {
        int v = atoi(argv[a + 1]);
        if (v < 1 || argv[a][0] != '-' || !strchr("nskbw", argv[a][1]) ||
            argv[a][2] || (argv[a][1] == 'w' && v != 1)) {
            fprintf(stderr, "usage: stencil [-n ROWS_PER_RANK] [-s STEPS] "
                            "[-k EVERY] [-b BASE_US] (each >= 1) [-w 1]\n");
            return 2;
        }
        *(argv[a][1] == 'n'   ? &n
          : argv[a][1] == 's' ? &steps
          : argv[a][1] == 'k' ? &every
          : argv[a][1] == 'b' ? &base_us
                              : &warm) = v;
    }
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    /* u[0] and u[n + 1] are the halo rows. */
    double *u = calloc((size_t)n + 2, sizeof *u),
           *next = calloc((size_t)n + 2, sizeof *next),
           *histogram = calloc(HISTOGRAM, sizeof *histogram),
           *histogram_sum = malloc(HISTOGRAM * sizeof *histogram_sum),
           *boundary = calloc(BOUNDARY, sizeof *boundary);
    if (!u || !next || !histogram || !histogram_sum || !boundary) {
        fprintf(stderr, "stencil: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    int up = rank > 0 ? rank - 1 : MPI_PROC_NULL,
        down = rank + 1 < size ? rank + 1 : MPI_PROC_NULL;
    double residual = 0;
    if (warm) {
        MPI_Allreduce(&u[1], &residual, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    double start = MPI_Wtime();
    for (int step = 0; step < steps; step++) {
        MPI_Sendrecv(&u[1], 1, MPI_DOUBLE, up, 0, &u[n + 1], 1, MPI_DOUBLE,
                     down, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Sendrecv(&u[n], 1, MPI_DOUBLE, down, 1, &u[0], 1, MPI_DOUBLE, up, 1,
                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (rank == 0) {
            u[0] = 1; /* the fixed boundary */
        }
        double local = 0;
        for (int i = 1; i <= n; i++) {
            next[i] = (u[i - 1] + u[i + 1]) / 2;
            local += (next[i] - u[i]) * (next[i] - u[i]);
        }
        memcpy(&u[1], &next[1], (size_t)n * sizeof *u);
        work_for(base_us * (1.0 + (double)((rank + step) % size) / size));
        MPI_Allreduce(&local, &residual, 1, MPI_DOUBLE, MPI_SUM,
                      MPI_COMM_WORLD);
        if ((step + 1) % every != 0) {
            continue;
        }
        for (int i = 1; i <= n; i++) {
            int bin = (int)(u[i] * (HISTOGRAM - 1));
            histogram[bin < 0 ? 0 : bin >= HISTOGRAM ? HISTOGRAM - 1 : bin]++;
        }
        MPI_Allreduce(histogram, histogram_sum, HISTOGRAM, MPI_DOUBLE, MPI_SUM,
                      MPI_COMM_WORLD);
        if (rank == 0) {
            work_for(2.0 * base_us); /* the checkpoint */
            boundary[step % BOUNDARY] = residual;
        }
        MPI_Bcast(boundary, BOUNDARY, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    double elapsed = MPI_Wtime() - start, slowest = 0;
    MPI_Reduce(&elapsed, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        printf("stencil: P=%d rows=%ld steps=%d residual=%.6e time_s=%.9f\n",
               size, (long)n * size, steps, residual, slowest);
    }
    free(u);
    free(next);
    free(histogram);
    free(histogram_sum);
    free(boundary);
    MPI_Finalize();
    return 0;
}
