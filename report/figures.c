/* The report's figures, one <svg> each: maps over (procs, message size)
 * on log axes (each cell spans halfway to its neighbours), landscapes and
 * bars. Every cell of a map carries its point in data- attributes, so the
 * figure can be read back. */
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "report/internal.h"
#include "report/svg.h"
#include "util/tuning.h"

#define MAP_LEFT 86.0
#define MAP_TOP 40.0
#define MAP_BOTTOM 58.0
#define MAP_LEGEND 250.0
#define MIN_CELL_PX 18.0
#define MISSING_FILL "#f4f4f4"

/* A map's plot area and its cell edges in px (y_edge[0] at the bottom). */
struct map_layout {
    double x0, y0, w, h, width, height;
    double *x_edge, *y_edge;
    bool is_x_log, is_y_log;
};

/* What one cell of a map looks like. */
struct cell_look {
    const char *fill, *ink;
    char text[24];
    bool is_hatched, is_missing;
    char attrs[1024];
};
typedef void (*cell_look_fn)(const void *ctx, int p, int m, long cell,
                             struct cell_look *look);

/* Cell edges in position space (log2 of the values when all are
 * positive, else their index): halfway between neighbours. Returns the
 * smallest cell width. */
static double axis_edges(const double *v, int n, bool is_log, double *e)
{
    double pos_prev = 0, smallest = HUGE_VAL;
    for (int i = 0; i <= n; i++) {
        double pos = i < n ? (is_log ? log2(v[i]) : i) : 0;
        if (n == 1) {
            e[0] = pos - 0.5;
            e[1] = pos + 0.5;
            return 1;
        }
        if (i == 0) {
            double next = is_log ? log2(v[1]) : 1;
            e[0] = pos - (next - pos) / 2;
        } else if (i < n) {
            e[i] = (pos_prev + pos) / 2;
        } else {
            e[n] = pos_prev + (pos_prev - e[n - 1]);
        }
        if (i > 0 && e[i] - e[i - 1] < smallest) {
            smallest = e[i] - e[i - 1];
        }
        pos_prev = pos;
    }
    return smallest;
}

static int layout_create(const struct run_grid *grid, struct map_layout *L)
{
    int np = grid->n_procs, nm = grid->n_msgs;
    double *pv = malloc((size_t)np * sizeof *pv);
    double *mv = malloc((size_t)nm * sizeof *mv);
    L->x_edge = malloc((size_t)(nm + 1) * sizeof *L->x_edge);
    L->y_edge = malloc((size_t)(np + 1) * sizeof *L->y_edge);
    if (!pv || !mv || !L->x_edge || !L->y_edge) {
        free(pv);
        free(mv);
        return -1;
    }
    L->is_x_log = L->is_y_log = true;
    for (int i = 0; i < np; i++) {
        pv[i] = grid->procs[i];
        L->is_y_log = L->is_y_log && pv[i] > 0;
    }
    for (int i = 0; i < nm; i++) {
        mv[i] = (double)grid->msgs[i];
        L->is_x_log = L->is_x_log && mv[i] > 0;
    }
    double x_min = axis_edges(mv, nm, L->is_x_log, L->x_edge);
    double y_min = axis_edges(pv, np, L->is_y_log, L->y_edge);
    double x_span = L->x_edge[nm] - L->x_edge[0];
    double y_span = L->y_edge[np] - L->y_edge[0];
    L->w = fmin(fmax(480, 2.6 * MIN_CELL_PX * x_span / x_min), 1100);
    L->h = fmin(fmax(240, MIN_CELL_PX * y_span / y_min), 760);
    L->x0 = MAP_LEFT;
    L->y0 = MAP_TOP;
    L->width = MAP_LEFT + L->w + MAP_LEGEND;
    L->height = MAP_TOP + L->h + MAP_BOTTOM;
    double x_lo = L->x_edge[0], y_lo = L->y_edge[0];
    for (int i = 0; i <= nm; i++) {
        L->x_edge[i] = L->x0 + (L->x_edge[i] - x_lo) / x_span * L->w;
    }
    for (int i = 0; i <= np; i++) {
        L->y_edge[i] = L->y0 + L->h - (L->y_edge[i] - y_lo) / y_span * L->h;
    }
    free(pv);
    free(mv);
    return 0;
}

