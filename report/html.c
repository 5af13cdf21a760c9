/* The HTML report of a run directory: one self-contained file (inline SVG
 * and CSS, no script, nothing fetched), written atomically. Every figure
 * is a <figure> with an id, so a reader (or a test) finds it. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "report/internal.h"
#include "report/svg.h"
#include "store/export.h"
#include "store/journal.h"
#include "store/libraries.h"
#include "store/ompi_eval.h"
#include "store/rundir.h"
#include "store/tables.h"
#include "util/tuning.h"

#define MAX_DECS 64
#define MAX_COMPARE_ROWS 32
#define MAX_COMPARE_COLS 16
#define AUTO_LANDSCAPES 3
#define MAX_LANDSCAPES 64 /* per collective, from --points */

/* compare.csv as text cells, header first. */
struct compare_csv {
    int n_rows, n_cols;
    char cell[MAX_COMPARE_ROWS + 1][MAX_COMPARE_COLS][48];
};

struct page {
    const char *run;
    struct run_data *r;
    const struct journal *j; /* NULL: the run has no journal */
    report_table_alg_fn table_alg;
    int n_decs;
    char dec_names[MAX_DECS][256];
    struct decision *decs[MAX_DECS];    /* RUN/NAME.dec, else NULL */
    struct ompi_eval *rules[MAX_DECS];  /* RUN/NAME.conf, else NULL */
    struct compare_csv *compare;        /* NULL: no compare.csv */
    struct report_predicted *predicted; /* NULL: no predicted.csv */
    const struct report_point *points;
    int n_points;
};

static const char style[] =
    "body{font-family:sans-serif;margin:1.5em auto;max-width:1400px;"
    "color:#111;padding:0 1em}\n"
    "h1{font-size:1.6em}h2{border-bottom:2px solid #0072B2;margin-top:2em}\n"
    "figure{margin:1em 0 2em 0}figcaption{font-size:.9em;color:#333;"
    "max-width:60em}\n"
    "svg{display:block;max-width:100%;height:auto}\n"
    "table{border-collapse:collapse;margin:.5em 0 1.5em 0}td,th{border:1px "
    "solid #bbb;padding:.2em .6em;text-align:left}\n"
    "th{background:#eef}td.n{text-align:right}nav a{margin-right:1em}\n";

static void put(FILE *f, const char *s)
{
    svg_escape(f, s);
}

/* A name usable in an id: letters, digits, '-' and '_'. */
static void id_part(char *buf, size_t size, const char *s)
{
    size_t n = 0;
    for (; *s && n + 1 < size; s++) {
        buf[n++] =
            isalnum((unsigned char)*s) || *s == '-' || *s == '_' ? *s : '_';
    }
    buf[n] = '\0';
}

/* A grid's part of the page's ids: its collective, and "-ppnN" when the
 * run has several ranks per node values. */
static void grid_id(char *buf, size_t size, const struct run_data *r,
                    const struct run_grid *grid)
{
    char name[RUN_NAME_MAX + 16];
    if (r->n_ppn > 1) {
        snprintf(name, sizeof name, "%s-ppn%d", grid->name, grid->ppn);
    } else {
        snprintf(name, sizeof name, "%s", grid->name);
    }
    id_part(buf, size, name);
}

