/* Ranks that arrive at their collectives on a known schedule, for the
 * profile's arrival statistics (test_runtime_arrival_smpi): call k of each
 * pattern starts at T0 + k x PERIOD_US, and each rank waits a known delay
 * after it first. Under SMPI the waits are exact (the simulated clock);
 * elsewhere they spin on MPI_Wtime, exact only to the clocks' agreement.
 *   arrival [-i ITERATIONS]    (4 ranks or more)
 * Prints, per pattern, the point it calls and the spread and shape its
 * delays make (from the delays alone, not from any measurement):
 *   arrival: COLLECTIVE PROCS MSG_BYTES SPREAD_US SHAPE */
#include <mpi.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef SMPI_H /* defined by SimGrid's mpi.h */
#include <simgrid/actor.h>
#include <simgrid/engine.h>
#endif

enum { PERIOD_US = 5000 };

static double now_s(void)
{
#ifdef SMPI_H
    return simgrid_get_clock();
#else
    return MPI_Wtime();
#endif
}

static void wait_until(double t_s)
{
#ifdef SMPI_H
    if (simgrid_get_clock() < t_s) {
        sg_actor_sleep_until(t_s);
    }
#else
    while (MPI_Wtime() < t_s) {
    }
#endif
}

/* One pattern: its calls, each after this rank's delay (us). */
struct pattern {
    const char *coll;
    int root;        /* -1: none */
    int count;       /* doubles */
    double late_us;  /* the delay of the ranks that wait */
    const char *who; /* which ranks wait: "stair" (rank r waits r x late),
                        "root", "one" (rank 1), "others" (all but the root),
                        "split" (two communicators of even and odd ranks,
                        the second rank of each waits; the odd ranks'
                        schedule 1 ms later), "none" */
    const char *shape;
};

static double delay_us(const struct pattern *pt, int rank)
{
    if (strcmp(pt->who, "stair") == 0) {
        return rank * pt->late_us;
    }
    if (strcmp(pt->who, "root") == 0) {
        return rank == pt->root ? pt->late_us : 0;
    }
    if (strcmp(pt->who, "one") == 0) {
        return rank == 1 ? pt->late_us : 0;
    }
    if (strcmp(pt->who, "others") == 0) {
        return rank == pt->root ? 0 : pt->late_us;
    }
    return 0;
}

static void call(const struct pattern *pt, double *buf, MPI_Comm comm)
{
    double out[4];
    if (strcmp(pt->coll, "bcast") == 0) {
        MPI_Bcast(buf, pt->count, MPI_DOUBLE, pt->root, comm);
    } else if (strcmp(pt->coll, "reduce") == 0) {
        MPI_Reduce(buf, out, pt->count, MPI_DOUBLE, MPI_SUM, pt->root, comm);
    } else if (strcmp(pt->coll, "allreduce") == 0) {
        MPI_Allreduce(buf, out, pt->count, MPI_DOUBLE, MPI_SUM, comm);
    } else {
        MPI_Allgather(buf, pt->count, MPI_DOUBLE, out, pt->count, MPI_DOUBLE,
                      comm);
    }
}

int main(int argc, char **argv)
{
    static const struct pattern patterns[] = {
        {"bcast", 0, 1, 10, "stair", "uniform"},
        {"reduce", 2, 1, 50, "root", "root_last"},
        {"allreduce", -1, 1, 40, "one", "one_late"},
        {"bcast", 1, 2, 25, "others", "root_first"},
        {"allreduce", -1, 2, 20, "split", "one_late"},
        {"allgather", -1, 1, 0, "none", "together"},
    };
    int rank, size, iterations = 20;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc == 3 && strcmp(argv[1], "-i") == 0) {
        iterations = atoi(argv[2]);
    }
    if (size < 4 || iterations < 1) {
        if (rank == 0) {
            fprintf(stderr, "arrival: 4 ranks or more, -i N >= 1\n");
        }
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_Comm half;
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
    /* The latest clock (3 doubles: a point of its own, 24 bytes). */
    double now[3] = {now_s(), 0, 0}, buf[4] = {1, 2, 3, 4};
    MPI_Allreduce(MPI_IN_PLACE, now, 3, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    double t0 = now[0] + PERIOD_US * 1e-6;
    for (size_t p = 0; p < sizeof patterns / sizeof patterns[0]; p++) {
        const struct pattern *pt = &patterns[p];
        bool is_split = strcmp(pt->who, "split") == 0;
        double wait_us =
            is_split ? (rank / 2 == 1 ? pt->late_us : 0) + (rank % 2) * 1000.0
                     : delay_us(pt, rank);
        for (int k = 0; k < iterations; k++) {
            wait_until(t0 + (k * PERIOD_US + wait_us) * 1e-6);
            call(pt, buf, is_split ? half : MPI_COMM_WORLD);
        }
        t0 += (double)iterations * PERIOD_US * 1e-6;
        if (rank == 0) {
            double spread = 0;
            for (int r = 0; r < size && !is_split; r++) {
                spread = delay_us(pt, r) > spread ? delay_us(pt, r) : spread;
            }
            printf("arrival: %s %d %d %.3f %s\n", pt->coll,
                   is_split ? size / 2 : size, pt->count * 8,
                   is_split ? pt->late_us : spread, pt->shape);
        }
    }
    MPI_Comm_free(&half);
    MPI_Finalize();
    return 0;
}
