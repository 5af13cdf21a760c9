/* Clocks the harness can compare across ranks: each rank's offset from comm
 * rank 0's MPI_Wtime (collectives/clock.h), so every rank can start a call
 * at one common instant. */
#ifndef TUNE_CLOCK_H
#define TUNE_CLOCK_H

#include <mpi.h>

#include "collectives/clock.h"

/* Waits until MPI_Wtime() reaches t_s (this rank's clock). Returns 1,
 * without waiting, if that instant has already passed. */
int clock_wait_until(double t_s);

/* SimGrid computes event dates on the absolute clock, so a simulated call
 * with flows that finish together can come out differently (by about 0.1 %)
 * in another binade [2^k, 2^(k+1)) of it. Under SMPI the sweep therefore
 * moves every rank's clock to 2^CLOCK_EPOCH_LOG2 s before measuring: every
 * experiment of a sweep, resumed or not, runs in that one binade, where a
 * call's simulation does not depend on when it starts. Elsewhere it does
 * nothing. */
enum { CLOCK_EPOCH_LOG2 = 18 };
void clock_enter_epoch(void);
/* 1 once the clock has left that binade (a sweep of over 2^18 simulated
 * seconds); 0 outside SMPI. */
int clock_left_epoch(void);

#endif