static void write_settings(FILE *f, const struct page *pg)
{
    fputs("<section id=\"run\">\n<h2>The run</h2>\n<table "
          "id=\"settings\">\n<tr><th>setting</th><th>value</th></tr>\n",
          f);
    fputs("<tr><td>run directory</td><td>", f);
    put(f, pg->run);
    fputs("</td></tr>\n", f);
    if (!pg->j) {
        fputs("<tr><td>journal</td><td>none in the run directory: "
              "settings unknown</td></tr>\n",
              f);
    } else {
        const struct journal_settings *s = journal_get_settings(pg->j);
        for (int i = 0; i < s->n; i++) {
            const char *eq = strchr(s->entries[i], '=');
            size_t key_len = eq ? (size_t)(eq - s->entries[i]) : 0;
            fprintf(f, "<tr><td>%.*s</td><td>", (int)key_len, s->entries[i]);
            /* The journal writes the library's spaces as '_'. */
            bool is_library = strncmp(s->entries[i], "library=", 8) == 0;
            for (const char *c = eq ? eq + 1 : s->entries[i]; *c; c++) {
                char one[2] = {is_library && *c == '_' ? ' ' : *c, '\0'};
                put(f, one);
            }
            fputs("</td></tr>\n", f);
        }
    }
    fputs("</table>\n", f);
    if (pg->j) {
        size_t n = journal_count(pg->j), not_applicable = 0, defaults = 0;
        double cost_s = 0;
        for (size_t i = 0; i < n; i++) {
            const struct measurement *m = journal_record(pg->j, i);
            not_applicable += !m->is_applicable;
            defaults += strcmp(m->algorithm, STORE_DEFAULT_ALGORITHM) == 0;
            cost_s += m->is_applicable ? m->cost_s : 0;
        }
        fprintf(f,
                "<table id=\"journal\">\n<tr><th>journal records</th>"
                "<th>count</th></tr>\n"
                "<tr><td>measurements</td><td class=\"n\">%zu</td></tr>\n"
                "<tr><td>of which not applicable</td><td "
                "class=\"n\">%zu</td></tr>\n"
                "<tr><td>of which the library default</td><td "
                "class=\"n\">%zu</td></tr>\n"
                "<tr><td>point results</td><td class=\"n\">%zu</td></tr>\n"
                "<tr><td>experiment seconds</td><td "
                "class=\"n\">%.3f</td></tr>\n</table>\n",
                n, not_applicable, defaults, journal_point_count(pg->j),
                cost_s);
    }
    fputs("<table id=\"grids\">\n<tr><th>collective</th><th>procs</th>"
          "<th>message sizes</th><th>points with an optimum</th>"
          "<th>methods timed</th></tr>\n",
          f);
    for (int g = 0; g < pg->r->n_grids; g++) {
        const struct run_grid *grid = &pg->r->grids[g];
        long cells = (long)grid->n_procs * grid->n_msgs, n_best = 0;
        char lo[16], hi[16];
        for (long c = 0; c < cells; c++) {
            n_best += grid->best[c] >= 0;
        }
        svg_format_bytes(lo, sizeof lo, (double)grid->msgs[0]);
        svg_format_bytes(hi, sizeof hi, (double)grid->msgs[grid->n_msgs - 1]);
        char name[RUN_NAME_MAX + 32];
        report_grid_title(name, sizeof name, pg->r, grid);
        fputs("<tr><td>", f);
        put(f, name);
        fprintf(f,
                "</td><td>%d..%d (%d)</td><td>%s..%s (%d)</td><td "
                "class=\"n\">%ld of %ld</td><td class=\"n\">%d</td></tr>\n",
                grid->procs[0], grid->procs[grid->n_procs - 1], grid->n_procs,
                lo, hi, grid->n_msgs, n_best, cells, pg->r->n_methods);
    }
    fputs("</table>\n", f);
    if (pg->predicted) {
        fprintf(f,
                "<p>predicted.csv: %ld predictions of methods and points "
                "the run measured, %ld of others.</p>\n",
                pg->predicted->n_on_grid, pg->predicted->n_off_grid);
    }
    fputs("</section>\n", f);
}

/* The gap between the two best algorithms at a cell, relative to the
 * best (algorithms within 0.1 % of the best count as the best: at 2
 * processes several trees are the same tree), or HUGE_VAL; *n_segs gets
 * the most segment sizes one algorithm was timed at there (at most 3). */
static double algorithm_gap(const struct run_data *r,
                            const struct run_grid *grid,
                            const struct report_algs *a, int m, long cell,
                            int *n_segs)
{
    const double *t = grid->time_us + cell * r->n_methods;
    double best[REPORT_MAX_ALGS], first = HUGE_VAL, second = HUGE_VAL;
    int segs[REPORT_MAX_ALGS] = {0};
    *n_segs = 0;
    for (int i = 0; i < a->n; i++) {
        best[i] = HUGE_VAL;
    }
    for (int k = 0; k < r->n_methods; k++) {
        int i = report_algs_find(a, r->methods[k].algorithm);
        int seg = r->methods[k].segment_bytes;
        if (i < 0 || t[k] < 0) {
            continue;
        }
        best[i] = fmin(best[i], t[k]);
        if (seg > 0 && seg < grid->msgs[m] && ++segs[i] > *n_segs) {
            *n_segs = segs[i] < 3 ? segs[i] : 3;
        }
    }
    for (int i = 0; i < a->n; i++) {
        first = fmin(first, best[i]);
    }
    for (int i = 0; i < a->n; i++) {
        if (best[i] > first * 1.001) {
            second = fmin(second, best[i]);
        }
    }
    if (grid->best[cell] < 0 || second == HUGE_VAL) {
        return HUGE_VAL;
    }
    return (second - first) / first;
}

