/* Clocks compared across ranks: each rank's offset from a communicator's
 * rank 0's MPI_Wtime (the harness and libautotune's profile share them). */
#ifndef COLLECTIVES_CLOCK_H
#define COLLECTIVES_CLOCK_H

#include <mpi.h>

/* 1 if MPI_Wtime is one clock for every rank (MPI_WTIME_IS_GLOBAL: SimGrid's
 * simulated time); then every offset is 0 and no sync is needed. */
int clock_is_global(void);

/* Collective over comm: *offset_s = this rank's MPI_Wtime minus comm rank
 * 0's at the same instant (0 on rank 0), from the round trip of least
 * duration out of a few ping-pongs with rank 0 (Cristian's method: the
 * error is at most half that round trip). */
int clock_sync(MPI_Comm comm, double *offset_s);

#endif
