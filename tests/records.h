/* A measurement record for the unit tests that write journals and tables:
 * one applicable method at a point, timed mean_us every repetition. */
#ifndef TESTS_RECORDS_H
#define TESTS_RECORDS_H

#include <stdio.h>

#include "store/journal.h"

static inline struct measurement test_record(const char *coll, int procs,
                                             long msg, const char *alg, int seg,
                                             double mean_us)
{
    struct measurement m = {.procs = procs,
                            .ppn = 1,
                            .msg_bytes = msg,
                            .segment_bytes = seg,
                            .is_applicable = 1,
                            .reps = 3,
                            .mean_us = mean_us,
                            .median_us = mean_us,
                            .min_us = mean_us,
                            .max_us = mean_us,
                            .cost_s = 1e-3};
    snprintf(m.collective, sizeof m.collective, "%s", coll);
    snprintf(m.algorithm, sizeof m.algorithm, "%s", alg);
    return m;
}

#endif
