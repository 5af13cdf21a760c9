/* Held-out folds: which points of a run's map a decision trains on. Below
 * both the training (train.c) and the cuts between measured sizes
 * (between*.c), which ask it, so neither calls the other for it. */
#include "decision/decision.h"

int train_fold_of(const struct train_options *opt, const struct run_data *r,
                  int g, long cell)
{
    if (opt->holdout_axis == HOLDOUT_SIZES) {
        return (int)(cell % r->grids[g].n_msgs) % 2;
    }
    if (opt->holdout_axis == HOLDOUT_PROCS) {
        /* the largest is trained on: every held-out size lies between two
         * measured ones, none beyond them (left to the library) */
        long p = cell / r->grids[g].n_msgs;
        return p == r->grids[g].n_procs - 1 ? 0 : (int)(p % 2);
    }
    long index = cell;
    for (int e = 0; e < g; e++) {
        index += (long)r->grids[e].n_procs * r->grids[e].n_msgs;
    }
    return (int)(index % opt->holdout_folds);
}

bool train_is_training(const struct train_options *opt,
                       const struct run_data *r, int g, long c, int skip)
{
    return r->grids[g].best[c] >= 0 &&
           (skip < 0 || train_fold_of(opt, r, g, c) != skip);
}
