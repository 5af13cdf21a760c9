/* Private to search/: the strategy functions the table names. */
#ifndef SEARCH_STRATEGIES_H
#define SEARCH_STRATEGIES_H

#include "search/search.h"

int search_mgd(const struct search_point *p, const struct search_oracle *o,
               int *best);
int search_smgd(const struct search_point *p, const struct search_oracle *o,
                int *best);
int search_model(const struct search_point *p, const struct search_oracle *o,
                 int *best);
int search_surrogate(const struct search_point *p,
                     const struct search_oracle *o, int *best);

#endif
