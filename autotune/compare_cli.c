/* `autotune compare`: its options, then one call to the replay engine
 * (tune/replay.c). No MPI. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#include "autotune/cli.h"
#include "autotune/compare_cli.h"
#include "tune/replay.h"

struct compare_args {
    struct replay_request req;
    int grid;  /* -1, or 0: --grid adaptive */
    int start; /* -1, or 0: --start model */
};

/* --segments, one size of the list: in bytes. That 0 is among them is
 * checked once the list is read. */
static const char *take_segment(void *args, const char *option,
                                const char *text)
{
    struct seg_filter *f = &((struct compare_args *)args)->req.segs;
    char *end;
    long seg = strtol(text, &end, 10);
    (void)option;
    if (end == text || *end || seg < 0 || seg > 1L << 30) {
        return "is not a segment size in bytes";
    }
    if (f->n == CONFIG_MAX_SEGS) {
        return "is one segment size too many";
    }
    f->sizes[f->n++] = (int)seg;
    return NULL;
}

static const char *take_trace(void *args, const char *option, const char *text)
{
    (void)args;
    (void)option;
    return search_find(text) ? NULL
                             : "is not a search strategy (autotune --list)";
}

static const struct cli_option compare_options[] = {
    {"-r", "RUN", CLI_TEXT, offsetof(struct compare_args, req.run), 0, 0, NULL,
     NULL, true, false, "the run directory, swept with search = exhaustive"},
    {"--lookahead", "N", CLI_INT,
     offsetof(struct compare_args, req.params.lookahead), 0, 64, NULL, NULL,
     false, false, "steps a descent looks past its best (search_options)"},
    {"--drop-ratio", "R", CLI_REAL,
     offsetof(struct compare_args, req.params.drop_ratio), 1, 1e9, NULL, NULL,
     false, false, "how far behind the best an algorithm is dropped"},
    {"--steep-rise", "F", CLI_REAL,
     offsetof(struct compare_args, req.params.steep_rise), 0, 1e9, NULL, NULL,
     false, false, "a rise past the best that ends a descent (0: never)"},
    {"--segments", "S,S,...", CLI_CUSTOM,
     offsetof(struct compare_args, req.segs), 0, 0, NULL, take_segment, false,
     true, "replay a sub-list of the run's segment sizes, 0 among them"},
    {"--misses", NULL, CLI_FLAG, offsetof(struct compare_args, req.is_misses),
     0, 0, NULL, NULL, false, false,
     "print where a strategy (or a walk) missed the optimum"},
    {"--trace", "STRATEGY", CLI_TEXT, offsetof(struct compare_args, req.trace),
     0, 0, NULL, take_trace, false, false,
     "print every experiment the strategy asked for"},
    {"--grid", NULL, CLI_CHOICE, offsetof(struct compare_args, grid), 0, 0,
     "adaptive", NULL, false, false,
     "replay the adaptive grid walk instead (RUN/grid.csv)"},
    {"--model", "FILE", CLI_TEXT, offsetof(struct compare_args, req.model_path),
     0, 0, NULL, NULL, false, false,
     "the model's calibration (default: RUN/model.csv, if there)"},
    {"--model-margin", "F", CLI_REAL,
     offsetof(struct compare_args, req.params.model_margin), 0, 1e9, NULL, NULL,
     false, false, "the model strategy times what is predicted within F"},
    {"--max-penalty", "F", CLI_REAL,
     offsetof(struct compare_args, req.max_penalty), 1e-9, 1e9, NULL, NULL,
     false, false,
     "with --grid and a model: the corrected walk (grid_options.max_penalty)"},
    {"--start", NULL, CLI_CHOICE, offsetof(struct compare_args, start), 0, 0,
     "model", NULL, false, false,
     "with --grid and a model: the walk that starts from the model "
     "(grid_options.start)"},
    {"--budget", "F", CLI_REAL, offsetof(struct compare_args, req.budget), 1e-9,
     1, NULL, NULL, false, false,
     "with --start model: the most points it measures, a fraction "
     "(default 0.15)"},
    {"--bound", "F", CLI_REAL,
     offsetof(struct compare_args, req.bound_tolerance), 1e-9, 1e9, NULL, NULL,
     false, false,
     "with --grid and a model: what any walk must measure to keep every "
     "point within F"},
};

const struct cli_spec compare_cli = {
    "autotune compare",
    NULL,
    "Replays every search strategy on a run swept with search = "
    "\"exhaustive\" and\nwrites RUN/compare.csv. With a model (--model, or "
    "RUN/model.csv) the strategy\nmodel is replayed too, its calibration's "
    "cost charged. A run of several ranks\nper node gets rows per ranks per "
    "node too (STRATEGY@ppnN).\n",
    compare_options,
    CLI_N(compare_options),
    NULL,
    0};

int compare_main(int argc, char **argv)
{
    struct compare_args a = {
        .req.params = SEARCH_PARAMS_DEFAULT, .grid = -1, .start = -1};
    int bad = cli_parse(&compare_cli, argc, argv, &a, stderr);
    if (bad) {
        return bad;
    }
    if (!seg_filter_keeps(&a.req.segs, 0)) {
        fprintf(stderr, "autotune compare: --segments: the list must hold 0 "
                        "(the run's records of segments as large as the "
                        "message are its unsegmented ones)\n");
        return 2;
    }
    a.req.is_grid = a.grid == 0;
    if (a.req.max_penalty > 0 && !a.req.is_grid) {
        fprintf(stderr, "autotune compare: --max-penalty: needs --grid "
                        "adaptive (it sets the grid walk's predictor)\n");
        return 2;
    }
    if (a.req.budget > 0 && a.start != 0) {
        fprintf(stderr, "autotune compare: --budget: needs --start model\n");
        return 2;
    }
    if (a.start == 0 && !a.req.is_grid) {
        fprintf(stderr, "autotune compare: --start: needs --grid adaptive "
                        "(it chooses the grid walk)\n");
        return 2;
    }
    if (a.start == 0) {
        /* grid_options' defaults with start = "model" (tune/config.c) */
        a.req.budget = a.req.budget > 0 ? a.req.budget : CONFIG_GRID_BUDGET;
        a.req.max_penalty =
            a.req.max_penalty > 0 ? a.req.max_penalty : CONFIG_GRID_MAX_PENALTY;
    }
    if (a.req.bound_tolerance > 0 && !a.req.is_grid) {
        fprintf(stderr, "autotune compare: --bound: needs --grid adaptive "
                        "(it bounds the grid walk)\n");
        return 2;
    }
    return replay_run(&a.req) == 0 ? 0 : 1;
}
