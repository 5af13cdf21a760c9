/* `autotune predict`: its options, then the prediction (tune/predict.c).
 * No MPI. */
#include <stddef.h>
#include <stdio.h>

#include "autotune/cli.h"
#include "autotune/model_cli.h"
#include "tune/predict.h"

static const struct cli_option predict_options[] = {
    {"-r", "RUN", CLI_TEXT, offsetof(struct predict_request, run), 0, 0, NULL,
     NULL, true, false, "the run directory"},
    {"--model", "FILE", CLI_TEXT, offsetof(struct predict_request, model_path),
     0, 0, NULL, NULL, false, false,
     "the calibration (default: RUN/model.csv)"},
    {"--procs", "P,P,...", CLI_TEXT,
     offsetof(struct predict_request, procs_text), 0, 0, NULL, NULL, false,
     false, "predict these communicator sizes too (with --sizes)"},
    {"--sizes", "M,M,...", CLI_TEXT,
     offsetof(struct predict_request, sizes_text), 0, 0, NULL, NULL, false,
     false, "and these message sizes (with --procs)"},
    {"--ppn", "N,N,...", CLI_TEXT, offsetof(struct predict_request, ppn_text),
     0, 0, NULL, NULL, false, false,
     "ranks per node of the new points (default 1; each dividing --procs)"},
    {"--segments", "S,S,...", CLI_TEXT,
     offsetof(struct predict_request, segs_text), 0, 0, NULL, NULL, false,
     false, "segment sizes of the new points (default: the run's)"},
    {"--collectives", "a,b", CLI_TEXT,
     offsetof(struct predict_request, colls_text), 0, 0, NULL, NULL, false,
     false, "collectives of the new points (default: the run's)"},
    {"-o", "DIR", CLI_TEXT, offsetof(struct predict_request, out_dir), 0, 0,
     NULL, NULL, false, false,
     "where the new points go (default: RUN/predicted/)"},
};

const struct cli_spec predict_cli = {
    "autotune predict",
    NULL,
    "The model's time of every method at the run's points into "
    "RUN/predicted.csv,\nand its accuracy where the run measured them (at "
    "each point's ranks per\nnode); --procs and --sizes (and --ppn) predict "
    "points never measured into\nDIR (RUN/predicted/ by default).\n",
    predict_options,
    CLI_N(predict_options),
    NULL,
    0};

int predict_main(int argc, char **argv)
{
    struct predict_request a = {NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL};
    int bad = cli_parse(&predict_cli, argc, argv, &a, stderr);
    if (bad) {
        return bad;
    }
    if ((a.procs_text != NULL) != (a.sizes_text != NULL)) {
        fprintf(stderr, "autotune predict: --procs and --sizes go together\n");
        return 2;
    }
    if (a.ppn_text && !a.procs_text) {
        fprintf(stderr, "autotune predict: --ppn goes with --procs and "
                        "--sizes (the run's points are predicted at their "
                        "own ranks per node)\n");
        return 2;
    }
    return predict_run(&a);
}