/* Up to AUTO_LANDSCAPES cells, of distinct message sizes, where the two
 * best algorithms are closest, among those where an algorithm was timed
 * at the most segment sizes (three or more, else fewer, at least one):
 * where the segment size decides. Not at 2 processes unless the grid has
 * no other: there every tree is the same one message, and the landscape
 * one line drawn several times. */
static int auto_points(const struct run_data *r, const struct run_grid *grid,
                       const struct report_algs *a, long *chosen)
{
    long cells = (long)grid->n_procs * grid->n_msgs;
    double *gap = malloc((size_t)(cells + 1) * sizeof *gap);
    int *n_segs = malloc((size_t)(cells + 1) * sizeof *n_segs);
    int n = 0, most_segs = 1;
    bool has_more_procs = grid->procs[grid->n_procs - 1] > 2;
    for (long c = 0; gap && n_segs && c < cells; c++) {
        gap[c] =
            algorithm_gap(r, grid, a, (int)(c % grid->n_msgs), c, &n_segs[c]);
        if (has_more_procs && grid->procs[c / grid->n_msgs] <= 2) {
            gap[c] = HUGE_VAL;
        }
        if (gap[c] < HUGE_VAL && n_segs[c] > most_segs) {
            most_segs = n_segs[c];
        }
    }
    while (gap && n_segs && n < AUTO_LANDSCAPES) {
        long pick = -1;
        for (long c = 0; c < cells; c++) {
            bool is_taken = false;
            for (int s = 0; s < n; s++) {
                is_taken |= chosen[s] % grid->n_msgs == c % grid->n_msgs;
            }
            if (!is_taken && gap[c] < HUGE_VAL && n_segs[c] == most_segs &&
                (pick < 0 || gap[c] < gap[pick])) {
                pick = c;
            }
        }
        if (pick < 0) {
            break;
        }
        chosen[n++] = pick;
    }
    free(gap);
    free(n_segs);
    return n;
}

static void write_landscapes(FILE *f, const struct page *pg,
                             const struct run_grid *grid,
                             const struct report_algs *a, const char *cid)
{
    long chosen[MAX_LANDSCAPES];
    int n = 0;
    for (int i = 0; i < pg->n_points && n < MAX_LANDSCAPES; i++) {
        for (int p = 0; p < grid->n_procs; p++) {
            for (int m = 0; m < grid->n_msgs; m++) {
                long cell = (long)p * grid->n_msgs + m;
                if (grid->procs[p] == pg->points[i].procs &&
                    grid->msgs[m] == pg->points[i].msg_bytes &&
                    grid->best[cell] >= 0) {
                    chosen[n++] = cell;
                }
            }
        }
    }
    if (pg->n_points == 0) {
        n = auto_points(pg->r, grid, a, chosen);
    }
    fputs("<h3>Segment-size landscapes</h3>\n", f);
    if (n == 0) {
        fprintf(f, "<p>No %s point to draw%s.</p>\n",
                pg->n_points ? "--points" : "segmented",
                pg->n_points ? " is on this grid" : "");
        return;
    }
    for (int i = 0; i < n; i++) {
        int p = (int)(chosen[i] / grid->n_msgs),
            m = (int)(chosen[i] % grid->n_msgs);
        char id[128];
        snprintf(id, sizeof id, "landscape-%s-%d-%ld", cid, grid->procs[p],
                 grid->msgs[m]);
        fprintf(f, "<figure id=\"%s\" class=\"landscape\">\n", id);
        report_svg_landscape(f, pg->r, grid, a, p, m);
        fputs("<figcaption>Mean time of every method the run timed at this "
              "point; each line is one algorithm over its segment sizes "
              "(seed 003, Fig. 2). ",
              f);
        fputs(pg->n_points ? "Chosen with --points."
                           : "Chosen automatically: where the two best "
                             "algorithms are closest.",
              f);
        fputs("</figcaption>\n</figure>\n", f);
    }
}

/* The library's own decision as one more row, where the run timed it:
 * how far behind the optimum the default is. */
