/* The model's point-to-point calibration, under MPI (seed 003 §3.3). */
#ifndef TUNE_CALIBRATE_H
#define TUNE_CALIBRATE_H

#include <stdbool.h>

/* Every rank, after MPI_Init: measures the parameters of the config's
 * model into RUN/model.journal and RUN/model.csv (is_fresh: the previous
 * calibration moves to RUN/old/N/ first); rank 0 drives and speaks.
 * Returns the exit status, the same on every rank. */
int calibrate_run(const char *config_path, bool is_fresh);

#endif
