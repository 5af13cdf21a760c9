/* Clock offsets by ping-pong with rank 0, and waiting for an instant: what
 * the harness needs to start every rank of a call at once. */
#include <math.h>
#include <time.h>

#include "tune/clock.h"
#ifdef SMPI_H /* defined by SimGrid's mpi.h */
#include <simgrid/actor.h>
#include <simgrid/engine.h>
#endif

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

#ifdef SMPI_H
void clock_enter_epoch(void)
{
    double epoch = ldexp(1, CLOCK_EPOCH_LOG2);
    if (simgrid_get_clock() < epoch) {
        sg_actor_sleep_until(epoch);
    }
}

int clock_left_epoch(void)
{
    return simgrid_get_clock() >= ldexp(1, CLOCK_EPOCH_LOG2 + 1);
}

/* Simulated time: the engine's clock, read without the 10 ns that
 * MPI_Wtime adds to it, and a wake-up at that very instant (a sleep of a
 * whole number of nanoseconds would land up to half of one off). */
int clock_wait_until(double t_s)
{
    if (simgrid_get_clock() > t_s) {
        return 1;
    }
    sg_actor_sleep_until(t_s);
    return 0;
}
#else
void clock_enter_epoch(void)
{
}

int clock_left_epoch(void)
{
    return 0;
}

static void sleep_s(double s)
{
    struct timespec ts;
    ts.tv_sec = (time_t)s;
    ts.tv_nsec = (long)llround((s - (double)ts.tv_sec) * 1e9);
    if (ts.tv_nsec >= 1000000000L) {
        ts.tv_sec++;
        ts.tv_nsec -= 1000000000L;
    }
    nanosleep(&ts, NULL);
}

/* Sleeps through most of the wait (the CPU may be shared with a rank still
 * working), then spins: a wake-up can be late by a time slice. */
int clock_wait_until(double t_s)
{
    double now = MPI_Wtime();
    if (now > t_s) {
        return 1;
    }
    if (t_s - now > 2e-3) {
        sleep_s(t_s - now - 1e-3);
    }
    while (MPI_Wtime() < t_s) {
    }
    return 0;
}
#endif