static void write_default_row(FILE *f, const struct run_grid *grid)
{
    long cells = (long)grid->n_procs * grid->n_msgs;
    double *v = malloc((size_t)(cells + 1) * sizeof *v);
    int n = 0;
    struct penalty_stats st;
    for (long c = 0; v && c < cells; c++) {
        if (grid->best[c] >= 0 && grid->default_us[c] >= 0) {
            v[n++] = tuning_penalty(grid->default_us[c], grid->best_us[c]);
        }
    }
    if (n > 0) {
        penalty_stats_compute(v, n, 0, &st);
        fprintf(f,
                "<tr><td>the library default</td><td>default/0</td><td></td>"
                "<td class=\"n\">%d</td><td class=\"n\">0</td><td "
                "class=\"n\">%.2f</td><td class=\"n\">%.2f</td><td "
                "class=\"n\">%.2f</td></tr>\n",
                st.n, st.mean, st.median, st.max);
    }
    free(v);
}

/* A .dec file's choice, as libautotune looks it up: in its table of the
 * grid's collective and ranks per node. */
struct dec_choice {
    const struct decision *d;
    int dc;
};

/* The table of d for grid (its collective at exactly its ppn, with a
 * root), or -1. */
static int dec_table(const struct decision *d, const struct run_grid *grid)
{
    int c = decision_find_collective(d, grid->name);
    int k = decision_find_ppn(d, grid->ppn);
    int t = c >= 0 && k >= 0 ? decision_table(d, c, k) : -1;
    return t >= 0 && d->roots[t] >= 0 ? t : -1;
}

static const char *choose_dec(const void *ctx, int procs, long msg_bytes)
{
    const struct dec_choice *c = ctx;
    return c->d->methods[decision_lookup(c->d, c->dc, procs, msg_bytes)];
}

/* An Open MPI rules file's choice, as coll/tuned applies it: its fixed
 * decision (algorithm 0) is the library default. */
struct ompi_choice {
    const struct ompi_eval *e;
    const char *collective;
    char label[RUN_LABEL_MAX];
};

static const char *choose_ompi(const void *ctx, int procs, long msg_bytes)
{
    struct ompi_choice *c = (struct ompi_choice *)ctx;
    long seg;
    long alg = ompi_eval_alg(c->e, c->collective, procs, msg_bytes, &seg);
    const struct ompi_alg *a =
        alg > 0 ? ompi_alg_by_number(c->collective, (int)alg) : NULL;
    if (alg == 0) {
        return "default/0";
    }
    snprintf(c->label, sizeof c->label, "%s/%ld", a ? a->algorithm : "unknown",
             a && a->is_segmented ? seg : 0);
    return c->label;
}

/* Whether the rules file has rules for collective. */
static bool ompi_has(const struct ompi_eval *e, const char *collective)
{
    const struct ompi_coll *c = ompi_coll_find(collective);
    for (int i = 0; c && i < e->n; i++) {
        if (e->rules[i].coll_id == c->coll_id) {
            return true;
        }
    }
    return false;
}

/* The leaves under node: a test on one attribute has its cut on the other
 * at the maximum, so only two of the four child slots are reachable. */
static int count_leaves(const struct decision *d, int node)
{
    if (d->leaf_method[node] >= 0) {
        return 1;
    }
    const struct decision_node *n = &d->nodes[node];
    int n_procs = n->procs_cut == INT32_MAX ? 1 : 2;
    int n_msgs = n->msg_cut == INT64_MAX ? 1 : 2;
    int leaves = 0;
    for (int p = 0; p < n_procs; p++) {
        for (int m = 0; m < n_msgs; m++) {
            leaves += count_leaves(d, n->child + 2 * p + m);
        }
    }
    return leaves;
}

