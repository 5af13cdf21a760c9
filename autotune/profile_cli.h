/* Application profiles on the command line: `autotune profile`, and the
 * line of `autotune report` that says how much of the application's
 * collective time a run covers. No MPI. */
#ifndef AUTOTUNE_PROFILE_CLI_H
#define AUTOTUNE_PROFILE_CLI_H

#include <stddef.h>
#include <stdio.h>

#include "store/journal.h"

struct profile;
/* profile_load, and every point's collective one autotune tunes: the one
 * check of a profile, for `autotune profile` and a config's profile = ...
 * An error names path:line. Caller frees *out with profile_destroy. */
int profile_load_tunable(const char *path, struct profile **out);
/* autotune profile FILE.prof [-r RUN] [-n N] */
int profile_main(int argc, char **argv);
/* One line to f: the share of the application's collective time (RUN's
 * copy of its profile) at points the run's optimal rows cover; nothing
 * when the run was not swept from a profile. */
void profile_print_coverage(FILE *f, const char *run,
                            const struct measurement *optimal, size_t n);

#endif
