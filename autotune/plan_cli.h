/* `autotune plan`: what a config's sweep would do, without MPI. */
#ifndef AUTOTUNE_PLAN_CLI_H
#define AUTOTUNE_PLAN_CLI_H

#include "autotune/cli.h"

/* autotune plan -c CFG: prints the grid, its points, the experiments of an
 * exhaustive search and an estimate of their time where a journal in the
 * run directory gives one. Returns the exit status. */
int plan_main(int argc, char **argv);
/* Its options and --help. */
extern const struct cli_spec plan_cli;

#endif
