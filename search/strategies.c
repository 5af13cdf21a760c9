/* The strategy table, and exhaustive search: the reference every pruned
 * strategy is measured against. */
#include <string.h>

#include "search/strategies.h"

/* Times every method; ties go to the earlier method, so the choice does not
 * depend on anything but the times. */
static int search_exhaustive(const struct search_point *p,
                             const struct search_oracle *o, int *best)
{
    double best_us = 0;
    *best = -1;
    for (int i = 0; i < p->n_methods; i++) {
        double t;
        int rc = o->time(o->ctx, p, i, &t);
        if (rc != 0) {
            return rc;
        }
        if (t >= 0 && (*best < 0 || t < best_us)) {
            *best = i;
            best_us = t;
        }
    }
    return 0;
}

int search_method_index(const struct search_point *p, int alg, int seg_bytes)
{
    for (int i = 0; i < p->n_methods; i++) {
        if (p->methods[i].alg == alg && p->methods[i].seg_bytes == seg_bytes) {
            return i;
        }
    }
    return -1;
}

const struct search_strategy search_strategies[] = {
    {"exhaustive", search_exhaustive,
     "times every applicable (algorithm, segment size)"},
    {"mgd", search_mgd,
     "per algorithm, from the largest segment down while time falls"},
    {"smgd", search_smgd,
     "all algorithms' descents interleaved, best predicted first; drops "
     "those far behind"},
    {"surrogate", search_surrogate,
     "segment size of each tree found on a pipeline along its longest "
     "path, confirmed on the tree"},
    {"model", search_model,
     "times the algorithms the model predicts near the best (corrected by "
     "the neighbours' measured/predicted), then their neighbouring "
     "segments while time falls"},
};
const int search_strategies_size =
    (int)(sizeof search_strategies / sizeof search_strategies[0]);

const struct search_strategy *search_find(const char *name)
{
    for (int i = 0; i < search_strategies_size; i++) {
        if (strcmp(search_strategies[i].name, name) == 0) {
            return &search_strategies[i];
        }
    }
    return NULL;
}
