/* Waiting for an instant, and the simulated clock's epoch: what the harness
 * needs, with the offsets of collectives/clock.c, to start every rank of a
 * call at once. */
#include <math.h>
#include <time.h>

#include "tune/clock.h"
#ifdef SMPI_H /* defined by SimGrid's mpi.h */
#include <simgrid/actor.h>
#include <simgrid/engine.h>
#endif

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