static void write_decisions(FILE *f, const struct page *pg,
                            const struct run_grid *grid, const char *cid)
{
    char *figure[MAX_DECS] = {NULL};
    int n_shown = 0;
    fputs("<h3>Decisions of the run directory: penalty maps</h3>\n", f);
    fputs("<table class=\"penalties\">\n<tr><th>decision</th><th>kind</th>"
          "<th>leaves</th><th>points</th><th>cannot run</th><th>mean "
          "%</th><th>median %</th><th>max %</th></tr>\n",
          f);
    for (int i = 0; i < pg->n_decs; i++) {
        const struct decision *d = pg->decs[i];
        struct dec_choice dec = {d, d ? dec_table(d, grid) : -1};
        struct ompi_choice ompi = {pg->rules[i], grid->name, ""};
        bool is_there = d ? dec.dc >= 0 : ompi_has(pg->rules[i], grid->name);
        char id[400], dec_id[256], what[400], leaves[16] = "";
        struct penalty_stats st;
        size_t len = 0;
        FILE *mem = is_there ? open_memstream(&figure[i], &len) : NULL;
        if (!mem) {
            continue;
        }
        const char *kind = d ? d->kind : "Open MPI rules";
        id_part(dec_id, sizeof dec_id, pg->dec_names[i]);
        snprintf(id, sizeof id, "penalty-%s-%s", cid, dec_id);
        snprintf(what, sizeof what, "%s (%s)", pg->dec_names[i], kind);
        if (d) {
            snprintf(leaves, sizeof leaves, "%d",
                     count_leaves(d, d->roots[dec.dc]));
        }
        fprintf(mem, "<figure id=\"%s\" class=\"penalty-map\">\n", id);
        report_svg_penalty_map(
            mem, id, what, pg->r, grid, d ? choose_dec : choose_ompi,
            d ? (const void *)&dec : (const void *)&ompi, &st);
        fprintf(mem,
                "<figcaption>Penalty of the decision's choice at every grid "
                "point, (t_chosen - t_best) / t_best in percent, %s; n/a "
                "where its method cannot run there or was not "
                "timed.</figcaption>\n</figure>\n",
                d ? "looked up as libautotune looks it up"
                  : "matched as Open MPI's coll/tuned matches its rules "
                    "(algorithm 0, its fixed decision, is default/0)");
        fclose(mem);
        fprintf(f, "<tr><td><a href=\"#%s\">", id);
        put(f, pg->dec_names[i]);
        fputs("</a></td><td>", f);
        put(f, kind);
        fprintf(f,
                "</td><td class=\"n\">%s</td><td class=\"n\">%d</td><td "
                "class=\"n\">%d</td><td class=\"n\">%.2f</td><td "
                "class=\"n\">%.2f</td><td class=\"n\">%.2f</td></tr>\n",
                leaves, st.n, st.n_unrunnable, st.mean, st.median, st.max);
        n_shown++;
    }
    write_default_row(f, grid);
    fputs("</table>\n", f);
    if (n_shown == 0) {
        fputs("<p>No decision for this collective (and ranks per node) in "
              "the run directory: "
              "<code>autotune tree -r RUN</code>, <code>autotune quadtree "
              "-r RUN ...</code>, <code>autotune export -r RUN --format "
              "dec -o RUN/exact.dec</code> or <code>--format ompi -o "
              "RUN/rules.conf</code> write one.</p>\n",
              f);
    }
    for (int i = 0; i < pg->n_decs; i++) {
        if (figure[i]) {
            fputs(figure[i], f);
        }
        free(figure[i]);
    }
}

static void write_model(FILE *f, const struct page *pg, int g,
                        const struct report_algs *a, const char *cid)
{
    const struct run_grid *grid = &pg->r->grids[g];
    const double *pred = pg->predicted ? pg->predicted->pred_us[g] : NULL;
    struct report_model_stats st;
    if (!pred) {
        return;
    }
    if (report_model_stats(pg->r, grid, pred, &st) != 0) {
        fprintf(stderr, "autotune report: out of memory: the page goes on "
                        "without the model's section\n");
        return;
    }
    fprintf(f,
            "<h3>The model</h3>\n<table class=\"model\">\n<tr><th>methods "
            "compared</th><th>mean error %%</th><th>max error %%</th>"
            "<th>points</th><th>penalty of its choice: mean %%</th><th>max "
            "%%</th></tr>\n<tr><td class=\"n\">%ld</td><td "
            "class=\"n\">%.2f</td><td class=\"n\">%.2f</td><td "
            "class=\"n\">%ld</td><td class=\"n\">%.2f</td><td "
            "class=\"n\">%.2f</td></tr>\n</table>\n",
            st.n_compared, st.mean_err_pct, st.max_err_pct, st.n_points,
            st.mean_penalty_pct, st.max_penalty_pct);
    fprintf(f, "<figure id=\"model-%s\" class=\"model\">\n", cid);
    report_svg_model(f, pg->r, grid, a, pred, &st);
    fputs("<figcaption>Every method the run measured and predicted.csv "
          "predicts, one dot each; the error is |predicted - measured| / "
          "measured, and the penalty that of the method with the least "
          "predicted time at each point.</figcaption>\n</figure>\n",
          f);
}

