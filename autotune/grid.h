/* The sweep's grid: (collective, procs, message size) points walked in a
 * fixed order, and the candidate methods at each. No MPI. */
#ifndef AUTOTUNE_GRID_H
#define AUTOTUNE_GRID_H

#include "autotune/config.h"
#include "search/search.h"

/* The most candidate methods a point can have (grid_point_methods). */
#define GRID_MAX_METHODS (CONFIG_MAX_ALGS * (CONFIG_MAX_SEGS + 1))

/* The message sizes of collective ci (c->colls[ci]): the configured ones, or
 * 0 alone for a collective that moves no data (barrier). *sizes is
 * borrowed. Returns how many. */
int grid_msg_sizes(const struct config *c, int ci, const long **sizes);
/* Points of the whole grid. */
long grid_points(const struct config *c);
/* The candidate methods of collective ci at msg_bytes into out (room for
 * GRID_MAX_METHODS); returns how many. */
int grid_point_methods(const struct config *c, int ci, long msg_bytes,
                       struct search_method *out);

#endif
