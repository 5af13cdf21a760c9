/* Private to search/: the strategy functions the table names. */
#ifndef SEARCH_STRATEGIES_H
#define SEARCH_STRATEGIES_H

#include "search/search.h"

int search_mgd(const struct search_point *p, search_oracle_fn oracle, void *ctx,
               int *best);
int search_smgd(const struct search_point *p, search_oracle_fn oracle,
                void *ctx, int *best);

#endif
