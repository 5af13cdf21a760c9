/* `autotune model` (point-to-point calibration under MPI) and `autotune
 * predict` (the model's predicted times, offline). */
#ifndef AUTOTUNE_MODEL_CLI_H
#define AUTOTUNE_MODEL_CLI_H

/* Starts MPI: argv as after the word "model". */
int model_main(int argc, char **argv);
/* No MPI: argv as after the word "predict". */
int predict_main(int argc, char **argv);

#endif
