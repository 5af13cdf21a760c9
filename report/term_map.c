/* A collective's decision map in the terminal: one letter per algorithm
 * and the segment size in each cell, a legend; colour only on a terminal.
 * Also the parser of --points. */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "report/internal.h"
#include "report/svg.h"

/* The eight colours of algs.c as xterm-256 backgrounds, with their ink. */
static const int term_colour[] = {214, 117, 36, 227, 25, 166, 175, 16};
static const int term_ink[] = {16, 16, 231, 16, 231, 231, 16, 231};
#define N_TERM (int)(sizeof term_colour / sizeof term_colour[0])

static void cell_text(const struct run_data *r, const struct run_grid *grid,
                      const struct report_algs *a, long cell, char *buf,
                      size_t size, int *alg)
{
    int k = grid->best[cell];
    char seg[16] = "";
    *alg = -1;
    if (k < 0) {
        snprintf(buf, size, ".");
        return;
    }
    *alg = report_algs_find(a, r->methods[k].algorithm);
    if (r->methods[k].segment_bytes > 0) {
        svg_format_bytes(seg, sizeof seg, r->methods[k].segment_bytes);
    }
    snprintf(buf, size, "%s%c%s",
             grid->has_inferred && grid->is_inferred[cell] ? "~" : "",
             a->letter[*alg], seg);
}

static void put_coloured(FILE *out, const char *text, int alg, int width,
                         bool use_colour)
{
    if (use_colour && alg >= 0) {
        fprintf(out, "\033[48;5;%dm\033[38;5;%dm%-*s\033[0m",
                term_colour[alg % N_TERM], term_ink[alg % N_TERM], width, text);
    } else {
        fprintf(out, "%-*s", width, text);
    }
}

/* The map of grid g of r (print_map). */
static void print_grid_map(const struct run_data *r, int g,
                           report_table_alg_fn table_alg, FILE *out,
                           bool use_colour)
{
    const struct run_grid *grid = &r->grids[g];
    struct report_algs a;
    char text[32], name[RUN_NAME_MAX + 32];
    int width = 5, alg;
    report_algs_build(r, grid, table_alg, &a);
    report_grid_title(name, sizeof name, r, grid);
    for (long c = 0; c < (long)grid->n_procs * grid->n_msgs; c++) {
        cell_text(r, grid, &a, c, text, sizeof text, &alg);
        width = (int)strlen(text) + 1 > width ? (int)strlen(text) + 1 : width;
    }
    fprintf(out,
            "%s: the fastest method per communicator size (rows, processes) "
            "and message size\n(columns, bytes per rank): the algorithm's "
            "letter, then its segment size\n(none: unsegmented); '.' not "
            "measured\n\n",
            name);
    if (grid->has_inferred) {
        fputs(
            r->is_predicted
                ? "'~' first: predicted by the model (autotune predict), "
                  "not measured\n\n"
                : "'~' first: inferred by the adaptive grid, not measured\n\n",
            out);
    }
    fprintf(out, "%6s ", "procs");
    for (int m = 0; m < grid->n_msgs; m++) {
        svg_format_bytes(text, sizeof text, (double)grid->msgs[m]);
        fprintf(out, "%-*s", width, text);
    }
    fputc('\n', out);
    for (int p = 0; p < grid->n_procs; p++) {
        fprintf(out, "%6d ", grid->procs[p]);
        for (int m = 0; m < grid->n_msgs; m++) {
            cell_text(r, grid, &a, (long)p * grid->n_msgs + m, text,
                      sizeof text, &alg);
            put_coloured(out, text, alg, width, use_colour);
        }
        fputc('\n', out);
    }
    fputs("\nalgorithms:", out);
    for (int i = 0; i < a.n; i++) {
        if (i == a.n_fastest) {
            fputs("\ntimed, never the fastest:", out);
        }
        snprintf(text, sizeof text, "%c", a.letter[i]);
        bool is_row_start = i == a.n_fastest ||
                            (i < a.n_fastest ? i : i - a.n_fastest) % 4 == 0;
        fputs(is_row_start ? "\n  " : "  ", out);
        put_coloured(out, text, i, 1, use_colour);
        fprintf(out, " %-22s", a.name[i]);
    }
    fputc('\n', out);
}

int report_print_map(const char *run_dir, const struct journal *journal,
                     report_table_alg_fn table_alg, const char *collective,
                     FILE *out, bool use_colour)
{
    struct run_data *r;
    const char *colls[1] = {collective};
    if (run_data_load_with_journal(run_dir, journal, colls, 1, &r) != 0) {
        return -1;
    }
    /* one map per ranks per node */
    for (int g = 0; g < r->n_grids; g++) {
        if (g > 0) {
            fputc('\n', out);
        }
        print_grid_map(r, g, table_alg, out, use_colour);
    }
    run_data_destroy(r);
    return ferror(out) ? -1 : 0;
}

/* A size with an optional K or M (powers of 1024); -1 if it is none. */
static long parse_size(const char *s, const char *end)
{
    char *stop;
    errno = 0;
    long v = strtol(s, &stop, 10);
    long unit = 1;
    if (stop < end && (*stop == 'K' || *stop == 'k')) {
        unit = 1024;
        stop++;
    } else if (stop < end && (*stop == 'M' || *stop == 'm')) {
        unit = 1024 * 1024;
        stop++;
    }
    if (errno || stop != end || stop == s || v < 0 || v > LONG_MAX / unit) {
        return -1;
    }
    return v * unit;
}

int report_parse_points(const char *text, struct report_point **out, int *n)
{
    size_t cap = 1;
    for (const char *s = text; *s; s++) {
        cap += *s == ',';
    }
    struct report_point *pts = malloc(cap * sizeof *pts);
    *out = NULL;
    *n = 0;
    if (!pts) {
        fprintf(stderr, "autotune report: out of memory\n");
        return -1;
    }
    /* Every item, empty ones ("", ",," or a trailing comma) included. */
    const char *end = text;
    for (const char *s = text; s == text || *end; s = end + 1) {
        end = s + strcspn(s, ",");
        const char *colon = memchr(s, ':', (size_t)(end - s));
        long procs = colon ? parse_size(s, colon) : -1;
        long msg = colon ? parse_size(colon + 1, end) : -1;
        if (procs < 1 || procs > INT_MAX || msg < 0) {
            fprintf(stderr,
                    "autotune report: --points: '%.*s' is not PROCS:BYTES "
                    "(e.g. 16:64K)\n",
                    (int)(end - s), s);
            free(pts);
            return -1;
        }
        pts[*n].procs = (int)procs;
        pts[(*n)++].msg_bytes = msg;
    }
    *out = pts;
    return 0;
}
