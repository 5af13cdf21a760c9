/* autotune's command line: the sweep runs under mpirun/smpirun; the offline
 * commands, --help and --version never start MPI. Exit status: 0 done,
 * 1 a data error (config, run directory, input files), 2 a usage error. */
#include <mpi.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef SMPI_H /* defined by SimGrid's mpi.h */
#include <simgrid/version.h>
#endif

#include "autotune/cli.h"
#include "autotune/compare_cli.h"
#include "autotune/decision_cli.h"
#include "autotune/model_cli.h"
#include "autotune/plan_cli.h"
#include "autotune/profile_cli.h"
#include "autotune/report_cli.h"
#include "collectives/collectives.h"
#include "collectives/method.h"
#include "decision/decision.h"
#include "search/search.h"
#include "store/export.h"
#include "store/journal.h"
#include "store/rundir.h"
#include "store/tables.h"
#include "tune/baseline.h"
#include "tune/config.h"
#include "tune/sweep.h"
#include "util/tuning.h"

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
        if (node_has_methods(c)) {
            static const char *const where[] = {"up", "inter", "down"};
            const char *sep = " ";
            printf("  %-24s node-aware, phases:", "node:...");
            for (int ph = 0; ph < NODE_N_PHASES; ph++) {
                const struct coll_def *pc =
                    node_phase_coll(c, (enum node_phase_id)ph);
                if (pc) {
                    printf("%s%s %s", sep, where[ph], pc->name);
                    sep = " + ";
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
    *ctx = (struct export_context){.source = source,
                                   .backend = "own",
                                   .library = "",
                                   .chain_fanout = TUNING_CHAIN_FANOUT,
                                   .warn = stderr};
    if (!j) {
        fprintf(stderr,
                "note: %s has no journal; assuming backend own, chain_fanout "
                "%d\n",
                run, TUNING_CHAIN_FANOUT);
        return;
    }
    if (!journal_has_settings(j)) {
        fprintf(stderr,
                "note: %s: assuming backend own, chain_fanout %d and an "
                "unknown MPI library, as the journal's settings are "
                "unknown\n",
                run, TUNING_CHAIN_FANOUT);
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
 * (measurements.csv, or an unfinished sweep's journal); none without
 * them (predictions: then the next measured size's method). */
static int export_cuts_of(const char *run, const char *model_path,
                          const struct journal *j, bool has_times,
                          const struct measurement *rows, size_t n, long **cuts,
                          long **procs_cuts, struct export_insert **inserts,
                          size_t *n_inserts)
{
    struct run_data *r = NULL;
    *cuts = *procs_cuts = NULL;
    *inserts = NULL;
    *n_inserts = 0;
    if (!has_times) {
        return 0; /* predictions, or a run without its methods' times */
    }
    if (run_data_load_with_journal(run, j, NULL, 0, &r) != 0 ||
        run_data_load_model(r, run, model_path) != 0) {
        run_data_destroy(r);
        return -1;
    }
    int rc =
        between_table_cuts(r, rows, n, cuts, procs_cuts, inserts, n_inserts);
    run_data_destroy(r);
    return rc;
}

struct export_args {
    const char *run, *format_name, *out_path;
    const char *model_path; /* NULL: RUN/model.csv, if there */
    bool assume_commutative;
    int ppn; /* 0: not given */
};

static const char *take_format(void *args, const char *option, const char *text)
{
    static char why[256];
    (void)args;
    (void)option;
    if (export_find(text)) {
        return NULL;
    }
    int n = snprintf(why, sizeof why, "is not an export format (valid:");
    for (int i = 0; i < export_formats_size && n < (int)sizeof why; i++) {
        n += snprintf(why + n, sizeof why - (size_t)n, " %s",
                      export_formats[i].name);
    }
    if (n < (int)sizeof why) {
        snprintf(why + n, sizeof why - (size_t)n, ")");
    }
    return why;
}

static const struct cli_option export_options[] = {
    {"-r", "RUN", CLI_TEXT, offsetof(struct export_args, run), 0, 0, NULL, NULL,
     true, false, "the run directory"},
    {"--format", "F", CLI_TEXT, offsetof(struct export_args, format_name), 0, 0,
     NULL, take_format, true, false, "the format (autotune --list names them)"},
    {"-o", "FILE", CLI_TEXT, offsetof(struct export_args, out_path), 0, 0, NULL,
     NULL, false, false, "write to FILE (default: stdout)"},
    {"--assume-commutative", NULL, CLI_FLAG,
     offsetof(struct export_args, assume_commutative), 0, 0, NULL, NULL, false,
     false,
     "Open MPI formats: reduce and allreduce rules as tuned, even where they "
     "reorder operands (for programs whose reductions all commute)"},
    {"--ppn", "N", CLI_INT, offsetof(struct export_args, ppn), 1, 1e6, NULL,
     NULL, false, false,
     "only the rules of N ranks per node (formats without a ranks-per-node "
     "key need it when the run tuned several)"},
    {"--model", "FILE", CLI_TEXT, offsetof(struct export_args, model_path), 0,
     0, NULL, NULL, false, false,
     "the calibration between measured sizes (default: RUN/model.csv, if "
     "there)"},
};

static const struct cli_spec export_cli = {
    "autotune export",
    NULL,
    "Writes the run's optimal table in format F (autotune --list) to FILE, "
    "or to\nstdout: RUN/optimal.csv; of an unfinished sweep, the points its "
    "journal says\nare done; of predictions (predict -o), the least "
    "predicted time per point.\n",
    export_options,
    CLI_N(export_options),
    NULL,
    0};

static int cmd_export(int argc, char **argv)
{
    struct export_args a = {NULL, NULL, NULL, NULL, false, 0};
    int bad = cli_parse(&export_cli, argc, argv, &a, stderr);
    if (bad) {
        return bad;
    }
    const char *run = a.run, *out_path = a.out_path;
    const struct export_format *format = export_find(a.format_name);
    bool assume_commutative = a.assume_commutative;
    if (assume_commutative &&
        (!format->library || strcmp(format->library, "Open MPI") != 0)) {
        fprintf(stderr,
                "note: --assume-commutative changes nothing in a %s file "
                "(only Open MPI's formats could force algorithms that "
                "reorder operands)\n",
                format->name);
    }
    if (out_path && rundir_check_output("export", run, out_path) != 0) {
        return 2;
    }
    char library[128], backend[32];
    struct run_tables t;
    struct export_context ctx;
    struct journal *j;
    /* Read once, for the tables' check, the context and the cuts: each
     * damaged line said once. */
    if (table_load_run_journal(run, &j) != 0 ||
        table_read_run_tables(run, j, "export", &t) != 0) {
        journal_close(j);
        return 1;
    }
    table_prefer_default(t.optimal, t.n_optimal, t.measured, t.n_measured);
    const struct measurement *rows = t.optimal;
    size_t n = t.n_optimal;
    /* What headers and warnings name: the file read, its lines only where
     * they are the rows. */
    export_context_of(run, j, t.optimal_path, &ctx, library, sizeof library,
                      backend, sizeof backend);
    ctx.is_lineless = !t.is_lined;
    long *cuts = NULL, *procs_cuts = NULL;
    struct export_insert *inserts = NULL;
    int rc =
        export_cuts_of(run, a.model_path, j, t.has_measured && !t.is_predicted,
                       rows, n, &cuts, &procs_cuts, &inserts, &ctx.n_inserts);
    ctx.msg_cuts = cuts;
    ctx.procs_cuts = procs_cuts;
    ctx.inserts = inserts;
    ctx.assume_commutative = assume_commutative;
    ctx.ppn = a.ppn;
    /* The replacements for reordering reduce rules come from the times
     * measured (the journal's, of an unfinished sweep); predictions are
     * none. */
    if (t.has_measured && !t.is_predicted) {
        ctx.measured = t.measured;
        ctx.n_measured = t.n_measured;
    }
    if (rc == 0) {
        rc = export_write(format, out_path, rows, n, &ctx);
    }
    free(cuts);
    free(procs_cuts);
    free(inserts);
    table_run_tables_free(&t);
    journal_close(j);
    return rc == 0 ? 0 : rc == 2 ? 2 : 1;
}

static const struct cli_spec sweep_cli = {
    "mpirun -np N autotune",
    "smpirun -np N -platform P.xml autotune-smpi -c tune.cfg [--fresh]",
    "Tunes the collectives of tune.cfg at every grid point, rank 0 driving; "
    "running\nthe same command again resumes from the run directory's "
    "journal.\n",
    config_options,
    CONFIG_N_OPTIONS,
    NULL,
    0};

/* The sweep: MPI starts here, and only rank 0 speaks for the run. */
static int cmd_sweep(int argc, char **argv)
{
    struct config_args a = {NULL, false};
    int rank;
    /* The native backend's settings are read at MPI_Init only. */
    if (cli_parse(&sweep_cli, argc, argv, &a, NULL) == CLI_OK &&
        config_peek_native(a.path)) {
        native_prepare_environment();
    }
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    a = (struct config_args){NULL, false};
    int bad = cli_parse(&sweep_cli, argc, argv, &a, rank == 0 ? stderr : NULL);
    int status = bad ? bad : sweep_main(a.path, a.is_fresh);
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

static const struct cli_spec list_cli = {
    "autotune --list",
    NULL,
    "The collectives and their algorithms, the search strategies and the "
    "export\nformats.\n",
    NULL,
    0,
    NULL,
    0};

static const struct cli_spec version_cli = {
    "autotune --version",
    NULL,
    "autotune's version and the MPI it was built against.\n",
    NULL,
    0,
    NULL,
    0};

/* Every command: how it runs, its options (and --help) and one line for
 * autotune --help. tree has two forms: C4.5 on files, and a run's trees. */
struct command {
    const char *name;
    int (*run)(int argc, char **argv);
    const struct cli_spec *spec, *other_form;
    const char *brief;
};

static const struct command commands[] = {
    {"", NULL, &sweep_cli, NULL, "tune (re-running resumes)"},
    {"export", cmd_export, &export_cli, NULL, "write the optimal table"},
    {"compare", compare_main, &compare_cli, NULL,
     "replay every search strategy"},
    {"report", report_cli_main, &report_cli, NULL,
     "speedup over the default; maps, HTML report"},
    {"tree", tree_main, &tree_c45_cli, &tree_run_cli,
     "C4.5 decision tree of files, or of a run"},
    {"quadtree", quadtree_main, &quadtree_cli, NULL, "quadtree of a run"},
    {"plan", plan_main, &plan_cli, NULL, "grid, points, experiments, estimate"},
    {"profile", profile_main, &profile_cli, NULL,
     "an application's costliest points"},
    {"model", cmd_model_offline, &model_cli, NULL,
     "point-to-point calibration"},
    {"predict", predict_main, &predict_cli, NULL, "the model's times"},
    {"--list", cmd_list, &list_cli, NULL, "algorithms, strategies, formats"},
    {"--version", cmd_version, &version_cli, NULL, "version"},
};
#define N_COMMANDS (sizeof commands / sizeof commands[0])

static void print_usage(FILE *out)
{
    fprintf(out, "usage:\n");
    for (size_t i = 0; i < N_COMMANDS; i++) {
        cli_print_brief(commands[i].spec, commands[i].brief, out);
        if (commands[i].other_form) {
            cli_print_brief(commands[i].other_form, commands[i].brief, out);
        }
    }
    fprintf(out, "autotune COMMAND --help describes one command. Exit status: "
                 "0 done, 1 a data\nerror (config, run directory, input "
                 "files), 2 a usage error.\n");
}

static void print_help(const struct command *c, FILE *out)
{
    cli_print_help(c->spec, out);
    if (c->other_form) {
        fputc('\n', out);
        cli_print_help(c->other_form, out);
    }
}

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
        print_usage(stdout);
        return 1;
    }
    for (size_t i = 1; i < N_COMMANDS; i++) {
        const struct command *c = &commands[i];
        if (strcmp(word, c->name) == 0) {
            if (has_help(argc - 1, argv + 1)) {
                print_help(c, stdout);
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
        print_help(&commands[0], stdout);
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
