/* `autotune compare`: every search strategy replayed on an exhaustive run. */
#ifndef AUTOTUNE_COMPARE_CLI_H
#define AUTOTUNE_COMPARE_CLI_H

#include "autotune/cli.h"

/* Its options and --help. */
extern const struct cli_spec compare_cli;

/* `autotune compare -r RUN`: argv[0] is "compare". Returns the exit status. */
int compare_main(int argc, char **argv);

#endif
