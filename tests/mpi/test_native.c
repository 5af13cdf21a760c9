/* The native backend forces the algorithm it names. Under Open MPI, on 4+
 * ranks: a forced bcast has the dependencies of that algorithm (linear: the
 * last rank needs only the root; binomial: it waits for its parent), seen
 * from the order of messages, not from times; allgather two_proc forced on
 * more than two ranks fails instead of running something else. Under SMPI,
 * the backend refuses in one line. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collectives/collectives.h"
#include "tests/check.h"

#ifdef SMPI_H
int main(int argc, char **argv)
{
    const char *colls[] = {"bcast"};
    MPI_Init(&argc, &argv);
    CHECK(native_check(colls, 1) != 0);
    MPI_Finalize();
    return check_failures ? 1 : 0;
}
#else

/* Who waits for whom in a forced bcast from root 0, without timing it:
 * the last rank reports to the middle ranks (1..P-2) when its bcast is done,
 * and they enter the bcast only once told, or after a generous bound. With
 * linear the last rank needs only the root, so every middle rank is told
 * first; with binomial it needs its parent, a middle rank, which therefore
 * is not. Returns 1 on every rank if every middle rank was told first. */
static int last_rank_finishes_alone(const char *alg)
{
    enum { BOUND_S = 10 };
    MPI_Comm forced, side;
    int rank, size, told = 0, token = 1, all_told = 0;
    char buf[64] = {0};
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(native_comm_create(MPI_COMM_WORLD, "bcast", alg, 0, 4, &forced) == 0);
    MPI_Comm_dup(MPI_COMM_WORLD, &side);
    if (rank == 0) {
        CHECK(MPI_Bcast(buf, sizeof buf, MPI_BYTE, 0, forced) == MPI_SUCCESS);
        told = 1;
    } else if (rank == size - 1) {
        CHECK(MPI_Bcast(buf, sizeof buf, MPI_BYTE, 0, forced) == MPI_SUCCESS);
        for (int r = 1; r < size - 1; r++) {
            MPI_Send(&token, 1, MPI_INT, r, 0, side);
        }
        told = 1;
    } else {
        double start = MPI_Wtime();
        while (!told && MPI_Wtime() - start < BOUND_S) {
            MPI_Iprobe(size - 1, 0, side, &told, MPI_STATUS_IGNORE);
        }
        CHECK(MPI_Bcast(buf, sizeof buf, MPI_BYTE, 0, forced) == MPI_SUCCESS);
        MPI_Recv(&token, 1, MPI_INT, size - 1, 0, side, MPI_STATUS_IGNORE);
    }
    MPI_Allreduce(&told, &all_told, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    MPI_Comm_free(&side);
    MPI_Comm_free(&forced);
    return all_told;
}

int main(int argc, char **argv)
{
    const char *colls[] = {"bcast", "reduce", "allgather", "barrier"};
    int rank, size;
    native_prepare_environment();
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(size >= 4);
    CHECK(native_check(colls, 4) == 0);
    /* Open MPI 4.1 registers allgatherv's variables read-only: refused. */
    const char *read_only[] = {"allgatherv"};
    if (rank == 0) {
        printf("expected refusal: ");
        fflush(stdout);
        CHECK(native_check(read_only, 1) != 0);
    }

    int linear = last_rank_finishes_alone("linear");
    int binomial = last_rank_finishes_alone("binomial");
    if (rank == 0) {
        printf("bcast forced to linear: the last rank %s; binomial: it %s\n",
               linear ? "needs only the root" : "waits for another rank",
               binomial ? "needs only the root" : "waits for another rank");
    }
    CHECK(linear);
    CHECK(!binomial);

    /* two_proc cannot run on more than two ranks: an error, not a
     * substitute. */
    MPI_Comm forced;
    char send[8] = {0}, recv[8 * 256];
    CHECK(native_comm_create(MPI_COMM_WORLD, "allgather", "two_proc", 0, 4,
                             &forced) == 0);
    int err = MPI_Allgather(send, 8, MPI_BYTE, recv, 8, MPI_BYTE, forced);
    if (rank == 0) {
        printf("allgather two_proc forced on %d ranks: %s\n", size,
               err == MPI_SUCCESS ? "ran" : "error");
    }
    CHECK(err != MPI_SUCCESS);
    MPI_Comm_free(&forced);
    /* barrier has no segment size variable; forcing still works */
    CHECK(native_comm_create(MPI_COMM_WORLD, "barrier", "double_ring", 0, 4,
                             &forced) == 0);
    CHECK(MPI_Barrier(forced) == MPI_SUCCESS);
    MPI_Comm_free(&forced);
    /* The library's own choice on the world is not forced. */
    CHECK(MPI_Allgather(send, 8, MPI_BYTE, recv, 8, MPI_BYTE, MPI_COMM_WORLD) ==
          MPI_SUCCESS);

    /* Where Open MPI would quietly run another algorithm. */
    CHECK(!native_runs_as_named("bcast", "scatter_allgather", 4, 3, 0));
    CHECK(native_runs_as_named("bcast", "scatter_allgather", 4, 4, 0));
    CHECK(!native_runs_as_named("reduce", "rabenseifner", 5, 3, 0));
    CHECK(native_runs_as_named("reduce", "rabenseifner", 5, 4, 0));
    CHECK(native_runs_as_named("bcast", "binomial", 4, 1, 0));
    CHECK(native_uses_segments("bcast", "binomial"));
    CHECK(!native_uses_segments("bcast", "linear"));
    CHECK(!native_has_algorithm("bcast", "fastest"));

    native_close();
    MPI_Finalize();
    return check_failures ? 1 : 0;
}
#endif
