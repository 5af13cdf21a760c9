/* autotune's command line: the sweep runs under mpirun/smpirun; the offline
 * commands, --help and --version never start MPI. Exit status: 0 done,
 * 1 a data error (config, run directory, input files), 2 a usage error. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef SMPI_H /* defined by SimGrid's mpi.h */
#include <simgrid/version.h>
#endif

#include "autotune/baseline.h"
#include "autotune/compare.h"
#include "autotune/config.h"
#include "autotune/decision_cli.h"
#include "autotune/model_cli.h"
#include "autotune/plan_cli.h"
#include "autotune/profile_cli.h"
#include "autotune/report_cli.h"
#include "autotune/sweep.h"
#include "collectives/collectives.h"
#include "decision/decision.h"
#include "search/search.h"
#include "store/export.h"
#include "store/journal.h"
#include "store/rundir.h"
#include "store/tables.h"
#include "util/tuning.h"

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
    "  autotune report -r RUN [--html FILE] [--map COLL] [--points P:M,...]\n"
    "                                                maps, landscapes, HTML "
    "report\n"
    "  autotune tree -f STEM [-m M] [-c C] [-u] [-g] [-s]   C4.5 "
    "decision tree\n"
    "  autotune tree -r RUN [-m M] [-c C] [--collectives a,b] [--combined]\n"
    "                [--depth N] [--holdout sizes|procs|K] [--near PCT]\n"
    "                [--leaf penalty|majority] [--between cross|pair|next] "
    "[--exact]\n"
    "                [--misses] [--emit names,c,c-tree,c-table] [-o STEM]\n"
    "                                                C4.5 trees of a run\n"
    "  autotune quadtree -r RUN --collective C [--depth N | --accuracy PCT]\n"
    "                [--holdout sizes|procs|K] [--near PCT] [--leaf "
    "penalty|majority]\n"
    "                [--between cross|pair|next] [--misses] "
    "[--emit c,c-tree,c-table]\n"
    "                [-o STEM]                       quadtree of a run\n"
    "  autotune plan -c tune.cfg                     grid, points, "
    "experiments, estimate\n"
    "  autotune profile FILE.prof [-r RUN] [-n N]    an application's "
    "costliest points\n"
    "  mpirun -np N autotune model -c tune.cfg       point-to-point "
    "calibration\n"
    "  autotune predict -r RUN [--procs P,..] [--sizes M,..]   the model's "
    "times\n"
    "  autotune --list                               algorithms, "
    "strategies, formats\n"
    "  autotune --version\n"
    "autotune COMMAND --help describes one command. Exit status: 0 done, 1 a "
    "data\nerror (config, run directory, input files), 2 a usage error.\n";

