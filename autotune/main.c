/* autotune's command line: the sweep runs under mpirun/smpirun; the offline
 * commands read a run directory and never start MPI. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "autotune/baseline.h"
#include "autotune/compare.h"
#include "autotune/config.h"
#include "autotune/sweep.h"
#include "collectives/collectives.h"
#include "decision/decision.h"
#include "search/search.h"
#include "store/store.h"

static const char usage[] =
    "usage:\n"
    "  mpirun -np N autotune -c tune.cfg [--fresh]   tune (re-running "
    "resumes)\n"
    "  autotune export -r RUN --format F [-o FILE]   write the optimal "
    "table\n"
    "  autotune compare -r RUN                       replay every search "
    "strategy\n"
    "  autotune report -r RUN                        speedup over the "
    "library default\n"
    "  autotune tree -f STEM [-m M] [-c C] [-u] [-g] [-s]   C4.5 "
    "decision tree\n"
    "  autotune tree -r RUN [-m M] [-c C] [--collectives a,b] [--combined]\n"
    "                [--depth N] [--holdout sizes|K] [--near PCT]\n"
    "                [--leaf penalty|majority] [--emit names,c,c-tree] "
    "[-o STEM]\n"
    "                                                C4.5 trees of a run\n"
    "  autotune quadtree -r RUN --collective C (--depth N | --accuracy PCT)\n"
    "                [--holdout sizes|K] [--near PCT] [--leaf "
    "penalty|majority]\n"
    "                [--emit c,c-tree] [-o STEM]\n"
    "                                                quadtree of a run\n"
    "  autotune --list                               algorithms, "
    "strategies, formats\n";

/* What --list says of each NEED_* condition. */
static const struct {
    unsigned need;
    const char *label;
} need_labels[] = {{NEED_POW2_PROCS, " [P a power of two]"},
                   {NEED_TWO_PROCS, " [P = 2]"},
                   {NEED_EVEN_PROCS, " [P even]"},
                   {NEED_COMMUTATIVE, " [commutative op]"}};

static int cmd_list(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    for (int i = 0; i < coll_table_size; i++) {
        const struct coll_def *c = coll_table[i];
        printf("%s:\n", c->name);
        for (int a = 0; a < c->n_algs; a++) {
            const struct coll_alg *alg = &c->algs[a];
            printf("  %-24s %s%s", alg->name, alg->summary,
                   alg->is_segmented ? " [segmented]" : "");
            for (size_t k = 0; k < sizeof need_labels / sizeof need_labels[0];
                 k++) {
                if (alg->needs & need_labels[k].need) {
                    printf("%s", need_labels[k].label);
                }
            }
            printf("\n");
        }
    }
    printf("search strategies:\n");
    for (int i = 0; i < search_strategies_size; i++) {
        printf("  %-24s %s\n", search_strategies[i].name,
               search_strategies[i].summary);
    }
    printf("export formats:\n");
    for (int i = 0; i < export_formats_size; i++) {
        printf("  %-24s %s\n", export_formats[i].name,
               export_formats[i].summary);
    }
    return 0;
}

/* What the run's journal says about how it was measured; a run directory
 * with an optimal table only is taken as a default own-backend run. */
static int export_context_of(const char *run, const char *source,
                             struct export_context *ctx, char *library,
                             size_t library_size, char *backend,
                             size_t backend_size)
{
    char path[4096];
    struct journal *j = NULL;
    snprintf(path, sizeof path, "%s/journal", run);
    *ctx = (struct export_context){source, "own", "", 4, stderr};
    if (access(path, F_OK) != 0) {
        fprintf(stderr,
                "note: %s has no journal; assuming backend own, chain_fanout "
                "4\n",
                run);
        return 0;
    }
    if (journal_load(path, &j) != 0) {
        return -1;
    }
    if (!journal_has_settings(j)) {
        fprintf(stderr,
                "note: %s: assuming backend own, chain_fanout 4 and an "
                "unknown MPI library, as the journal's settings are "
                "unknown\n",
                run);
    }
    const struct journal_settings *s = journal_get_settings(j);
    const char *v = journal_setting(s, "backend");
    snprintf(backend, backend_size, "%s", v ? v : "own");
    v = journal_setting(s, "library");
    snprintf(library, library_size, "%s", v ? v : "");
    v = journal_setting(s, "chain_fanout");
    ctx->chain_fanout = v ? atoi(v) : ctx->chain_fanout;
    ctx->backend = backend;
    ctx->library = library;
    journal_close(j);
    return 0;
}

