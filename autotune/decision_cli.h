/* The decision commands: `autotune tree` (C4.5 on .names/.data files, or
 * trees from a run) and `autotune quadtree`. Each returns the exit status. */
#ifndef AUTOTUNE_DECISION_CLI_H
#define AUTOTUNE_DECISION_CLI_H

#include "autotune/cli.h"

/* `autotune tree -f STEM [-m M] [-c C] [-u] [-g] [-s]`: argv[0] is "tree".
 * Prints what `c4.5` prints; returns the exit status. */
int tree_main(int argc, char **argv);
/* `autotune tree -r RUN ...` (tree_main hands over when it sees -r) and
 * `autotune quadtree -r RUN ...`; argv[0] is the command. */
int tree_run_main(int argc, char **argv);
int quadtree_main(int argc, char **argv);
/* Their options and --help. */
extern const struct cli_spec tree_c45_cli, tree_run_cli, quadtree_cli;

#endif
