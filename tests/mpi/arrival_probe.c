/* arrival_probe: a collective timed by hand under an arrival pattern, the
 * reference for the harness's measure.arrival (tests/sh/test_arrival_smpi.sh).
 *
 *   arrival_probe COLL BYTES root_last SPREAD_US [reps]
 *   arrival_probe COLL BYTES barrier [reps]
 *   arrival_probe COLL BYTES offsets O_0,..,O_P-1/O_0,.. [reps [NEXT N]]
 *
 * COLL is bcast, reduce or allreduce (the library's, root 0, MPI_BYTE or
 * MPI_UNSIGNED_CHAR with MPI_SUM). Each repetition starts at an instant a
 * second after the previous one, far after it ended:
 * - root_last: rank 0 calls SPREAD_US after that instant, the others at
 *   it; the time is the last rank's end minus the instant;
 * - offsets: repetition i has rank r call O_r of the (i mod K)-th of the
 *   K '/'-separated lists (us) after that instant; the time as root_last;
 *   with NEXT N, each rank calls the library's NEXT (a COLL or allgather)
 *   of N bytes as soon as it leaves COLL (untimed);
 * - barrier: every rank enters MPI_Barrier at the instant, reads MPI_Wtime
 *   when it leaves, calls; the time is the largest of the ranks' own
 *   times from barrier exit to end (what IMB and OSU report).
 * One line per repetition on rank 0: "time_us T" (whole nanoseconds).
 * Meant for SMPI, where the clock is global and a rank sleeps to an
 * instant exactly; elsewhere each rank spins on its own clock.
 */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef SMPI_H
#include <simgrid/actor.h>
#endif

/* SimGrid's event dates depend on the binade of its absolute clock; the
 * sweep measures in [2^18, 2^19) s (tune/clock.h), so the probe does too. */
#define FIRST_START_S 262145.0

static void wait_until(double t_s)
{
#ifdef SMPI_H
    sg_actor_sleep_until(t_s);
#else
    while (MPI_Wtime() < t_s) {
    }
#endif
}

static int call(const char *coll, void *send, void *recv, int n)
{
    if (strcmp(coll, "bcast") == 0) {
        return MPI_Bcast(send, n, MPI_BYTE, 0, MPI_COMM_WORLD);
    }
    if (strcmp(coll, "reduce") == 0) {
        return MPI_Reduce(send, recv, n, MPI_UNSIGNED_CHAR, MPI_SUM, 0,
                          MPI_COMM_WORLD);
    }
    if (strcmp(coll, "allgather") == 0) {
        return MPI_Allgather(send, n, MPI_BYTE, recv, n, MPI_BYTE,
                             MPI_COMM_WORLD);
    }
    return MPI_Allreduce(send, recv, n, MPI_UNSIGNED_CHAR, MPI_SUM,
                         MPI_COMM_WORLD);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int is_barrier = argc >= 4 && strcmp(argv[3], "barrier") == 0;
    int is_root_last = argc >= 5 && strcmp(argv[3], "root_last") == 0;
    int is_offsets = argc >= 5 && strcmp(argv[3], "offsets") == 0;
    const char *coll = argc >= 2 ? argv[1] : "";
    /* offsets: this rank's delay in each list (at most 64 lists) */
    double own_us[64];
    int n_lists = 0, size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (const char *c = is_offsets ? argv[4] : ""; *c && n_lists < 64;) {
        for (int r = 0; r < size; r++) {
            char *end;
            double v = strtod(c, &end);
            if (r == rank) {
                own_us[n_lists] = v;
            }
            c = *end == ',' ? end + 1 : end;
        }
        n_lists++;
        c = *c == '/' ? c + 1 : c + strlen(c);
    }
    if (is_offsets && n_lists == 0) {
        is_offsets = 0;
    }
    if ((!is_barrier && !is_root_last && !is_offsets) ||
        (strcmp(coll, "bcast") != 0 && strcmp(coll, "reduce") != 0 &&
         strcmp(coll, "allreduce") != 0)) {
        if (rank == 0) {
            fprintf(stderr, "usage: arrival_probe bcast|reduce|allreduce "
                            "BYTES root_last SPREAD_US | offsets LISTS | "
                            "barrier [reps]\n");
        }
        MPI_Finalize();
        return 2;
    }
    int n = atoi(argv[2]);
    const char *next = is_offsets && argc > 7 ? argv[6] : NULL;
    int next_n = next ? atoi(argv[7]) : 0;
    int size_n = next_n * size > n * size ? next_n * size : n * size;
    double spread_s = is_root_last ? atof(argv[4]) * 1e-6 : 0;
    int arg_reps = is_root_last || is_offsets ? 5 : 4;
    int reps = argc > arg_reps ? atoi(argv[arg_reps]) : 3;
    unsigned char *send = calloc((size_t)size_n + 1, 1);
    unsigned char *recv = calloc((size_t)size_n + 1, 1);
    double *times = calloc((size_t)reps, sizeof *times);
    double *max = calloc((size_t)reps, sizeof *max);
    if (!send || !recv || !times || !max || reps < 1) {
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    for (int i = 0; i < reps; i++) {
        double start = FIRST_START_S + i;
        if (is_barrier) {
            wait_until(start);
            MPI_Barrier(MPI_COMM_WORLD);
            double began = MPI_Wtime();
            call(coll, send, recv, n);
            times[i] = MPI_Wtime() - began;
        } else if (is_offsets) {
            wait_until(start + own_us[i % n_lists] * 1e-6);
            call(coll, send, recv, n);
            times[i] = MPI_Wtime() - start;
            if (next) {
                call(next, send, recv, next_n);
            }
        } else {
            wait_until(start + (rank == 0 ? spread_s : 0));
            call(coll, send, recv, n);
            times[i] = MPI_Wtime() - start;
        }
    }
    /* Not before every rank has ended: ranks that end early would
     * otherwise send while others still run the last repetition. */
    wait_until(FIRST_START_S + reps);
    MPI_Reduce(times, max, reps, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    for (int i = 0; i < reps && rank == 0; i++) {
        printf("time_us %.3f\n", round(max[i] * 1e9) / 1e3);
    }
    free(send);
    free(recv);
    free(times);
    free(max);
    MPI_Finalize();
    return 0;
}
