/* The sweep's config (tune/config.c, libconfig underneath) on arbitrary
 * bytes. config_load needs no MPI call, though the tables it looks names up
 * in link against the MPI library; MPI_Init is never called. A config read
 * must hold what config.h promises. */
#include <string.h>

#include "tests/fuzz/fuzz.h"
#include "tune/config.h"

static void check_config(const struct config *c)
{
    if (c->n_colls < 1 || c->n_colls > CONFIG_MAX_COLLS || c->n_procs < 1 ||
        c->n_msgs < 1 || c->n_segs < 1 || c->n_segs > CONFIG_MAX_SEGS) {
        fuzz_fail("%d collectives, %d procs, %d message sizes, %d segments",
                  c->n_colls, c->n_procs, c->n_msgs, c->n_segs);
    }
    for (int i = 0; i < c->n_procs; i++) {
        if (c->procs[i] < 1 || (i > 0 && c->procs[i] <= c->procs[i - 1])) {
            fuzz_fail("procs[%d] = %d: not ascending from 1", i, c->procs[i]);
        }
    }
    for (int i = 0; i < c->n_msgs; i++) {
        if (c->msg_sizes[i] < 0 ||
            (i > 0 && c->msg_sizes[i] <= c->msg_sizes[i - 1])) {
            fuzz_fail("message_sizes[%d] = %ld: not ascending", i,
                      c->msg_sizes[i]);
        }
    }
    for (int i = 0; i < c->n_segs; i++) {
        if (c->seg_sizes[i] < 0 ||
            (i > 0 && c->seg_sizes[i] <= c->seg_sizes[i - 1])) {
            fuzz_fail("segment_sizes[%d] = %d: not ascending", i,
                      c->seg_sizes[i]);
        }
    }
    for (int k = 0; k < c->n_colls; k++) {
        if (!c->colls[k] || c->n_algs[k] < 0 ||
            c->n_algs[k] > CONFIG_MAX_ALGS) {
            fuzz_fail("collective %d: %d algorithms", k, c->n_algs[k]);
        }
        for (int a = 0; a < c->n_algs[k]; a++) {
            if (c->algs[k][a] < 0 || c->algs[k][a] >= c->colls[k]->n_algs) {
                fuzz_fail("%s: algorithm index %d of %d", c->colls[k]->name,
                          c->algs[k][a], c->colls[k]->n_algs);
            }
        }
    }
    if (!c->search || c->measure.min_reps < 1 ||
        c->measure.max_reps < c->measure.min_reps || !(c->measure.rse > 0)) {
        fuzz_fail("measure: min_reps %d, max_reps %d, rse %g",
                  c->measure.min_reps, c->measure.max_reps, c->measure.rse);
    }
    if ((int)c->measure.arrival < 0 || c->measure.arrival >= ARRIVAL_COUNT ||
        !(c->measure.spread_us >= 0 && c->measure.spread_us <= 1e6)) {
        fuzz_fail("measure.arrival: %d, spread_us %g", (int)c->measure.arrival,
                  c->measure.spread_us);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_write_file(0, data, size);
    struct config c;
    config_peek_native(path);
    if (config_load(path, &c) == 0) {
        check_config(&c);
        config_free(&c);
    }
    return 0;
}