static void layout_destroy(struct map_layout *L)
{
    free(L->x_edge);
    free(L->y_edge);
}

/* The patterns a map's cells use: white hatching over the colours past
 * the eighth, grey cross-hatching on points not measured. */
static void write_patterns(FILE *f, const char *id)
{
    fprintf(f,
            "<defs><pattern id=\"%s-hatch\" width=\"6\" height=\"6\" "
            "patternUnits=\"userSpaceOnUse\" "
            "patternTransform=\"rotate(45)\"><rect width=\"2\" height=\"6\" "
            "fill=\"#ffffff\" fill-opacity=\"0.7\"/></pattern>\n"
            "<pattern id=\"%s-miss\" width=\"8\" height=\"8\" "
            "patternUnits=\"userSpaceOnUse\"><path d=\"M0 0L8 8M8 0L0 8\" "
            "stroke=\"#aaaaaa\" stroke-width=\"1\"/></pattern></defs>\n",
            id, id);
}

static void draw_cells(FILE *f, const char *id, const struct map_layout *L,
                       const struct run_grid *grid, cell_look_fn fn,
                       const void *ctx)
{
    char url[80];
    for (int p = 0; p < grid->n_procs; p++) {
        for (int m = 0; m < grid->n_msgs; m++) {
            long cell = (long)p * grid->n_msgs + m;
            struct cell_look look = {MISSING_FILL, "#000000", "",
                                     false,        false,     ""};
            if (grid->best[cell] < 0) {
                look.is_missing = true;
                snprintf(look.attrs, sizeof look.attrs,
                         "class=\"cell missing\" data-procs=\"%d\" "
                         "data-msg=\"%ld\"",
                         grid->procs[p], grid->msgs[m]);
            } else {
                fn(ctx, p, m, cell, &look);
            }
            double x = L->x_edge[m], w = L->x_edge[m + 1] - x;
            double y = L->y_edge[p + 1], h = L->y_edge[p] - y;
            svg_rect(f, x, y, w, h, look.fill, look.attrs);
            if (look.is_hatched || look.is_missing) {
                snprintf(url, sizeof url, "url(#%s-%s)", id,
                         look.is_missing ? "miss" : "hatch");
                svg_rect(f, x, y, w, h, url, NULL);
            }
            double len = (double)strlen(look.text);
            double size = fmin(fmin(11, 0.62 * h), len ? w / (0.62 * len) : 11);
            if (len && size >= 6) {
                svg_text(f, x + w / 2, y + h / 2 + 0.35 * size, "middle", size,
                         look.ink, 0, look.text);
            }
        }
    }
}

/* Frame, tick labels at the cells, axis titles and the figure's title. */
static void draw_axes(FILE *f, const struct map_layout *L,
                      const struct run_grid *grid, const char *title)
{
    char label[32];
    svg_text(f, L->x0, 24, "start", 15, "#000000", 0, title);
    fprintf(f,
            "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
            "fill=\"none\" stroke=\"#333333\"/>\n",
            L->x0, L->y0, L->w, L->h);
    double last = -HUGE_VAL;
    for (int m = 0; m < grid->n_msgs; m++) {
        double x = (L->x_edge[m] + L->x_edge[m + 1]) / 2;
        if (x - last < 32) {
            continue;
        }
        svg_format_bytes(label, sizeof label, (double)grid->msgs[m]);
        svg_text(f, x, L->y0 + L->h + 16, "middle", 11, "#000000", 0, label);
        last = x;
    }
    last = HUGE_VAL;
    for (int p = 0; p < grid->n_procs; p++) {
        double y = (L->y_edge[p] + L->y_edge[p + 1]) / 2;
        if (last - y < 12) {
            continue;
        }
        snprintf(label, sizeof label, "%d", grid->procs[p]);
        svg_text(f, L->x0 - 6, y + 4, "end", 11, "#000000", 0, label);
        last = y;
    }
    svg_text(f, L->x0 + L->w / 2, L->y0 + L->h + 40, "middle", 12, "#000000", 0,
             L->is_x_log ? "message size (bytes per rank, log scale)"
                         : "message size (bytes per rank)");
    svg_text(f, 22, L->y0 + L->h / 2, "middle", 12, "#000000", -90,
             L->is_y_log ? "communicator size (processes, log scale)"
                         : "communicator size (processes)");
}

