/* Time of one decision: random (procs, message size) queries answered by an
 * in-memory decision (decision_lookup: the flattened form decision_load
 * builds), by the node walk it replaces (decision_walk) and, when built
 * with -DEMITTED='"file.c"', by the C generated from the same decision.
 * usage: decision_bench DECISION.dec COLLECTIVE MAX_PROCS MAX_MSG [RUNS]
 * Prints "inmem_ns X walk_ns W generated_ns Y loop_ns Z": medians over RUNS
 * timings of QUERIES x PASSES decisions each, in thread CPU time (the
 * machine is shared); generated_ns is - without EMITTED; loop_ns is the
 * same loop with no decision (reading the query and summing), included in
 * the others. Every decision is inlined into the loop, as it would be at a
 * call site (the lookups are static inline; the generated C is included). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "decision/decision.h"

#ifdef EMITTED
#include EMITTED
#endif

#define QUERIES 4096
#define PASSES 256
#define MAX_RUNS 31

static int queries_procs[QUERIES];
static long queries_msg[QUERIES];

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* The sum of the answers keeps the compiler from dropping the calls. */
static long sink;

/* A function timing EXPR (a decision of query i) over PASSES x QUERIES
 * queries, in ns per decision; a macro so that each decision is inlined
 * into its own loop. */
#define DEFINE_TIMER(name, expr)                                               \
    static double name(const struct decision *d, int coll)                     \
    {                                                                          \
        long sum = 0;                                                          \
        (void)d;                                                               \
        double t0 = now_ns();                                                  \
        for (int pass = 0; pass < PASSES; pass++) {                            \
            for (int i = 0; i < QUERIES; i++) {                                \
                sum += (expr);                                                 \
            }                                                                  \
        }                                                                      \
        double t = now_ns() - t0;                                              \
        sink += sum;                                                           \
        return t / ((double)PASSES * QUERIES);                                 \
    }

DEFINE_TIMER(time_inmem,
             decision_lookup(d, coll, queries_procs[i], queries_msg[i]))
DEFINE_TIMER(time_walk,
             decision_walk(d, coll, queries_procs[i], queries_msg[i]))
#ifdef EMITTED
DEFINE_TIMER(time_generated,
             autotune_decide(coll, queries_procs[i], queries_msg[i]))
#endif

static double time_loop(void)
{
    long sum = 0;
    double t0 = now_ns();
    for (int pass = 0; pass < PASSES; pass++) {
        for (int i = 0; i < QUERIES; i++) {
            sum += queries_procs[i] + queries_msg[i];
            /* An opaque sum: the loop is not vectorised away. */
            __asm__ volatile("" : "+r"(sum));
        }
    }
    double t = now_ns() - t0;
    sink += sum;
    return t / ((double)PASSES * QUERIES);
}

int main(int argc, char **argv)
{
    struct decision *d = NULL;
    if (argc < 5 || decision_load(argv[1], &d)) {
        fprintf(stderr, "usage: decision_bench DECISION.dec COLLECTIVE "
                        "MAX_PROCS MAX_MSG [RUNS]\n");
        return 2;
    }
    int coll = decision_find_collective(d, argv[2]);
    int max_procs = atoi(argv[3]);
    double max_msg = atof(argv[4]);
    int runs = argc > 5 ? atoi(argv[5]) : 7;
    if (coll < 0 || max_procs < 2 || max_msg < 1 || runs < 1 ||
        runs > MAX_RUNS) {
        fprintf(stderr, "decision_bench: bad collective, range or runs\n");
        return 2;
    }
    /* Procs uniform in 2..MAX_PROCS, sizes log-uniform in 1..MAX_MSG. */
    srand(12345);
    for (int i = 0; i < QUERIES; i++) {
        queries_procs[i] = 2 + rand() % (max_procs - 1);
        queries_msg[i] = (long)exp((double)rand() / RAND_MAX * log(max_msg));
    }
    double inmem[MAX_RUNS], walk[MAX_RUNS], generated[MAX_RUNS], loop[MAX_RUNS];
    for (int r = 0; r < runs; r++) {
        loop[r] = time_loop();
        inmem[r] = time_inmem(d, coll);
        walk[r] = time_walk(d, coll);
#ifdef EMITTED
        generated[r] = time_generated(d, coll);
#else
        generated[r] = 0;
#endif
    }
    printf("inmem_ns %.2f walk_ns %.2f", median(inmem, runs),
           median(walk, runs));
#ifdef EMITTED
    printf(" generated_ns %.2f", median(generated, runs));
#else
    (void)generated;
    printf(" generated_ns -");
#endif
    printf(" loop_ns %.2f\n", median(loop, runs));
    fprintf(stderr, "(checksum %ld)\n", sink);
    decision_destroy(d);
    return 0;
}