#define AUTOTUNE_VERSION "0.1.0"

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
static void export_context_of(const char *run, const struct journal *j,
                              const char *source, struct export_context *ctx,
                              char *library, size_t library_size, char *backend,
                              size_t backend_size)
{
    *ctx = (struct export_context){
        source, "own", "", TUNING_CHAIN_FANOUT, stderr, NULL, NULL, NULL, 0};
    if (!j) {
        fprintf(stderr,
                "note: %s has no journal; assuming backend own, chain_fanout "
                "4\n",
                run);
        return;
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
}

/* The cuts between measured sizes, from the times the run measured
 * (none for a run directory without measurements.csv: then the next
 * measured size's method). */
static int export_cuts_of(const char *run, const struct journal *j,
                          const struct measurement *rows, size_t n, long **cuts,
                          long **procs_cuts, struct export_insert **inserts,
                          size_t *n_inserts)
{
    char path[4096];
    struct run_data *r = NULL;
    snprintf(path, sizeof path, "%s/" RUNDIR_MEASUREMENTS, run);
    *cuts = *procs_cuts = NULL;
    *inserts = NULL;
    *n_inserts = 0;
    if (access(path, F_OK) != 0) {
        return 0;
    }
    if (run_data_load_with_journal(run, j, NULL, 0, &r) != 0) {
        return -1;
    }
    int rc =
        between_table_cuts(r, rows, n, cuts, procs_cuts, inserts, n_inserts);
    run_data_destroy(r);
    return rc;
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
    struct journal *j;
    size_t n = 0;
    /* Read once, for the tables' check, the context and the cuts: each
     * damaged line said once. */
    if (table_load_run_journal(run, &j) != 0 ||
        table_read_run_optimal(run, j, "export", &rows, &n) != 0) {
        journal_close(j);
        return 1;
    }
    snprintf(path, sizeof path, "%s/" RUNDIR_OPTIMAL, run);
    export_context_of(run, j, path, &ctx, library, sizeof library, backend,
                      sizeof backend);
    long *cuts = NULL, *procs_cuts = NULL;
    struct export_insert *inserts = NULL;
    int rc = export_cuts_of(run, j, rows, n, &cuts, &procs_cuts, &inserts,
                            &ctx.n_inserts);
    ctx.msg_cuts = cuts;
    ctx.procs_cuts = procs_cuts;
    ctx.inserts = inserts;
    if (rc == 0) {
        rc = export_write(format, out_path, rows, n, &ctx);
    }
    free(cuts);
    free(procs_cuts);
    free(inserts);
    free(rows);
    journal_close(j);
    return rc == 0 ? 0 : 1;
}

/* The sweep: MPI starts here, and only rank 0 speaks for the run. */
static int cmd_sweep(int argc, char **argv)
{
    const char *config_path = NULL;
    int is_fresh = 0, rank;
    /* The native backend's settings are read at MPI_Init only. */
    for (int i = 1; i + 1 < argc; i++) {
        if (strcmp(argv[i], "-c") == 0 && config_peek_native(argv[i + 1])) {
            native_prepare_environment();
        }
    }
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int bad = config_parse_args(argc, argv, "autotune", usage, rank == 0,
                                &config_path, &is_fresh);
    int status = bad ? bad : sweep_main(config_path, is_fresh);
    MPI_Finalize();
    return status;
}

/* --version: ours and the MPI this binary was built against. */
static int cmd_version(int argc, char **argv)
{
    (void)argc;
    (void)argv;
#ifdef SMPI_H
    printf("autotune %s (SimGrid SMPI %d.%d)\n", AUTOTUNE_VERSION,
           SIMGRID_VERSION_MAJOR, SIMGRID_VERSION_MINOR);
#elif defined(OMPI_MAJOR_VERSION)
    printf("autotune %s (Open MPI %d.%d.%d)\n", AUTOTUNE_VERSION,
           OMPI_MAJOR_VERSION, OMPI_MINOR_VERSION, OMPI_RELEASE_VERSION);
#else
    printf("autotune %s (MPI %d.%d)\n", AUTOTUNE_VERSION, MPI_VERSION,
           MPI_SUBVERSION);
#endif
    return 0;
}

/* `model` runs under MPI (main starts it); here only when no MPI can
 * start: autotune-smpi started by itself. */
static int cmd_model_offline(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "autotune model: start it with mpirun -np 2 autotune "
                    "model -c tune.cfg (or smpirun)\n");
    return 2;
}

struct command {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *help; /* --help, on stdout */
};

static const char sweep_help[] =
    "usage: mpirun -np N autotune -c tune.cfg [--fresh]\n"
    "       smpirun -np N -platform P.xml autotune-smpi -c tune.cfg "
    "[--fresh]\n"
    "Tunes the collectives of tune.cfg at every grid point, rank 0 "
    "driving; running\nthe same command again resumes from the run "
    "directory's journal.\n"
    "  -c FILE   the config (docs/usage.md: Configuration)\n"
    "  --fresh   start over; the previous sweep's journal, tables and "
    "decisions\n"
    "            move to RUN/old/N/\n";