/* A map's <svg> up to its legend: cells, axes and title. */
static void map_begin(FILE *f, const char *id, const struct map_layout *L,
                      const struct run_grid *grid, const char *title,
                      cell_look_fn fn, const void *ctx)
{
    svg_begin(f, L->width, L->height, title);
    write_patterns(f, id);
    draw_cells(f, id, L, grid, fn, ctx);
    draw_axes(f, L, grid, title);
}

void report_grid_title(char *buf, size_t size, const struct run_data *r,
                       const struct run_grid *grid)
{
    if (r->n_ppn > 1) {
        snprintf(buf, size, "%s, ppn %d", grid->name, grid->ppn);
    } else {
        snprintf(buf, size, "%s", grid->name);
    }
}

static void legend_swatch(FILE *f, const char *id, double x, double y,
                          const char *fill, bool is_hatched, bool is_missing,
                          const char *text)
{
    char url[80];
    svg_rect(f, x, y, 16, 16, fill, "stroke=\"#333333\"");
    if (is_hatched || is_missing) {
        snprintf(url, sizeof url, "url(#%s-%s)", id,
                 is_missing ? "miss" : "hatch");
        svg_rect(f, x, y, 16, 16, url, NULL);
    }
    svg_text(f, x + 22, y + 12.5, "start", 11, "#000000", 0, text);
}

/* ---- the decision map ---- */

struct decision_ctx {
    const struct run_data *r;
    const struct run_grid *grid;
    const struct report_algs *a;
};

static void decision_look(const void *ctx, int p, int m, long cell,
                          struct cell_look *look)
{
    const struct decision_ctx *c = ctx;
    const struct run_method *rm = &c->r->methods[c->grid->best[cell]];
    int i = report_algs_find(c->a, rm->algorithm);
    char seg[16] = "", label[2 * sizeof rm->label];
    look->fill = report_alg_colour(i);
    look->ink = report_alg_ink(i);
    look->is_hatched = report_alg_is_hatched(i);
    if (rm->segment_bytes > 0) {
        svg_format_bytes(seg, sizeof seg, rm->segment_bytes);
    }
    bool is_inferred = c->grid->has_inferred && c->grid->is_inferred[cell];
    snprintf(look->text, sizeof look->text, "%s%c%s", is_inferred ? "~" : "",
             c->a->letter[i], seg);
    svg_escape_to(label, sizeof label, rm->label);
    snprintf(look->attrs, sizeof look->attrs,
             "class=\"cell\" data-procs=\"%d\" data-msg=\"%ld\" "
             "data-method=\"%s\" data-time-us=\"%.3f\" data-inferred=\"%d\"",
             c->grid->procs[p], c->grid->msgs[m], label, c->grid->best_us[cell],
             is_inferred);
}

