/* Modified gradient descent (seed 003, section 3.2): per algorithm, start
 * at the largest segment and walk toward smaller ones while time falls,
 * looking `lookahead` steps past a minimum so a local one does not stop it. */
#include "search/strategies.h"
#include "search/walk.h"

int search_mgd(const struct search_point *p, search_oracle_fn oracle, void *ctx,
               int *best)
{
    struct walk walks[WALK_MAX];
    struct descent d[WALK_MAX];
    int n = walk_split(p, walks, WALK_MAX);
    for (int i = 0; i < n; i++) {
        descent_init(&d[i], &walks[i]);
        while (!d[i].is_done) {
            int rc = descent_step(&d[i], p, oracle, ctx);
            if (rc != 0) {
                return rc;
            }
        }
    }
    descent_pick(d, n, best);
    return 0;
}