/* Every command but the sweep, which is the one that starts MPI. */
static const struct command offline_commands[] = {
    {"export", cmd_export,
     "usage: autotune export -r RUN --format F [-o FILE]\n"
     "Writes RUN/optimal.csv in format F (autotune --list) to FILE, or to "
     "stdout.\n"},
    {"compare", compare_main,
     "usage: autotune compare -r RUN [--lookahead N] [--drop-ratio R] "
     "[--steep-rise F]\n"
     "                        [--segments S,S,...] [--misses] "
     "[--trace STRATEGY]\n"
     "                        [--grid adaptive] [--model FILE] "
     "[--model-margin F]\n"
     "Replays every search strategy on a run swept with search = "
     "\"exhaustive\" and\nwrites RUN/compare.csv; --misses prints where a "
     "strategy missed the optimum,\n--trace every experiment a strategy "
     "asked for; --segments replays a sub-list of\nthe run's segment sizes "
     "(0 among them); --grid adaptive replays the adaptive\ngrid walk "
     "instead and writes RUN/grid.csv. With a model (--model, or "
     "RUN/model.csv)\n"
     "the strategy model is replayed too, its calibration's cost charged.\n"},
    {"report", report_cli_main,
     "usage: autotune report -r RUN [--html FILE] [--map COLLECTIVE] "
     "[--points P:M,...]\n"
     "The speedup of the tuned choice over the library default (default/0) "
     "at the\nrun's points, per collective. --map prints a collective's "
     "decision map (the\nfastest method per procs and message size); "
     "--html writes one self-contained\nHTML file: decision, speedup and "
     "penalty maps (every RUN/*.dec), segment-size\nlandscapes at --points "
     "(PROCS:BYTES, e.g. 16:64K) or chosen automatically,\nthe strategies' "
     "costs (RUN/compare.csv) and the run's settings.\n"},
    {"tree", tree_main,
     "usage: autotune tree -f STEM [-m M] [-c C] [-u] [-g] [-s]\n"
     "       autotune tree -r RUN [-m M] [-c C] [--collectives a,b] "
     "[--combined]\n"
     "                     [--depth N] [--holdout sizes|procs|K] [--near PCT]\n"
     "                     [--leaf penalty|majority] [--between "
     "cross|pair|next] [--exact]\n"
     "                     [--misses] [--emit names,c,c-tree,c-table] "
     "[-o STEM]\n"
     "C4.5 as release 8 on STEM.names/STEM.data, or the C4.5 decision trees "
     "of a run.\n"},
    {"quadtree", quadtree_main,
     "usage: autotune quadtree -r RUN --collective C [--depth N | --accuracy "
     "PCT]\n"
     "                         [--holdout sizes|procs|K] [--near PCT] "
     "[--leaf penalty|majority]\n"
     "                         [--between cross|pair|next] [--misses] [--emit "
     "c,c-tree,c-table]\n"
     "                         [-o STEM]\n"
     "The quadtree decision of one collective of a run.\n"},
    {"plan", plan_main,
     "usage: autotune plan -c tune.cfg\n"
     "The grid of tune.cfg, its points, the experiments of an exhaustive "
     "search and,\nfrom a journal in its run directory, an estimate of "
     "their time. No MPI.\n"},
    {"profile", profile_main,
     "usage: autotune profile FILE.prof [-r RUN] [-n N]\n"
     "The N (20) points of an application profile (AUTOTUNE_PROFILE) that "
     "took the\nmost time; with a run, each point's tuned method, its time "
     "and the default's,\nand the time saved: calls x (default - tuned).\n"},
    {"model", cmd_model_offline,
     "usage: mpirun -np N autotune model -c tune.cfg [--fresh]\n"
     "       smpirun -np N -platform P.xml autotune-smpi model -c tune.cfg "
     "[--fresh]\n"
     "Measures the point-to-point parameters of the model (docs/usage.md: "
     "The model)\nbetween ranks 0 and 1 into RUN/model.journal and "
     "RUN/model.csv; rerunning\nmeasures only what is missing; --fresh "
     "moves the previous calibration to\nRUN/old/N/ and starts over.\n"},
    {"predict", predict_main,
     "usage: autotune predict -r RUN [--model FILE] [--procs P,P,...] "
     "[--sizes M,M,...]\n"
     "                        [--segments S,S,...] [--collectives a,b] "
     "[-o DIR]\n"
     "The model's time of every method at the run's points into "
     "RUN/predicted.csv,\nand its accuracy where the run measured them; "
     "--procs and --sizes predict\npoints never measured into DIR "
     "(RUN/predicted/ by default).\n"},
    {"--list", cmd_list,
     "usage: autotune --list\n"
     "The collectives and their algorithms, the search strategies and the "
     "export\nformats.\n"},
    {"--version", cmd_version,
     "usage: autotune --version\n"
     "autotune's version and the MPI it was built against.\n"},
};
#define N_OFFLINE (sizeof offline_commands / sizeof offline_commands[0])