static void write_collective(FILE *f, const struct page *pg, int g)
{
    const struct run_grid *grid = &pg->r->grids[g];
    struct report_algs a;
    char cid[RUN_NAME_MAX * 2], id[RUN_NAME_MAX * 3], name[RUN_NAME_MAX + 32];
    report_algs_build(pg->r, grid, pg->table_alg, &a);
    grid_id(cid, sizeof cid, pg->r, grid);
    report_grid_title(name, sizeof name, pg->r, grid);
    fprintf(f, "<section id=\"coll-%s\">\n<h2>", cid);
    put(f, name);
    fputs("</h2>\n", f);
    snprintf(id, sizeof id, "map-%s", cid);
    fprintf(f, "<figure id=\"%s\" class=\"decision-map\">\n", id);
    report_svg_decision_map(f, id, pg->r, grid, &a);
    fputs("<figcaption>The optimum of optimal.csv at every grid point: "
          "colour and letter name the algorithm, the text its segment size. "
          "Both axes are logarithmic; each cell reaches halfway to its "
          "neighbours.</figcaption>\n</figure>\n",
          f);
    snprintf(id, sizeof id, "speedup-%s", cid);
    if (pg->r->has_default) {
        char *buf = NULL;
        size_t len = 0;
        FILE *mem = open_memstream(&buf, &len);
        if (mem) {
            report_svg_speedup_map(mem, id, pg->r, grid);
            fclose(mem);
        }
        if (buf && len) {
            fprintf(f, "<figure id=\"%s\" class=\"speedup-map\">\n", id);
            fwrite(buf, 1, len, f);
            fputs("<figcaption>How many times faster the tuned choice is "
                  "than the library's own decision (default/0), where the "
                  "run timed it.</figcaption>\n</figure>\n",
                  f);
        }
        free(buf);
    } else {
        fputs("<p>The run did not time the library's default (baseline = "
              "false): no speedup map.</p>\n",
              f);
    }
    write_decisions(f, pg, grid, cid);
    write_landscapes(f, pg, grid, &a, cid);
    write_model(f, pg, g, &a, cid);
    fputs("</section>\n", f);
}

static int compare_col(const struct compare_csv *c, const char *name)
{
    for (int k = 0; k < c->n_cols; k++) {
        if (strcmp(c->cell[0][k], name) == 0) {
            return k;
        }
    }
    return -1;
}

static void write_strategies(FILE *f, const struct page *pg)
{
    const struct compare_csv *c = pg->compare;
    fputs("<section id=\"strategies\">\n<h2>Search strategies</h2>\n", f);
    if (!c) {
        fputs("<p>No compare.csv in the run directory (<code>autotune "
              "compare -r RUN</code> writes it on an exhaustive "
              "run).</p>\n</section>\n",
              f);
        return;
    }
    int ks = compare_col(c, "strategy"), kx = compare_col(c, "speedup");
    int kmean = compare_col(c, "mean_penalty_pct");
    int kmax = compare_col(c, "max_penalty_pct");
    if (ks >= 0 && kx >= 0 && kmean >= 0 && kmax >= 0) {
        const char *labels[MAX_COMPARE_ROWS];
        double speed[MAX_COMPARE_ROWS], mean[MAX_COMPARE_ROWS],
            max[MAX_COMPARE_ROWS];
        for (int i = 0; i < c->n_rows; i++) {
            labels[i] = c->cell[i + 1][ks];
            speed[i] = atof(c->cell[i + 1][kx]);
            mean[i] = atof(c->cell[i + 1][kmean]);
            max[i] = atof(c->cell[i + 1][kmax]);
        }
        fputs("<figure id=\"strategy-cost\" class=\"bars\">\n", f);
        report_svg_bars(f,
                        "Search cost: exhaustive's experiment seconds / the "
                        "strategy's",
                        "times fewer experiment seconds than exhaustive",
                        c->n_rows, labels, speed, NULL, NULL, NULL);
        fputs("<figcaption>From compare.csv: every strategy replayed on the "
              "run's journal.</figcaption>\n</figure>\n",
              f);
        fputs("<figure id=\"strategy-penalty\" class=\"bars\">\n", f);
        report_svg_bars(f, "Penalty of each strategy's choices (%)",
                        "penalty against the exhaustive optimum (%)", c->n_rows,
                        labels, mean, "mean", max, "max");
        fputs("<figcaption>Mean and maximum penalty over the run's points "
              "(compare.csv).</figcaption>\n</figure>\n",
              f);
    }
    fputs("<table id=\"compare\">\n", f);
    for (int i = 0; i <= c->n_rows; i++) {
        fputs("<tr>", f);
        for (int k = 0; k < c->n_cols; k++) {
            fputs(i ? "<td>" : "<th>", f);
            put(f, c->cell[i][k]);
            fputs(i ? "</td>" : "</th>", f);
        }
        fputs("</tr>\n", f);
    }
    fputs("</table>\n</section>\n", f);
}

