/* Offline comparison of search strategies on an exhaustive run. */
#ifndef AUTOTUNE_COMPARE_H
#define AUTOTUNE_COMPARE_H

#include "autotune/cli.h"

/* Its options and --help. */
extern const struct cli_spec compare_cli;

/* `autotune compare -r RUN`: argv[0] is "compare". Returns the exit status. */
int compare_main(int argc, char **argv);

#endif
