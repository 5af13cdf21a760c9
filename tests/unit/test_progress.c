/* The estimate of time left: what points cost per (procs, ranks per node,
 * message size), the mean where one was seen, else the nearest scaled by
 * procs and by 4 KiB + the message size (tune/progress.c). */
#include <math.h>
#include <stdio.h>

#include "../check.h"
#include "tune/progress.h"

#define CHECK_NEAR(expected, actual)                                           \
    do {                                                                       \
        double e_ = (expected), a_ = (actual);                                 \
        if (!(fabs(e_ - a_) <= 1e-9 * fabs(e_))) {                             \
            fprintf(stderr, "%s:%d: %s: expected %.12g, got %.12g\n",          \
                    __FILE__, __LINE__, #actual, e_, a_);                      \
            check_failures++;                                                  \
        }                                                                      \
    } while (0)

static double scale(long to, long from)
{
    return (4096.0 + (double)to) / (4096.0 + (double)from);
}

int main(void)
{
    struct progress_costs *c = progress_costs_create();
    CHECK(c != NULL);
    CHECK(progress_costs_predict(c, 4, 1, 1024) < 0); /* nothing seen */

    /* the mean at a (procs, size) seen, whatever collective it came from */
    CHECK_INT(0, progress_costs_add(c, 4, 1, 1024, 2.0));
    CHECK_INT(0, progress_costs_add(c, 4, 1, 1024, 4.0));
    CHECK_NEAR(3.0, progress_costs_predict(c, 4, 1, 1024));

    /* unseen: scaled from the only one, by procs and by 4 KiB + size */
    CHECK_NEAR(3.0 * scale(1048576, 1024),
               progress_costs_predict(c, 4, 1, 1048576));
    CHECK_NEAR(3.0 * 4, progress_costs_predict(c, 16, 1, 1024));
    CHECK_NEAR(3.0 / 2 * scale(0, 1024), progress_costs_predict(c, 2, 1, 0));

    /* the nearest one is scaled: (16, 1 MiB) for (16, 2 MiB) */
    CHECK_INT(0, progress_costs_add(c, 16, 1, 1048576, 100.0));
    CHECK_NEAR(100.0 * scale(2097152, 1048576),
               progress_costs_predict(c, 16, 1, 2097152));
    CHECK_NEAR(3.0 * scale(2048, 1024), progress_costs_predict(c, 4, 1, 2048));

    /* Late in a sweep the points left are the large ones: the estimate
     * follows them, not the mean of the many cheap points done. */
    struct progress_costs *sweep = progress_costs_create();
    double done_s = 0;
    int n_done = 0;
    for (long m = 1; m <= 65536; m *= 4) {
        double cost = 0.01 * scale(m, 1); /* cost grows with size */
        CHECK_INT(0, progress_costs_add(sweep, 64, 1, m, cost));
        done_s += cost;
        n_done++;
    }
    double left = 0;
    for (long m = 262144; m <= 1048576; m *= 4) {
        left += progress_costs_predict(sweep, 64, 1, m);
    }
    CHECK_NEAR(0.01 * (scale(262144, 1) + scale(1048576, 1)), left);
    CHECK(left > 10 * 2 * done_s / n_done);
    progress_costs_destroy(sweep);

    /* Each ranks per node has its own costs: 16 ranks on 2 nodes of 8
     * cost other than on 16 nodes; an unseen ranks per node takes the
     * nearest one's, unscaled. */
    struct progress_costs *ppn = progress_costs_create();
    CHECK_INT(0, progress_costs_add(ppn, 16, 1, 1024, 2.0));
    CHECK_INT(0, progress_costs_add(ppn, 16, 8, 1024, 0.5));
    CHECK_INT(0, progress_costs_add(ppn, 16, 16, 1024, 0.25));
    CHECK_NEAR(2.0, progress_costs_predict(ppn, 16, 1, 1024));
    CHECK_NEAR(0.5, progress_costs_predict(ppn, 16, 8, 1024));
    CHECK_NEAR(0.5, progress_costs_predict(ppn, 16, 4, 1024));
    CHECK_NEAR(0.5 * 2, progress_costs_predict(ppn, 32, 8, 1024));
    progress_costs_destroy(ppn);

    progress_costs_destroy(c);
    progress_costs_destroy(NULL);
    return check_exit();
}