static int write_page(FILE *f, const void *arg)
{
    const struct page *pg = arg;
    fputs("<!DOCTYPE html>\n<html xmlns=\"http://www.w3.org/1999/xhtml\" "
          "lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n<title>autotune "
          "report: ",
          f);
    put(f, pg->run);
    if (pg->r->is_predicted) {
        fputs(" (predicted times, nothing measured)", f);
    }
    fprintf(f, "</title>\n<style>\n%s</style>\n</head>\n<body>\n", style);
    fputs("<h1>autotune report: ", f);
    put(f, pg->run);
    fputs("</h1>\n", f);
    if (pg->r->is_predicted) {
        /* Said first and plainly: every figure below looks like a run's. */
        fputs("<p id=\"predicted\" style=\"border:2px solid #D55E00;"
              "padding:.5em 1em\"><strong>Nothing here was measured.</strong> "
              "These are the model's predicted times (autotune predict): "
              "every table, map and figure on this page shows predicted "
              "times, not measurements; the fastest method at each point is "
              "the one with the least predicted time.</p>\n",
              f);
    }
    fputs("<nav><a href=\"#run\">the run</a>", f);
    for (int g = 0; g < pg->r->n_grids; g++) {
        char cid[RUN_NAME_MAX * 2], name[RUN_NAME_MAX + 32];
        grid_id(cid, sizeof cid, pg->r, &pg->r->grids[g]);
        report_grid_title(name, sizeof name, pg->r, &pg->r->grids[g]);
        fprintf(f, "<a href=\"#coll-%s\">", cid);
        put(f, name);
        fputs("</a>", f);
    }
    fputs("<a href=\"#strategies\">search strategies</a></nav>\n", f);
    write_settings(f, pg);
    for (int g = 0; g < pg->r->n_grids; g++) {
        write_collective(f, pg, g);
    }
    write_strategies(f, pg);
    fputs("</body>\n</html>\n", f);
    return ferror(f) ? -1 : 0;
}

static int read_compare(const char *run, struct compare_csv **out)
{
    char path[4096], line[1024];
    *out = NULL;
    if (rundir_path(path, sizeof path, run, RUNDIR_COMPARE) != 0) {
        return -1;
    }
    FILE *in = fopen(path, "r");
    if (!in) {
        return errno == ENOENT ? 0 : (perror(path), -1);
    }
    struct compare_csv *c = calloc(1, sizeof *c);
    int rc = c ? 0 : -1, n_line = 0;
    while (rc == 0 && fgets(line, sizeof line, in)) {
        n_line++;
        line[strcspn(line, "\r\n")] = '\0';
        if (c->n_rows >= MAX_COMPARE_ROWS) {
            fprintf(stderr, "%s:%d: more than %d strategies\n", path, n_line,
                    MAX_COMPARE_ROWS);
            rc = -1;
            break;
        }
        int row = n_line == 1 ? 0 : ++c->n_rows, k = 0;
        for (char *s = line, *comma; s && rc == 0;
             s = comma ? comma + 1 : NULL) {
            comma = strchr(s, ',');
            size_t len = comma ? (size_t)(comma - s) : strlen(s);
            if (k >= MAX_COMPARE_COLS || len >= sizeof c->cell[0][0]) {
                fprintf(stderr, "%s:%d: malformed row\n", path, n_line);
                rc = -1;
                break;
            }
            snprintf(c->cell[row][k++], sizeof c->cell[0][0], "%.*s", (int)len,
                     s);
        }
        if (rc == 0 && n_line == 1) {
            c->n_cols = k;
        } else if (rc == 0 && k != c->n_cols) {
            fprintf(stderr, "%s:%d: %d fields where the header has %d\n", path,
                    n_line, k, c->n_cols);
            rc = -1;
        }
    }
    fclose(in);
    if (rc == 0 && n_line == 0) {
        fprintf(stderr, "%s: empty\n", path);
        rc = -1;
    }
    if (rc != 0) {
        free(c);
        return -1;
    }
    *out = c;
    return 0;
}