void report_svg_decision_map(FILE *f, const char *id, const struct run_data *r,
                             const struct run_grid *grid,
                             const struct report_algs *a)
{
    struct map_layout L;
    char title[160], text[RUN_NAME_MAX + 8];
    struct decision_ctx ctx = {r, grid, a};
    if (layout_create(grid, &L) != 0) {
        return;
    }
    char name[RUN_NAME_MAX + 32];
    report_grid_title(name, sizeof name, r, grid);
    snprintf(title, sizeof title,
             "%s: the fastest method at each communicator and message size",
             name);
    /* Room for the legend below a short map: a line per algorithm, the
     * "never the fastest" heading, "not measured" and the note. */
    L.height = fmax(L.height, L.y0 + 14 + 21 * (a->n + 1) + 18 + 50 +
                                  (grid->has_inferred ? 30 : 0));
    map_begin(f, id, &L, grid, title, decision_look, &ctx);
    double x = L.x0 + L.w + 20, y = L.y0;
    svg_text(f, x, y + 4, "start", 12, "#000000", 0, "algorithm (letter)");
    y += 14;
    for (int i = 0; i < a->n; i++, y += 21) {
        if (i == a->n_fastest) {
            svg_text(f, x, y + 12, "start", 11, "#555555", 0,
                     "timed, never the fastest:");
            y += 18;
        }
        snprintf(text, sizeof text, "%c  %s", a->letter[i], a->name[i]);
        legend_swatch(f, id, x, y, report_alg_colour(i),
                      report_alg_is_hatched(i), false, text);
    }
    legend_swatch(f, id, x, y, MISSING_FILL, false, true, "not measured");
    y += 34;
    svg_text(f, x, y, "start", 11, "#000000", 0, "cell: letter and segment");
    svg_text(f, x, y + 14, "start", 11, "#000000", 0,
             "size (none: unsegmented)");
    if (grid->has_inferred) {
        svg_text(f, x, y + 28, "start", 11, "#000000", 0,
                 r->is_predicted ? "~: predicted, not measured"
                                 : "~: inferred, not measured");
        svg_text(f, x, y + 42, "start", 11, "#000000", 0,
                 r->is_predicted ? "(autotune predict)"
                                 : "(grid = \"adaptive\")");
    }
    svg_end(f);
    layout_destroy(&L);
}

/* ---- heat maps: speedup and penalty ---- */

/* A sequential colour of t in 0..1 through stops (n of them). */
static void ramp(const char *const *stops, int n, double t, char *buf,
                 size_t size, const char **ink)
{
    t = fmin(fmax(t, 0), 1) * (n - 1);
    int i = (int)t < n - 1 ? (int)t : n - 2;
    double u = t - i, rgb[3];
    for (int c = 0; c < 3; c++) {
        unsigned a, b;
        sscanf(stops[i] + 1 + 2 * c, "%2x", &a);
        sscanf(stops[i + 1] + 1 + 2 * c, "%2x", &b);
        rgb[c] = a + u * ((double)b - a);
    }
    snprintf(buf, size, "#%02x%02x%02x", (unsigned)lround(rgb[0]),
             (unsigned)lround(rgb[1]), (unsigned)lround(rgb[2]));
    double luma = (0.299 * rgb[0] + 0.587 * rgb[1] + 0.114 * rgb[2]) / 255;
    *ink = luma > 0.5 ? "#000000" : "#ffffff";
}

/* Viridis (speedup) and yellow-orange-red (penalty): both sequential in
 * lightness, so they read in grey and for colour-blind readers. */
static const char *const viridis[] = {"#440154", "#3b528b", "#21918c",
                                      "#5ec962", "#fde725"};
static const char *const ylorrd[] = {"#ffffcc", "#fed976", "#fd8d3c", "#e31a1c",
                                     "#800026"};

/* A vertical colour bar: stops from t = 0 (top label lo) to 1 (hi). */
static void colour_bar(FILE *f, double x, double y, const char *const *stops,
                       int n_stops, bool is_reversed, const char *name,
                       const char *lo, const char *hi)
{
    char fill[16];
    const char *ink;
    svg_text(f, x, y + 4, "start", 12, "#000000", 0, name);
    for (int i = 0; i < 20; i++) {
        double t = i / 19.0;
        ramp(stops, n_stops, is_reversed ? 1 - t : t, fill, sizeof fill, &ink);
        svg_rect(f, x, y + 14 + 8 * i, 18, 8, fill, NULL);
    }
    svg_text(f, x + 24, y + 24, "start", 11, "#000000", 0,
             is_reversed ? hi : lo);
    svg_text(f, x + 24, y + 14 + 160, "start", 11, "#000000", 0,
             is_reversed ? lo : hi);
}

struct speedup_ctx {
    const struct run_grid *grid;
    double log_max;
    char fill[16];
};

