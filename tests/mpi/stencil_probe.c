/* stencil_probe: the stencil's 8-byte allreduce (tests/apps/stencil.c),
 * one factor at a time, each call timed as the harness times one (issue
 * 38's frodo miss).
 *
 *   stencil_probe bytes|double|in_place SPREAD_US halo|quiet [warm]
 *
 * 60 steps; in each, optionally the stencil's halo exchange (two chained
 * MPI_Sendrecv of one double), then rank r works 400 us plus SPREAD_US x
 * ((r + step) mod P) / (P - 1) (the stencil's imbalance: ranks arrive in
 * rank order, from a rank one lower each step), then MPI_Allreduce with
 * MPI_SUM of 8 MPI_UNSIGNED_CHAR (the harness's form), 1 MPI_DOUBLE (the
 * stencil's) or 1 MPI_DOUBLE in place. With "warm", one allreduce before
 * the first step. Rank 0 prints the means over the calls of: the spread
 * of the arrivals, the first arrival to the last rank's end (what the
 * harness times), the last arrival to the last end, and the ranks' own
 * times (what a profile's seconds add up), then the first call's first
 * arrival to last end alone. Meant for SMPI (simulated work); elsewhere
 * each rank spins on its own clock.
 */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef SMPI_H
#include <simgrid/actor.h>
#endif

enum { STEPS = 60 };

static void work_for(double s)
{
#ifdef SMPI_H
    sg_actor_sleep_for(s);
#else
    double end = MPI_Wtime() + s;
    while (MPI_Wtime() < end) {
    }
#endif
}

static void allreduce(const char *type, double *local, double *sum)
{
    if (strcmp(type, "bytes") == 0) {
        MPI_Allreduce(local, sum, 8, MPI_UNSIGNED_CHAR, MPI_SUM,
                      MPI_COMM_WORLD);
    } else if (strcmp(type, "double") == 0) {
        MPI_Allreduce(local, sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    } else {
        *sum = *local;
        MPI_Allreduce(MPI_IN_PLACE, sum, 1, MPI_DOUBLE, MPI_SUM,
                      MPI_COMM_WORLD);
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *type = argc > 1 ? argv[1] : "";
    int is_halo = argc > 3 && strcmp(argv[3], "halo") == 0;
    if (argc < 4 || argc > 5 || size < 2 ||
        (strcmp(type, "bytes") != 0 && strcmp(type, "double") != 0 &&
         strcmp(type, "in_place") != 0) ||
        (!is_halo && strcmp(argv[3], "quiet") != 0) ||
        (argc == 5 && strcmp(argv[4], "warm") != 0)) {
        if (rank == 0) {
            fprintf(stderr, "usage: stencil_probe bytes|double|in_place "
                            "SPREAD_US halo|quiet [warm] (2 ranks or more)\n");
        }
        MPI_Finalize();
        return 2;
    }
    double spread_s = atof(argv[2]) * 1e-6;
    double local = rank, sum = 0, halo[3] = {0};
    double entry[STEPS], exit[STEPS];
    int up = rank > 0 ? rank - 1 : MPI_PROC_NULL,
        down = rank + 1 < size ? rank + 1 : MPI_PROC_NULL;
    if (argc == 5) {
        allreduce(type, &local, &sum);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    for (int step = 0; step < STEPS; step++) {
        if (is_halo) {
            MPI_Sendrecv(&halo[1], 1, MPI_DOUBLE, up, 0, &halo[2], 1,
                         MPI_DOUBLE, down, 0, MPI_COMM_WORLD,
                         MPI_STATUS_IGNORE);
            MPI_Sendrecv(&halo[1], 1, MPI_DOUBLE, down, 1, &halo[0], 1,
                         MPI_DOUBLE, up, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
        work_for(400e-6 + spread_s * ((rank + step) % size) / (size - 1));
        entry[step] = MPI_Wtime();
        allreduce(type, &local, &sum);
        exit[step] = MPI_Wtime();
    }
    double *entries = malloc((size_t)size * STEPS * sizeof *entries);
    double *exits = malloc((size_t)size * STEPS * sizeof *exits);
    if (!entries || !exits) {
        fprintf(stderr, "stencil_probe: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_Gather(entry, STEPS, MPI_DOUBLE, entries, STEPS, MPI_DOUBLE, 0,
               MPI_COMM_WORLD);
    MPI_Gather(exit, STEPS, MPI_DOUBLE, exits, STEPS, MPI_DOUBLE, 0,
               MPI_COMM_WORLD);
    if (rank == 0) {
        double spread = 0, span = 0, tail = 0, own = 0, first_span = 0;
        for (int step = 0; step < STEPS; step++) {
            double first = INFINITY, last = -INFINITY, end = -INFINITY;
            for (int r = 0; r < size; r++) {
                double in = entries[r * STEPS + step];
                double out = exits[r * STEPS + step];
                first = fmin(first, in);
                last = fmax(last, in);
                end = fmax(end, out);
                own += (out - in) / size / STEPS;
            }
            spread += (last - first) / STEPS;
            span += (end - first) / STEPS;
            tail += (end - last) / STEPS;
            first_span = step == 0 ? end - first : first_span;
        }
        printf("stencil_probe %s %s %s%s: per call (us): arrival spread "
               "%.3f, first arrival to last end %.3f, last arrival to last "
               "end %.3f, own (mean over ranks) %.3f; the first call %.3f\n",
               type, argv[2], argv[3], argc == 5 ? " warm" : "", spread * 1e6,
               span * 1e6, tail * 1e6, own * 1e6, first_span * 1e6);
    }
    free(entries);
    free(exits);
    MPI_Finalize();
    return 0;
}