static int cmd_export(int argc, char **argv)
{
    const char *run = NULL, *format_name = NULL, *out_path = NULL;
    for (int i = 1; i < argc; i++) {
        const char *opt = argv[i];
        const char *val = i + 1 < argc ? argv[i + 1] : NULL;
        const char **slot = strcmp(opt, "-r") == 0         ? &run
                            : strcmp(opt, "--format") == 0 ? &format_name
                            : strcmp(opt, "-o") == 0       ? &out_path
                                                           : NULL;
        if (!slot || !val) {
            fprintf(stderr, "autotune export: %s '%s'\n%s",
                    slot ? "missing value for" : "unknown option", opt, usage);
            return 2;
        }
        *slot = val;
        i++;
    }
    if (!run || !format_name) {
        fprintf(stderr, "autotune export: -r RUN and --format are "
                        "required\n");
        return 2;
    }
    const struct export_format *format = export_find(format_name);
    if (!format) {
        fprintf(stderr,
                "autotune export: unknown format '%s' (valid:", format_name);
        for (int i = 0; i < export_formats_size; i++) {
            fprintf(stderr, " %s", export_formats[i].name);
        }
        fprintf(stderr, ")\n");
        return 2;
    }
    char path[4096], library[128], backend[32];
    struct measurement *rows = NULL;
    struct export_context ctx;
    size_t n = 0;
    if (table_read_run_optimal(run, "export", &rows, &n) != 0) {
        return 1;
    }
    snprintf(path, sizeof path, "%s/optimal.csv", run);
    int rc = export_context_of(run, path, &ctx, library, sizeof library,
                               backend, sizeof backend);
    if (rc == 0) {
        rc = export_write(format, out_path, rows, n, &ctx);
    }
    free(rows);
    return rc == 0 ? 0 : 1;
}

/* The sweep: MPI starts here, and only rank 0 speaks for the run. */
static int cmd_sweep(int argc, char **argv)
{
    const char *config_path = NULL;
    int is_fresh = 0, rank, bad = 0;
    /* The native backend's settings are read at MPI_Init only. */
    for (int i = 1; i + 1 < argc; i++) {
        if (strcmp(argv[i], "-c") == 0 && config_peek_native(argv[i + 1])) {
            native_prepare_environment();
        }
    }
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (int i = 1; i < argc && !bad; i++) {
        if (strcmp(argv[i], "-c") == 0 && i + 1 < argc) {
            config_path = argv[++i];
        } else if (strcmp(argv[i], "--fresh") == 0) {
            is_fresh = 1;
        } else {
            bad = 1;
            if (rank == 0) {
                fprintf(stderr, "autotune: unknown argument '%s'\n%s", argv[i],
                        usage);
            }
        }
    }
    if (!config_path && !bad) {
        bad = 1;
        if (rank == 0) {
            fprintf(stderr, "autotune: -c tune.cfg is required\n%s", usage);
        }
    }
    int status = bad ? 2 : sweep_main(config_path, is_fresh);
    MPI_Finalize();
    return status;
}

struct command {
    const char *name;
    int (*run)(int argc, char **argv);
};

static const struct command offline_commands[] = {
    {"export", cmd_export},      {"compare", compare_main},
    {"report", report_main},     {"tree", tree_main},
    {"quadtree", quadtree_main}, {"--list", cmd_list},
};

int main(int argc, char **argv)
{
    if (argc >= 2 &&
        (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        fputs(usage, stdout);
        return 0;
    }
    for (size_t i = 0;
         argc >= 2 && i < sizeof offline_commands / sizeof offline_commands[0];
         i++) {
        if (strcmp(argv[1], offline_commands[i].name) == 0) {
            return offline_commands[i].run(argc - 1, argv + 1);
        }
    }
    return cmd_sweep(argc, argv);
}