static void speedup_look(const void *ctx, int p, int m, long cell,
                         struct cell_look *look)
{
    struct speedup_ctx *c = (struct speedup_ctx *)ctx;
    const struct run_grid *grid = c->grid;
    double d = grid->default_us[cell];
    if (d < 0) {
        look->is_missing = true;
        snprintf(look->attrs, sizeof look->attrs,
                 "class=\"cell missing\" data-procs=\"%d\" data-msg=\"%ld\"",
                 grid->procs[p], grid->msgs[m]);
        return;
    }
    double s = d / grid->best_us[cell];
    ramp(viridis, 5, c->log_max > 0 ? log(s) / c->log_max : 0, c->fill,
         sizeof c->fill, &look->ink);
    look->fill = c->fill;
    snprintf(look->text, sizeof look->text, s < 10 ? "%.1f" : "%.0f", s);
    snprintf(look->attrs, sizeof look->attrs,
             "class=\"cell\" data-procs=\"%d\" data-msg=\"%ld\" "
             "data-speedup=\"%.4f\"",
             grid->procs[p], grid->msgs[m], s);
}

int report_svg_speedup_map(FILE *f, const char *id, const struct run_data *r,
                           const struct run_grid *grid)
{
    long cells = (long)grid->n_procs * grid->n_msgs;
    double max = 1;
    int n = 0;
    for (long c = 0; c < cells; c++) {
        if (grid->best[c] >= 0 && grid->default_us[c] >= 0) {
            max = fmax(max, grid->default_us[c] / grid->best_us[c]);
            n++;
        }
    }
    if (n == 0) {
        return 0;
    }
    struct map_layout L;
    if (layout_create(grid, &L) != 0) {
        return -1;
    }
    char title[160], hi[32], name[RUN_NAME_MAX + 32];
    struct speedup_ctx ctx = {grid, log(max), ""};
    report_grid_title(name, sizeof name, r, grid);
    snprintf(title, sizeof title,
             "%s: speedup of the tuned choice over the library default "
             "(default time / tuned time)",
             name);
    map_begin(f, id, &L, grid, title, speedup_look, &ctx);
    snprintf(hi, sizeof hi, "%.2fx", max);
    double x = L.x0 + L.w + 20;
    colour_bar(f, x, L.y0, viridis, 5, true, "speedup (log)", "1x", hi);
    legend_swatch(f, id, x, L.y0 + 200, MISSING_FILL, false, true,
                  "default not timed");
    svg_end(f);
    layout_destroy(&L);
    return 0;
}

struct penalty_ctx {
    const struct run_data *r;
    const struct run_grid *grid;
    report_choose_fn choose;
    const void *choose_ctx;
    char fill[16];
};

/* The penalty (percent) of d's choice at cell, or -1 where that method
 * cannot run or was not timed; *label gets the method d names. */
static double penalty_at(const struct penalty_ctx *c, int p, int m, long cell,
                         const char **label)
{
    const struct run_grid *grid = c->grid;
    *label = c->choose(c->choose_ctx, grid->procs[p], grid->msgs[m]);
    int rk = run_data_find_method(c->r, *label);
    double t = rk < 0 ? -1 : grid->time_us[cell * c->r->n_methods + rk];
    return t < 0 ? -1 : 100 * tuning_penalty(t, grid->best_us[cell]);
}

#define PENALTY_SCALE_PCT 50.0

static void penalty_look(const void *ctx, int p, int m, long cell,
                         struct cell_look *look)
{
    struct penalty_ctx *c = (struct penalty_ctx *)ctx;
    const char *label;
    char method[RUN_LABEL_MAX * 6];
    double pct = penalty_at(c, p, m, cell, &label);
    svg_escape_to(method, sizeof method, label);
    if (pct < 0) {
        look->fill = "#bbbbbb";
        snprintf(look->text, sizeof look->text, "n/a");
        snprintf(look->attrs, sizeof look->attrs,
                 "class=\"cell unrunnable\" data-procs=\"%d\" "
                 "data-msg=\"%ld\" data-method=\"%s\"",
                 c->grid->procs[p], c->grid->msgs[m], method);
        return;
    }
    ramp(ylorrd, 5, sqrt(fmin(pct, PENALTY_SCALE_PCT) / PENALTY_SCALE_PCT),
         c->fill, sizeof c->fill, &look->ink);
    look->fill = c->fill;
    if (pct >= 0.05) {
        snprintf(look->text, sizeof look->text, pct < 10 ? "%.1f" : "%.0f",
                 pct);
    }
    snprintf(look->attrs, sizeof look->attrs,
             "class=\"cell\" data-procs=\"%d\" data-msg=\"%ld\" "
             "data-method=\"%s\" data-penalty-pct=\"%.4f\"",
             c->grid->procs[p], c->grid->msgs[m], method, pct);
}

