/* Modified gradient descent ([Vadhiyar 2004], section 3.2): per algorithm,
 * start at the largest segment and walk toward smaller ones while time falls,
 * looking `lookahead` steps past a minimum so a local one does not stop it.
 * Where neighbouring points were searched, each algorithm's descent starts
 * at its best segment there, and algorithms far behind there are probed
 * once or skipped (search/plan.h). */
#include <stddef.h>

#include "search/plan.h"
#include "search/strategies.h"

int search_mgd(const struct search_point *p, const struct search_oracle *o,
               int *best)
{
    return plan_search(p, o, plan_walk, 0, NULL, best);
}
