/* Clock offsets by ping-pong with rank 0: the harness starts every rank of
 * a call at one instant with them, and libautotune's profile puts the
 * ranks' arrivals on one clock. */
#include <math.h>

#include "collectives/clock.h"

enum { CLOCK_TAG = 9301, CLOCK_ROUNDS = 8 };

int clock_is_global(void)
{
    int *value = NULL, has = 0;
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_WTIME_IS_GLOBAL, &value, &has);
    return has && value && *value;
}

/* Rank 0's side with one peer: its own time before and after each round
 * trip, the peer's time in between; the shortest round trip bounds the
 * error best. The peer gets its offset back at the end. */
static int sync_peer(MPI_Comm comm, int peer)
{
    double best_rtt = INFINITY, offset = 0;
    int err = MPI_SUCCESS;
    for (int i = 0; i < CLOCK_ROUNDS && err == MPI_SUCCESS; i++) {
        double t0 = MPI_Wtime(), t_peer;
        err = MPI_Send(&t0, 1, MPI_DOUBLE, peer, CLOCK_TAG, comm);
        if (err == MPI_SUCCESS) {
            err = MPI_Recv(&t_peer, 1, MPI_DOUBLE, peer, CLOCK_TAG, comm,
                           MPI_STATUS_IGNORE);
        }
        double t1 = MPI_Wtime();
        if (err == MPI_SUCCESS && t1 - t0 < best_rtt) {
            best_rtt = t1 - t0;
            offset = t_peer - (t0 + t1) / 2;
        }
    }
    if (err == MPI_SUCCESS) {
        err = MPI_Send(&offset, 1, MPI_DOUBLE, peer, CLOCK_TAG, comm);
    }
    return err;
}

int clock_sync(MPI_Comm comm, double *offset_s)
{
    int rank, size, err = MPI_SUCCESS;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    *offset_s = 0;
    if (rank == 0) {
        for (int peer = 1; peer < size && err == MPI_SUCCESS; peer++) {
            err = sync_peer(comm, peer);
        }
        return err;
    }
    for (int i = 0; i < CLOCK_ROUNDS && err == MPI_SUCCESS; i++) {
        double t;
        err =
            MPI_Recv(&t, 1, MPI_DOUBLE, 0, CLOCK_TAG, comm, MPI_STATUS_IGNORE);
        t = MPI_Wtime();
        if (err == MPI_SUCCESS) {
            err = MPI_Send(&t, 1, MPI_DOUBLE, 0, CLOCK_TAG, comm);
        }
    }
    if (err == MPI_SUCCESS) {
        err = MPI_Recv(offset_s, 1, MPI_DOUBLE, 0, CLOCK_TAG, comm,
                       MPI_STATUS_IGNORE);
    }
    return err;
}