void report_svg_penalty_map(FILE *f, const char *id, const char *what,
                            const struct run_data *r,
                            const struct run_grid *grid,
                            report_choose_fn choose, const void *choose_ctx,
                            struct penalty_stats *stats)
{
    struct penalty_ctx ctx = {r, grid, choose, choose_ctx, ""};
    long cells = (long)grid->n_procs * grid->n_msgs;
    double *v = malloc((size_t)(cells + 1) * sizeof *v);
    struct map_layout L;
    int n = 0, n_unrunnable = 0;
    memset(stats, 0, sizeof *stats);
    if (!v || layout_create(grid, &L) != 0) {
        free(v);
        return;
    }
    for (int p = 0; p < grid->n_procs; p++) {
        for (int m = 0; m < grid->n_msgs; m++) {
            long cell = (long)p * grid->n_msgs + m;
            const char *label;
            double pct =
                grid->best[cell] < 0 ? 0 : penalty_at(&ctx, p, m, cell, &label);
            if (grid->best[cell] < 0) {
                continue;
            }
            if (pct < 0) {
                n_unrunnable++;
            } else {
                v[n++] = pct / 100;
            }
        }
    }
    penalty_stats_compute(v, n, n_unrunnable, stats);
    char title[240], name[RUN_NAME_MAX + 32];
    report_grid_title(name, sizeof name, r, grid);
    snprintf(title, sizeof title,
             "%s: penalty of %s against the optimum (%%): mean %.2f %%, "
             "max %.2f %%",
             name, what, stats->mean, stats->max);
    map_begin(f, id, &L, grid, title, penalty_look, &ctx);
    double x = L.x0 + L.w + 20;
    colour_bar(f, x, L.y0, ylorrd, 5, true, "penalty", "0 %", ">= 50 %");
    legend_swatch(f, id, x, L.y0 + 200, "#bbbbbb", false, false,
                  "n/a: cannot run there");
    legend_swatch(f, id, x, L.y0 + 224, MISSING_FILL, false, true,
                  "not measured");
    svg_end(f);
    layout_destroy(&L);
    free(v);
}

/* ---- segment-size landscapes ---- */

#define LAND_W 560.0
#define LAND_H 320.0

/* x position of a segment size: log2, "none" (0) one step left of the
 * smallest segment. */
static double seg_pos(int seg, int smallest)
{
    return seg > 0 ? log2(seg) : log2(smallest) - 1;
}

