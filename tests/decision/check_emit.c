/* Links with a decision's generated C (autotune tree/quadtree --emit c or
 * c-table) and checks that it agrees with the in-memory lookup of the same
 * decision on every grid point of the run, on random points on and off the
 * grid, and on and next to every cut.
 * usage: check_emit DECISION.dec RUN */
#include <stdlib.h>

#include "decision/decision.h"
#include "tests/check.h"

int autotune_decide(int collective, int procs, long msg_bytes);
const char *autotune_method_name(int method);
const char *autotune_collective_name(int collective);

int main(int argc, char **argv)
{
    struct decision *d = NULL;
    struct run_data *r = NULL;
    if (argc != 3 || decision_load(argv[1], &d) ||
        run_data_load(argv[2], NULL, 0, &r)) {
        fprintf(stderr, "usage: check_emit DECISION.dec RUN\n");
        return 2;
    }
    long grid_points = 0, random_points = 0;
    for (int k = 0; k < d->n_methods; k++) {
        CHECK_STR(d->methods[k], autotune_method_name(k));
    }
    CHECK(autotune_method_name(d->n_methods) == NULL);
    CHECK_INT(-1, autotune_decide(-1, 4, 1024));
    CHECK_INT(-1, autotune_decide(d->n_colls, 4, 1024));
    srand(1);
    for (int c = 0; c < d->n_colls; c++) {
        CHECK_STR(d->colls[c], autotune_collective_name(c));
        for (int g = 0; g < r->n_grids; g++) {
            const struct run_grid *grid = &r->grids[g];
            if (strcmp(grid->name, d->colls[c]) != 0) {
                continue;
            }
            for (int p = 0; p < grid->n_procs; p++) {
                for (int m = 0; m < grid->n_msgs; m++) {
                    CHECK_INT(
                        decision_lookup(d, c, grid->procs[p], grid->msgs[m]),
                        autotune_decide(c, grid->procs[p], grid->msgs[m]));
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
                int expected = decision_lookup(d, c, procs, msg);
                int actual = autotune_decide(c, procs, msg);
                if (expected != actual) {
                    CHECK_INT(expected, actual);
                    fprintf(stderr, "  at %s P=%d m=%ld\n", d->colls[c], procs,
                            msg);
                }
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
                int procs =
                    n->procs_cut == INT32_MAX ? 1 + i % 64 : n->procs_cut + dp;
                long msg = n->msg_cut == INT64_MAX ? (long)i << 10
                                                   : (long)n->msg_cut + dm;
                for (int c = 0; c < d->n_colls; c++) {
                    int expected = decision_lookup(d, c, procs, msg);
                    int actual = autotune_decide(c, procs, msg);
                    if (expected != actual) {
                        CHECK_INT(expected, actual);
                        fprintf(stderr, "  at %s P=%d m=%ld (a cut)\n",
                                d->colls[c], procs, msg);
                    }
                    edge_points++;
                }
            }
        }
    }
    CHECK(grid_points > 0);
    printf("%s: generated C agrees with the in-memory decision on %ld grid "
           "points, %ld random points and %ld points at the cuts\n",
           argv[1], grid_points, random_points, edge_points);
    decision_destroy(d);
    run_data_destroy(r);
    return check_exit();
}