static int has_help(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            return 1;
        }
    }
    return 0;
}

/* Runs what needs no MPI: an offline command, --help, --version, or a
 * mistyped command. Returns 1 with *status set if it did, 0 if argv asks
 * for the sweep. */
static int run_offline(int argc, char **argv, int *status)
{
    const char *word = argc >= 2 ? argv[1] : "";
    *status = 0;
    if (strcmp(word, "--help") == 0 || strcmp(word, "-h") == 0) {
        fputs(usage, stdout);
        return 1;
    }
    for (size_t i = 0; i < N_OFFLINE; i++) {
        const struct command *c = &offline_commands[i];
        if (strcmp(word, c->name) == 0) {
            if (has_help(argc - 1, argv + 1)) {
                fputs(c->help, stdout);
            } else {
                *status = c->run(argc - 1, argv + 1);
            }
            return 1;
        }
    }
    if (word[0] != '-' && word[0] != '\0') {
        fprintf(stderr,
                "autotune: unknown command '%s' (autotune --help lists "
                "them)\n",
                word);
        *status = 2;
        return 1;
    }
    if (has_help(argc, argv)) {
        fputs(sweep_help, stdout);
        return 1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    int status;
    if (argc >= 2 && strcmp(argv[1], "model") == 0 &&
        !has_help(argc - 1, argv + 1)) {
        return model_main(argc - 1, argv + 1);
    }
    if (run_offline(argc, argv, &status)) {
        return status;
    }
    return cmd_sweep(argc, argv);
}

#ifdef AUTOTUNE_SMPI_INTERP
/* autotune-smpi is a shared object: smpirun loads it and calls main, and
 * started by itself it crashed before main. With an interpreter and an
 * entry point it is a program too: the entry runs what needs no MPI and
 * says how to start the sweep. */
const char autotune_smpi_interp[] __attribute__((section(".interp"), used)) =
    AUTOTUNE_SMPI_INTERP;

/* The entry gets no argc and argv; Linux has them in /proc. *argv and its
 * strings are never freed (the process ends with the entry). */
static int read_own_args(int *argc, char ***argv)
{
    static char text[1 << 16];
    static char *args[256];
    FILE *f = fopen("/proc/self/cmdline", "rb");
    size_t n = f ? fread(text, 1, sizeof text - 1, f) : 0;
    if (f) {
        fclose(f);
    }
    if (n == 0) {
        return -1;
    }
    text[n] = '\0';
    *argc = 0;
    for (size_t i = 0; i < n && *argc < 255; i += strlen(text + i) + 1) {
        args[(*argc)++] = text + i;
    }
    args[*argc] = NULL;
    *argv = args;
    return 0;
}

/* The loader jumps here with the stack as at a program's start. */
#if defined(__i386__) || defined(__x86_64__)
__attribute__((force_align_arg_pointer))
#endif
__attribute__((noreturn)) void
autotune_smpi_entry(void);

void autotune_smpi_entry(void)
{
    int argc = 0, status = 2;
    char **argv = NULL;
    if (read_own_args(&argc, &argv) == 0 && run_offline(argc, argv, &status)) {
        fflush(NULL);
        _exit(status);
    }
    const char *self = argv ? argv[0] : "autotune-smpi";
    fprintf(stderr,
            "%s: the simulated sweep runs under smpirun: smpirun -np N "
            "-platform conf/platforms/grig.xml "
            "--cfg=smpi/simulate-computation:no %s -c tune.cfg\n",
            self, self);
    fflush(NULL);
    _exit(2);
}
#endif