static int cmp_names(const void *a, const void *b)
{
    return strcmp((const char *)a, (const char *)b);
}

static bool has_suffix(const char *name, const char *suffix)
{
    size_t n = strlen(name), k = strlen(suffix);
    return n > k && strcmp(name + n - k, suffix) == 0;
}

/* An Open MPI rules file, checked as Open MPI reads it (file:line on
 * error), then flattened. */
static int load_rules(const char *path, struct ompi_eval **out)
{
    FILE *in = fopen(path, "r");
    char *text = NULL;
    size_t len = 0;
    int rc = -1;
    *out = NULL;
    if (!in) {
        perror(path);
        return -1;
    }
    FILE *mem = open_memstream(&text, &len);
    int c;
    while (mem && (c = fgetc(in)) != EOF) {
        fputc(c, mem);
    }
    fclose(in);
    if (!mem || fclose(mem) != 0 || !text) {
        fprintf(stderr, "%s: out of memory\n", path);
    } else if (export_check_ompi(text, len, path) == 0) {
        *out = malloc(sizeof **out);
        if (!*out || ompi_eval_load(text, *out) != 0) {
            fprintf(stderr, "%s: more than %d rules\n", path, EVAL_MAX_RULES);
        } else {
            rc = 0;
        }
    }
    free(text);
    return rc;
}

/* Every RUN/ *.dec and RUN/ *.conf (Open MPI rules), in name order. */
static int load_decisions(struct page *pg)
{
    DIR *dir = opendir(pg->run);
    struct dirent *e;
    char path[4096];
    if (!dir) {
        perror(pg->run);
        return -1;
    }
    while ((e = readdir(dir)) != NULL) {
        if ((has_suffix(e->d_name, ".dec") || has_suffix(e->d_name, ".conf")) &&
            strlen(e->d_name) < sizeof pg->dec_names[0] &&
            pg->n_decs < MAX_DECS) {
            snprintf(pg->dec_names[pg->n_decs++], sizeof pg->dec_names[0], "%s",
                     e->d_name);
        }
    }
    closedir(dir);
    qsort(pg->dec_names, (size_t)pg->n_decs, sizeof pg->dec_names[0],
          cmp_names);
    for (int i = 0; i < pg->n_decs; i++) {
        const char *name = pg->dec_names[i];
        if (rundir_path(path, sizeof path, pg->run, name) != 0 ||
            (has_suffix(name, ".dec") ? decision_load(path, &pg->decs[i])
                                      : load_rules(path, &pg->rules[i])) != 0) {
            return -1;
        }
    }
    return 0;
}

int report_write_html(const char *run_dir, const struct journal *journal,
                      report_table_alg_fn table_alg, const char *html_path,
                      const struct report_point *points, int n_points)
{
    struct page *pg = calloc(1, sizeof *pg);
    int rc = -1;
    if (!pg) {
        fprintf(stderr, "autotune report: out of memory\n");
        return -1;
    }
    pg->run = run_dir;
    pg->j = journal;
    pg->table_alg = table_alg;
    pg->points = points;
    pg->n_points = n_points;
    if (run_data_load_with_journal(run_dir, journal, NULL, 0, &pg->r) != 0) {
        goto done;
    }
    /* Predictions against themselves would show a model without error:
     * the model's accuracy is for a run that measured. */
    if (load_decisions(pg) != 0 || read_compare(run_dir, &pg->compare) != 0 ||
        (!pg->r->is_predicted &&
         report_predicted_load(run_dir, pg->r, &pg->predicted) != 0)) {
        goto done;
    }
    rc = store_write_file(html_path, write_page, pg);
done:
    run_data_destroy(pg->r);
    for (int i = 0; i < pg->n_decs; i++) {
        decision_destroy(pg->decs[i]);
        free(pg->rules[i]);
    }
    free(pg->compare);
    report_predicted_destroy(pg->predicted);
    free(pg);
    return rc;
}
