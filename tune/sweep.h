/* The tuning sweep over the configured grid. */
#ifndef TUNE_SWEEP_H
#define TUNE_SWEEP_H

/* Called on every rank after MPI_Init. Rank 0 reads config_path, resumes
 * from the run directory's journal (or starts over with is_fresh) and
 * writes the tables; the other ranks time what rank 0 asks. Returns the
 * process exit status. */
int sweep_main(const char *config_path, int is_fresh);

#endif