void report_svg_landscape(FILE *f, const struct run_data *r,
                          const struct run_grid *grid,
                          const struct report_algs *a, int p, int m)
{
    long cell = (long)p * grid->n_msgs + m;
    long msg = grid->msgs[m];
    int smallest = 0, largest = 0;
    double t_lo = HUGE_VAL, t_hi = 0;
    const double *t = grid->time_us + cell * r->n_methods;
    /* A segment at least the message was not timed (run_data copies the
     * unsegmented time there): not a point of the landscape. */
    for (int k = 0; k < r->n_methods; k++) {
        int seg = r->methods[k].segment_bytes;
        if (t[k] < 0 || (seg > 0 && seg >= msg) ||
            report_algs_find(a, r->methods[k].algorithm) < 0) {
            continue;
        }
        t_lo = fmin(t_lo, t[k]);
        t_hi = fmax(t_hi, t[k]);
        if (seg > 0) {
            smallest = smallest && smallest < seg ? smallest : seg;
            largest = largest > seg ? largest : seg;
        }
    }
    if (t_hi <= 0) {
        return;
    }
    smallest = smallest ? smallest : 1;
    largest = largest ? largest : 1;
    char title[200], size[16], label[32], name[RUN_NAME_MAX + 32];
    svg_format_bytes(size, sizeof size, (double)msg);
    report_grid_title(name, sizeof name, r, grid);
    snprintf(title, sizeof title,
             "%s at %d processes, %s: time against segment size per algorithm",
             name, grid->procs[p], size);
    double x0 = 80, y0 = 40, width = x0 + LAND_W + 230;
    svg_begin(f, width, y0 + LAND_H + 60, title);
    svg_text(f, x0, 24, "start", 15, "#000000", 0, title);
    struct svg_axis xa = {seg_pos(0, smallest), seg_pos(largest, smallest),
                          x0 + 20, x0 + LAND_W - 40, false};
    if (xa.hi <= xa.lo) {
        xa.hi = xa.lo + 1;
    }
    struct svg_axis ya = {t_lo / 1.15, t_hi * 1.15, y0 + LAND_H, y0, true};
    fprintf(f,
            "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
            "fill=\"none\" stroke=\"#333333\"/>\n",
            x0, y0, LAND_W, LAND_H);
    /* x ticks: none and every timed segment size, once each. */
    for (int k = -1; k < r->n_methods; k++) {
        int seg = k < 0 ? 0 : r->methods[k].segment_bytes;
        bool is_new = k < 0 || (seg > 0 && seg < msg && t[k] >= 0);
        for (int e = 0; e < k && is_new; e++) {
            is_new = r->methods[e].segment_bytes != seg || t[e] < 0;
        }
        if (!is_new) {
            continue;
        }
        double x = svg_axis_px(&xa, seg_pos(seg, smallest));
        if (seg > 0) {
            svg_format_bytes(label, sizeof label, seg);
        }
        svg_text(f, x, y0 + LAND_H + 16, "middle", 11, "#000000", 0,
                 seg > 0 ? label : "none");
    }
    /* y ticks: 1, 2, 5 per decade inside the range, every digit when the
     * range is under a decade, and halves too under a factor of 4. */
    int n_steps = ya.hi / ya.lo < 4 ? 13 : ya.hi / ya.lo < 10 ? 9 : 3;
    for (double decade = pow(10, floor(log10(ya.lo))); decade < ya.hi;
         decade *= 10) {
        static const double steps[] = {1, 2, 5,   3,   4,   6,  7,
                                       8, 9, 1.5, 2.5, 3.5, 4.5};
        for (int s = 0; s < n_steps; s++) {
            double v = decade * steps[s];
            if (v < ya.lo || v > ya.hi) {
                continue;
            }
            double y = svg_axis_px(&ya, v);
            svg_line(f, x0, y, x0 + LAND_W, y, "#dddddd", 1);
            svg_format_us(label, sizeof label, v);
            svg_text(f, x0 - 6, y + 4, "end", 11, "#000000", 0, label);
        }
    }
    svg_text(f, x0 + LAND_W / 2, y0 + LAND_H + 40, "middle", 12, "#000000", 0,
             "segment size (bytes, log scale; none: unsegmented)");
    svg_text(f, 22, y0 + LAND_H / 2, "middle", 12, "#000000", -90,
             "time (log scale)");
    double *xs = malloc((size_t)(r->n_methods + 2) * sizeof *xs);
    double *ys = malloc((size_t)(r->n_methods + 2) * sizeof *ys);
    int best = grid->best[cell];
    for (int i = 0; xs && ys && i < a->n; i++) {
        int n = 0;
        /* Methods come in measurements.csv's order; sort this
         * algorithm's by segment size as they are added. */
        for (int k = 0; k < r->n_methods; k++) {
            int seg = r->methods[k].segment_bytes;
            if (strcmp(r->methods[k].algorithm, a->name[i]) != 0 || t[k] < 0 ||
                (seg > 0 && seg >= msg)) {
                continue;
            }
            double x = svg_axis_px(&xa, seg_pos(seg, smallest));
            int j = n++;
            while (j > 0 && xs[j - 1] > x) {
                xs[j] = xs[j - 1];
                ys[j] = ys[j - 1];
                j--;
            }
            xs[j] = x;
            ys[j] = svg_axis_px(&ya, t[k]);
        }
        if (n == 0) {
            continue;
        }
        const char *colour = report_alg_colour(i);
        fprintf(f, "<g class=\"curve\" data-algorithm=\"");
        svg_escape(f, a->name[i]);
        fprintf(f, "\" data-points=\"%d\">\n", n);
        for (int j = 0; j < n; j++) {
            svg_circle(f, xs[j], ys[j], 3.5, colour);
        }
        if (n == 1) {
            /* Unsegmented only: a dashed level across the plot. */
            xs[1] = x0 + LAND_W - 14;
            ys[1] = ys[0];
            n = 2;
            svg_polyline(f, xs, ys, n, colour, "6 4");
        } else {
            svg_polyline(f, xs, ys, n, colour,
                         report_alg_is_hatched(i) ? "2 3" : NULL);
        }
        char letter[2] = {a->letter[i], '\0'};
        svg_text(f, xs[n - 1] + 6, ys[n - 1] + 4, "start", 11, "#000000", 0,
                 letter);
        fputs("</g>\n", f);
    }
    if (best >= 0) {
        int seg = r->methods[best].segment_bytes;
        fprintf(f,
                "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"8\" fill=\"none\" "
                "stroke=\"#000000\" stroke-width=\"2\"/>\n",
                svg_axis_px(&xa, seg_pos(seg, smallest)),
                svg_axis_px(&ya, grid->best_us[cell]));
    }
    free(xs);
    free(ys);
    double x = x0 + LAND_W + 20, y = y0;
    for (int i = 0; i < a->n; i++, y += 20) {
        char text[RUN_NAME_MAX + 8];
        snprintf(text, sizeof text, "%c  %s", a->letter[i], a->name[i]);
        double line_x[2] = {x, x + 18}, line_y[2] = {y + 8, y + 8};
        svg_polyline(f, line_x, line_y, 2, report_alg_colour(i),
                     report_alg_is_hatched(i) ? "2 3" : NULL);
        svg_text(f, x + 24, y + 12, "start", 11, "#000000", 0, text);
    }
    svg_text(f, x, y + 14, "start", 11, "#000000", 0,
             "ring: the optimum; long dashes:");
    svg_text(f, x, y + 28, "start", 11, "#000000", 0, "timed unsegmented only");
    svg_end(f);
}

