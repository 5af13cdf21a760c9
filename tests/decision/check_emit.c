/* Links with a decision's generated C (autotune tree/quadtree --emit c or
 * c-tree) and checks that it agrees with the node walk of the same decision
 * on every grid point of the run (RUN "-": none), on random points on and
 * off the grid, at extreme values and on and next to every cut; checks the
 * in-memory lookup (the flattened form) against the walk at the same points;
 * with several ranks per node, every table (autotune_table) likewise.
 * usage: check_emit DECISION.dec RUN */
#include <limits.h>
#include <stdlib.h>

#include "decision/decision.h"
#include "tests/check.h"

int autotune_decide(int collective, int procs, long msg_bytes);
const char *autotune_method_name(int method);
const char *autotune_collective_name(int collective);
/* Generated only for a decision with several ranks per node values. */
int autotune_table(int collective, int ppn) __attribute__((weak));

/* The generated C and the in-memory lookup against the walk at one point
 * of table c (-1 from the generated C where it has no root); what names
 * the kind of point in a failure. */
static void check_point(const struct decision *d, int c, int procs, long msg,
                        const char *what)
{
    if (d->roots[c] < 0) {
        CHECK_INT(-1, autotune_decide(c, procs, msg));
        return;
    }
    int expected = decision_walk(d, c, procs, msg);
    int generated = autotune_decide(c, procs, msg);
    int inmem = decision_lookup(d, c, procs, msg);
    if (expected != generated || expected != inmem) {
        CHECK_INT(expected, generated);
        CHECK_INT(expected, inmem);
        fprintf(stderr, "  at %s ppn %d P=%d m=%ld (%s)\n",
                d->colls[c / d->n_ppn], d->ppn[c % d->n_ppn], procs, msg, what);
    }
}

static long random_long(void)
{
    unsigned long v = 0;
    for (int i = 0; i < 4; i++) {
        v = v << 16 | (unsigned long)(rand() & 0xffff);
    }
    return (long)(v >> (rand() % 64)) * (rand() % 2 ? 1 : -1);
}

int main(int argc, char **argv)
{
    struct decision *d = NULL;
    struct run_data *r = NULL;
    if (argc != 3 || decision_load(argv[1], &d) ||
        (strcmp(argv[2], "-") != 0 && run_data_load(argv[2], NULL, 0, &r))) {
        fprintf(stderr, "usage: check_emit DECISION.dec RUN\n");
        return 2;
    }
    long grid_points = 0, random_points = 0;
    for (int k = 0; k < d->n_methods; k++) {
        CHECK_STR(d->methods[k], autotune_method_name(k));
    }
    CHECK(autotune_method_name(d->n_methods) == NULL);
    int n_tables = d->n_colls * d->n_ppn;
    CHECK_INT(-1, autotune_decide(-1, 4, 1024));
    CHECK_INT(-1, autotune_decide(n_tables, 4, 1024));
    CHECK(d->n_ppn == 1 ? !autotune_table : autotune_table != NULL);
    for (int c = 0; autotune_table && c < d->n_colls; c++) {
        for (int k = 0; k < d->n_ppn; k++) {
            CHECK_INT(decision_table(d, c, k), autotune_table(c, d->ppn[k]));
        }
        CHECK_INT(-1, autotune_table(c, 0));
        CHECK_INT(-1, autotune_table(c, d->ppn[d->n_ppn - 1] + 1));
        CHECK_INT(-1, autotune_table(d->n_colls, d->ppn[0]));
    }
    srand(1);
    for (int c = 0; c < d->n_colls; c++) {
        CHECK_STR(d->colls[c], autotune_collective_name(c));
    }
    for (int c = 0; c < n_tables; c++) {
        /* Extremes, then anywhere in the range of the types. */
        static const long extremes[] = {LONG_MIN, INT_MIN, -1,      0,
                                        1,        2,       INT_MAX, LONG_MAX};
        for (int i = 0; i < 8; i++) {
            for (int j = 0; j < 8; j++) {
                int procs = extremes[i] < INT_MIN   ? INT_MIN
                            : extremes[i] > INT_MAX ? INT_MAX
                                                    : (int)extremes[i];
                check_point(d, c, procs, extremes[j], "extreme");
                random_points++;
            }
        }
        for (int i = 0; i < 20000; i++) {
            long p = random_long();
            check_point(d, c, (int)(p % INT_MAX), random_long(), "random");
            random_points++;
        }
        for (int g = 0; r && g < r->n_grids; g++) {
            const struct run_grid *grid = &r->grids[g];
            if (strcmp(grid->name, d->colls[c / d->n_ppn]) != 0 ||
                (d->n_ppn > 1 && grid->ppn != d->ppn[c % d->n_ppn])) {
                continue;
            }
            for (int p = 0; p < grid->n_procs; p++) {
                for (int m = 0; m < grid->n_msgs; m++) {
                    check_point(d, c, grid->procs[p], grid->msgs[m], "grid");
                    grid_points++;
                }
            }
            /* Off the grid: below, between and above the measured sizes. */
            int max_procs = 2 * grid->procs[grid->n_procs - 1];
            long max_msg = 4 * grid->msgs[grid->n_msgs - 1];
            for (int i = 0; i < 100000; i++) {
                int procs = 1 + rand() % max_procs;
                long msg = (long)((double)rand() / RAND_MAX * max_msg);
                if (i % 2) {
                    msg >>= rand() % 20; /* as many small sizes */
                }
                check_point(d, c, procs, msg, "random");
                random_points++;
            }
        }
    }
    /* On and next to every cut, where an off-by-one would show. */
    long edge_points = 0;
    for (int i = 0; i < d->n_nodes; i++) {
        const struct decision_node *n = &d->nodes[i];
        if (d->leaf_method[i] >= 0) {
            continue;
        }
        for (int dp = -1; dp <= 1; dp++) {
            for (int dm = -1; dm <= 1; dm++) {
                /* Wrapping at INT_MIN or LONG_MIN would test nothing. */
                int procs = n->procs_cut == INT32_MAX ? 1 + i % 64
                            : n->procs_cut == INT32_MIN && dp < 0
                                ? INT32_MIN
                                : n->procs_cut + dp;
                long msg = n->msg_cut == INT64_MAX ? (long)i << 10
                           : n->msg_cut == INT64_MIN && dm < 0
                               ? LONG_MIN
                               : (long)n->msg_cut + dm;
                for (int c = 0; c < n_tables; c++) {
                    check_point(d, c, procs, msg, "a cut");
                    edge_points++;
                }
            }
        }
    }
    CHECK(grid_points > 0 || !r);
    printf("%s: generated C and in-memory lookup agree with the walk on %ld "
           "grid points, %ld random points and %ld points at the cuts\n",
           argv[1], grid_points, random_points, edge_points);
    decision_destroy(d);
    run_data_destroy(r);
    return check_exit();
}
