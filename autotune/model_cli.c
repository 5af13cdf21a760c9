/* `autotune model`: its options, then the calibration (tune/calibrate.c)
 * under MPI. */
#include <mpi.h>
#include <stdio.h>

#include "autotune/cli.h"
#include "autotune/model_cli.h"
#include "tune/calibrate.h"

const struct cli_spec model_cli = {
    "mpirun -np N autotune model",
    "smpirun -np N -platform P.xml autotune-smpi model -c tune.cfg [--fresh]",
    "Measures the point-to-point parameters of the model (docs/usage.md: The "
    "model)\nbetween two nodes and between two ranks of one node (a host:2 "
    "line of\nsmpirun -hostfile) into RUN/model.journal and RUN/model.csv; "
    "rerunning\nmeasures only what is missing; --fresh moves the previous "
    "calibration to\nRUN/old/N/ and starts over.\n",
    config_options,
    CONFIG_N_OPTIONS,
    NULL,
    0};

int model_main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    struct config_args args = {NULL, false};
    int status =
        cli_parse(&model_cli, argc, argv, &args, rank == 0 ? stderr : NULL);
    if (status == CLI_OK) {
        status = calibrate_run(args.path, args.is_fresh);
    }
    MPI_Finalize();
    return status;
}