/* ---- bars ---- */

void report_svg_bars(FILE *f, const char *title, const char *unit, int n,
                     const char *const *labels, const double *values,
                     const char *series1, const double *values2,
                     const char *series2)
{
    double x0 = 130, bar_w = 480, row_h = values2 ? 34 : 22, y0 = 40;
    double max = 0;
    char text[32];
    for (int i = 0; i < n; i++) {
        max = fmax(max, values[i]);
        max = values2 ? fmax(max, values2[i]) : max;
    }
    max = max > 0 ? max : 1;
    svg_begin(f, x0 + bar_w + 200, y0 + n * row_h + 50, title);
    svg_text(f, 10, 24, "start", 15, "#000000", 0, title);
    for (int i = 0; i < n; i++) {
        double y = y0 + i * row_h;
        svg_text(f, x0 - 8, y + (values2 ? 20 : 14), "end", 12, "#000000", 0,
                 labels[i]);
        for (int s = 0; s < (values2 ? 2 : 1); s++) {
            double v = s ? values2[i] : values[i];
            double h = values2 ? 14 : 16, yy = y + 2 + s * h;
            svg_rect(f, x0, yy, bar_w * v / max, h - 1,
                     s ? report_alg_colour(0) : report_alg_colour(4), NULL);
            snprintf(text, sizeof text, "%.3g", v);
            svg_text(f, x0 + bar_w * v / max + 4, yy + h - 3, "start", 11,
                     "#000000", 0, text);
        }
    }
    double y = y0 + n * row_h + 20;
    svg_line(f, x0, y0 - 2, x0, y - 14, "#333333", 1);
    svg_text(f, x0 + bar_w / 2, y + 10, "middle", 12, "#000000", 0, unit);
    if (values2) {
        double x = x0 + bar_w + 60;
        svg_rect(f, x, y0, 14, 14, report_alg_colour(4), NULL);
        svg_text(f, x + 20, y0 + 12, "start", 11, "#000000", 0, series1);
        svg_rect(f, x, y0 + 20, 14, 14, report_alg_colour(0), NULL);
        svg_text(f, x + 20, y0 + 32, "start", 11, "#000000", 0, series2);
    }
    svg_end(f);
}
