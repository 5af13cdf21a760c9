/* The algorithms of a collective as the report shows them: a letter and a
 * colour each, the same in every figure and in the terminal. */
#include <ctype.h>
#include <string.h>

#include "report/internal.h"
#include "store/journal.h"

/* Okabe and Ito's palette, distinguishable with every common colour
 * vision deficiency; the ink is the text colour readable on each. */
static const char *const palette[] = {"#E69F00", "#56B4E9", "#009E73",
                                      "#F0E442", "#0072B2", "#D55E00",
                                      "#CC79A7", "#000000"};
static const char *const inks[] = {"#000000", "#000000", "#ffffff", "#000000",
                                   "#ffffff", "#ffffff", "#000000", "#ffffff"};
#define N_PALETTE (int)(sizeof palette / sizeof palette[0])

const char *report_alg_colour(int i)
{
    return palette[i % N_PALETTE];
}

const char *report_alg_ink(int i)
{
    return inks[i % N_PALETTE];
}

int report_alg_is_hatched(int i)
{
    return i >= N_PALETTE;
}

int report_algs_find(const struct report_algs *a, const char *name)
{
    for (int i = 0; i < a->n; i++) {
        if (strcmp(a->name[i], name) == 0) {
            return i;
        }
    }
    return -1;
}

int report_algs_of_method(const struct report_algs *a, const struct run_data *r,
                          int k)
{
    return k < 0 ? -1 : report_algs_find(a, r->methods[k].algorithm);
}

static void add_alg(struct report_algs *a, const char *name)
{
    if (a->n < REPORT_MAX_ALGS && report_algs_find(a, name) < 0) {
        snprintf(a->name[a->n++], sizeof a->name[0], "%s", name);
    }
}

static int is_letter_used(const struct report_algs *a, int n, char c)
{
    for (int i = 0; i < n; i++) {
        if (a->letter[i] == c) {
            return 1;
        }
    }
    return 0;
}

/* The first letter of the name not taken yet (upper case, then lower),
 * else any free letter. */
static char pick_letter(const struct report_algs *a, int i)
{
    for (int lower = 0; lower < 2; lower++) {
        for (const char *s = a->name[i]; *s; s++) {
            if (!isalpha((unsigned char)*s)) {
                continue;
            }
            char c = (char)(lower ? tolower((unsigned char)*s)
                                  : toupper((unsigned char)*s));
            if (!is_letter_used(a, i, c)) {
                return c;
            }
        }
    }
    for (char c = 'A'; c <= 'Z'; c++) {
        if (!is_letter_used(a, i, c)) {
            return c;
        }
    }
    return '?';
}

void report_algs_build(const struct run_data *r, const struct run_grid *grid,
                       report_table_alg_fn table_alg, struct report_algs *a)
{
    long cells = (long)grid->n_procs * grid->n_msgs;
    a->n = 0;
    for (long c = 0; c < cells; c++) {
        if (grid->best[c] >= 0) {
            add_alg(a, r->methods[grid->best[c]].algorithm);
        }
    }
    a->n_fastest = a->n;
    for (int k = 0; k < r->n_methods; k++) {
        for (long c = 0; c < cells; c++) {
            if (grid->time_us[c * r->n_methods + k] >= 0) {
                add_alg(a, r->methods[k].algorithm);
                break;
            }
        }
    }
    report_algs_letter(a, grid->name, table_alg);
}

void report_algs_letter(struct report_algs *a, const char *collective,
                        report_table_alg_fn table_alg)
{
    /* Picked over the whole table, not over the algorithms this run timed:
     * which of them came first changes from run to run, the table does
     * not. */
    struct report_algs all = {.n = 0};
    for (int place = 0; table_alg; place++) {
        const char *name = table_alg(collective, place);
        if (!name) {
            break;
        }
        add_alg(&all, name);
    }
    add_alg(&all, STORE_DEFAULT_ALGORITHM);
    for (int i = 0; i < a->n; i++) {
        add_alg(&all, a->name[i]); /* a name the table lacks: last */
    }
    for (int i = 0; i < all.n; i++) {
        all.letter[i] = pick_letter(&all, i);
    }
    for (int i = 0; i < a->n; i++) {
        int k = report_algs_find(&all, a->name[i]);
        a->letter[i] = k >= 0 ? all.letter[k] : '?';
    }
}
