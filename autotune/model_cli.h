/* `autotune model` (point-to-point calibration under MPI) and `autotune
 * predict` (the model's predicted times, offline). */
#ifndef AUTOTUNE_MODEL_CLI_H
#define AUTOTUNE_MODEL_CLI_H

#include "autotune/cli.h"

/* Their options and --help. */
extern const struct cli_spec model_cli, predict_cli;

/* Starts MPI: argv as after the word "model". */
int model_main(int argc, char **argv);
/* No MPI: argv as after the word "predict". */
int predict_main(int argc, char **argv);

#endif
