/* Decision functions: a run's map and penalties on a hand-made run, quadtrees
 * on a small map (exact, depth- and accuracy-limited, boundaries), the
 * decision file's round trip and its errors, C4.5 trees converted to the
 * node array answering as c45_classify does, and the flattened lookup
 * answering as the node walk on random decisions with awkward cuts. */
#include <limits.h>
#include <stdlib.h>
#include <unistd.h>

#include "decision/decision.h"
#include "tests/check.h"

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

/* Two procs, two sizes; b/512 at 1 B was not timed and runs as b/0. */
static void test_run_data(const char *dir)
{
    char path[512];
    snprintf(path, sizeof path, "%s/optimal.csv", dir);
    write_text(path, "collective,procs,msg_bytes,algorithm,segment_bytes,"
                     "time_us\n"
                     "bcast,2,1,a,0,10.000\n"
                     "bcast,2,1024,b,512,20.000\n"
                     "bcast,4,1,b,0,30.000\n"
                     "bcast,4,1024,a,0,40.000\n");
    snprintf(path, sizeof path, "%s/measurements.csv", dir);
    write_text(path, "collective,procs,msg_bytes,algorithm,segment_bytes,reps,"
                     "mean_us,median_us,min_us,max_us,sd_us,cost_s\n"
                     "bcast,2,1,a,0,1,10,10,10,10,0,0\n"
                     "bcast,2,1,b,0,1,11,11,11,11,0,0\n"
                     "bcast,2,1,default,0,1,15,15,15,15,0,0\n"
                     "bcast,2,1024,a,0,1,30,30,30,30,0,0\n"
                     "bcast,2,1024,b,0,1,25,25,25,25,0,0\n"
                     "bcast,2,1024,b,512,1,20,20,20,20,0,0\n"
                     "bcast,4,1,a,0,1,33,33,33,33,0,0\n"
                     "bcast,4,1,b,0,1,30,30,30,30,0,0\n"
                     "bcast,4,1024,a,0,1,40,40,40,40,0,0\n"
                     "bcast,4,1024,default,0,1,35,35,35,35,0,0\n");
    struct run_data *r = NULL;
    CHECK_INT(0, run_data_load(dir, NULL, 0, &r));
    if (!r) {
        return;
    }
    CHECK_INT(1, r->n_grids);
    CHECK_INT(4, r->n_methods);
    CHECK_STR("b/512", r->methods[2].label);
    CHECK_STR("default/0", r->methods[3].label); /* the library's, last */
    CHECK_INT(3, run_data_default_method(r));
    CHECK(r->has_default);
    const struct run_grid *g = &r->grids[0];
    CHECK_INT(2, g->n_procs);
    CHECK_INT(2, g->n_msgs);
    CHECK_INT(2, g->best[1]);
    CHECK_INT(1, g->best[2]);
    CHECK(g->time_us[0 * 4 + 2] == 11.0); /* b/512 at 1 B: b/0 */
    CHECK(g->time_us[3 * 4 + 1] < 0);     /* b never ran at P=4, 1 KiB */
    CHECK(g->time_us[0 * 4 + 3] == 15.0);
    CHECK(g->default_us[0] == 15.0);
    /* the optimal table says a/0 at P=4, 1 KiB; the default was faster */
    CHECK_INT(3, g->best[3]);
    CHECK(g->best_us[3] == 35.0);
    CHECK(g->default_us[1] < 0);
    run_data_destroy(r);

    const char *missing = "reduce";
    CHECK(run_data_load(dir, &missing, 1, &r) != 0);

    double v[] = {0.5, 0.0, 0.2, 0.1};
    struct penalty_stats st;
    penalty_stats_compute(v, 4, 1, &st);
    CHECK_INT(4, st.n);
    CHECK_INT(1, st.n_unrunnable);
    CHECK(st.min == 0 && st.max == 50);
    CHECK(st.mean > 19.999 && st.mean < 20.001);
    CHECK(st.median > 14.999 && st.median < 15.001);
}

static const char *const methods[] = {"m0", "m1", "m2"};
static const char *const colls[] = {"bcast"};

/* A 3 x 5 map: procs 2, 4, 8; sizes 1 .. 4096. */
static const int map_procs[] = {2, 4, 8};
static const long map_msgs[] = {1, 16, 256, 1024, 4096};
static const int map_cells[] = {0, 0, 1, 1, 2, /* P = 2 */
                                0, 0, 1, 2, 2, /* P = 4 */
                                0, 1, 1, 2, 2 /* P = 8 */};

/* Penalties of methods 0, 1, 2 at each cell: method 1 costs little
 * anywhere, the others a lot where they are not the optimum. */
static double map_penalty[15 * 3];

static struct decision *quadtree_of(int max_depth, double accuracy,
                                    const double *penalty)
{
    struct decision *d = NULL;
    struct quadtree_input in = {3, 5, map_procs, map_msgs, map_cells, penalty};
    CHECK_INT(0,
              decision_create("quadtree", 3, methods, 1, colls, 1, NULL, &d));
    if (d) {
        CHECK_INT(0, quadtree_build(d, 0, &in, max_depth, accuracy));
    }
    return d;
}

static void test_quadtree(const char *dir)
{
    struct decision *d = quadtree_of(-1, 100, NULL);
    for (int p = 0; p < 3; p++) {
        for (int m = 0; m < 5; m++) {
            CHECK_INT(map_cells[p * 5 + m],
                      decision_lookup(d, 0, map_procs[p], map_msgs[m]));
        }
    }
    /* Boundary cells cover everything outside the measured sizes. */
    CHECK_INT(0, decision_lookup(d, 0, 1, 0));
    CHECK_INT(2, decision_lookup(d, 0, 100, 1L << 30));
    CHECK_INT(2, decision_lookup(d, 0, 1, 1L << 30));
    int leaves, tests, depth;
    decision_count(d, &leaves, &tests, &depth);
    CHECK_INT(3, depth); /* 8 x 8 after reshaping */

    char path[512];
    snprintf(path, sizeof path, "%s/q.dec", dir);
    CHECK_INT(0, decision_save(d, path));
    struct decision *loaded = NULL;
    CHECK_INT(0, decision_load(path, &loaded));
    if (loaded) {
        CHECK_INT(d->n_nodes, loaded->n_nodes);
        for (int procs = 1; procs < 12; procs++) {
            for (long msg = 0; msg < 8192; msg = 2 * msg + 1) {
                CHECK_INT(decision_lookup(d, 0, procs, msg),
                          decision_lookup(loaded, 0, procs, msg));
            }
        }
    }
    decision_destroy(loaded);
    decision_destroy(d);

    /* Depth 0: one leaf, the most common method (m0 and m2 tie at 5 of 15
     * before reshaping; counted on the 8 x 8 map). */
    d = quadtree_of(0, 100, NULL);
    decision_count(d, &leaves, &tests, &depth);
    CHECK_INT(1, leaves);
    CHECK_INT(0, tests);
    decision_destroy(d);

    d = quadtree_of(1, 100, NULL);
    decision_count(d, &leaves, &tests, &depth);
    CHECK_INT(4, leaves);
    CHECK_INT(1, depth);
    decision_destroy(d);

    /* Accuracy 1%: any majority is accurate enough. */
    d = quadtree_of(-1, 1, NULL);
    decision_count(d, &leaves, &tests, &depth);
    CHECK_INT(1, leaves);
    decision_destroy(d);

    /* Depth 0 with penalties: the leaf is the method of the least total
     * penalty (1, never the most common), not the majority (0). */
    for (int c = 0; c < 15; c++) {
        for (int k = 0; k < 3; k++) {
            map_penalty[c * 3 + k] = k == map_cells[c] ? 0 : k == 1 ? 0.01 : 1;
        }
    }
    d = quadtree_of(0, 100, NULL);
    CHECK_INT(0, decision_lookup(d, 0, 4, 16));
    decision_destroy(d);
    d = quadtree_of(0, 100, map_penalty);
    CHECK_INT(1, decision_lookup(d, 0, 4, 16));
    decision_destroy(d);
    /* An accurate block keeps its majority: the exact tree is unchanged. */
    d = quadtree_of(-1, 100, map_penalty);
    for (int c = 0; c < 15; c++) {
        CHECK_INT(map_cells[c],
                  decision_lookup(d, 0, map_procs[c / 5], map_msgs[c % 5]));
    }
    decision_destroy(d);

    const char *bad[] = {
        "autotune-decision 1\nkind x\nmethods 1\nm0\ncollectives 1\nbcast "
        "0\nnodes 1\nleaf 1\n",
        "autotune-decision 1\nkind x\nmethods 1\nm0\ncollectives 1\nbcast "
        "0\nnodes 1\nsplit procs 4 0\n",
        "autotune-decision 1\nkind x\nmethods 1\nm0\ncollectives 1\nbcast "
        "5\nnodes 1\nleaf 0\n",
        "autotune-decision 2\n",
        "autotune-decision 1\nkind x\nmethods 1\nm0\ncollectives 1\nbcast "
        "0\nnodes 2\nleaf 0\n",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        write_text(path, bad[i]);
        loaded = NULL;
        CHECK(decision_load(path, &loaded) != 0);
        CHECK(loaded == NULL);
    }
}

/* C4.5 on the fixture run: the node array answers as c45_classify. */
static void test_c45(void)
{
    struct run_data *r = NULL;
    CHECK_INT(0, run_data_load("tests/decision/run", NULL, 0, &r));
    if (!r) {
        return;
    }
    for (int has_coll = 0; has_coll < 2; has_coll++) {
        struct c45_data *data = NULL;
        struct c45_tree *t = NULL;
        struct decision *d = NULL;
        struct c45_options opt;
        const char *names[2] = {r->grids[0].name, r->grids[1].name};
        const char *labels[64];
        bool is_changed;
        for (int k = 0; k < r->n_methods && k < 64; k++) {
            labels[k] = r->methods[k].label;
        }
        c45_options_init(&opt);
        CHECK_INT(0, c45_data_create(&data));
        for (int k = 0; k < r->n_methods; k++) {
            c45_data_add_class(data, labels[k]);
        }
        if (has_coll) {
            c45_data_add_discrete(data, "collective", 2, names);
        }
        c45_data_add_continuous(data, "communicator_size");
        c45_data_add_continuous(data, "message_size");
        for (int g = 0; g < 2; g++) {
            const struct run_grid *grid = &r->grids[g];
            for (int c = 0; c < grid->n_procs * grid->n_msgs; c++) {
                float v[3] = {(float)(g + 1),
                              (float)grid->procs[c / grid->n_msgs],
                              (float)grid->msgs[c % grid->n_msgs]};
                if (has_coll || g == 1) {
                    c45_data_add_item(data, has_coll ? v : v + 1,
                                      grid->best[c]);
                }
            }
        }
        CHECK_INT(0, c45_build(data, &opt, &t));
        CHECK_INT(0, c45_prune(t, data, &opt, &is_changed));
        CHECK_INT(0, decision_create("c45", r->n_methods, labels, 2, names, 1,
                                     NULL, &d));
        CHECK_INT(
            0, decision_add_c45(d, has_coll ? -1 : 1, t, has_coll, false, -1));
        for (int g = has_coll ? 0 : 1; g < 2; g++) {
            for (int procs = 1; procs <= 40; procs++) {
                for (long msg = 0; msg < (4L << 20); msg = msg * 3 + 1) {
                    float v[3] = {(float)(g + 1), (float)procs, (float)msg};
                    int expected = -1;
                    c45_classify(t, has_coll ? v : v + 1, &expected);
                    CHECK_INT(expected, decision_lookup(d, g, procs, msg));
                }
            }
        }
        decision_destroy(d);
        c45_tree_destroy(t);
        c45_data_destroy(data);
    }
    run_data_destroy(r);
}

/* Cuts a flattened lookup could get wrong: negative, zero, next to powers
 * of two, several in one power-of-two bucket, far apart, the largest. */
static const int64_t procs_pool[] = {
    INT32_MIN, -3,           0, 1, 2, 3, 5, 7, 48, 56, 63, 64, 100, 101, 102,
    1000000,   INT32_MAX - 1};
static const int64_t msg_pool[] = {
    INT64_MIN,    -5,   0,    1,    2,    3,    7,     1000,
    1001,         1002, 1003, 1024, 1025, 4096, 65535, (1LL << 40) + 3,
    INT64_MAX - 1};
#define POOL (sizeof procs_pool / sizeof procs_pool[0])

/* A random subtree under node: splits on either attribute and quad
 * nodes, cuts from the pools, leaves of random methods. */
static void random_subtree(struct decision *d, int node, int depth)
{
    int kind = depth >= 6 ? 0 : rand() % 4;
    int64_t pc = procs_pool[rand() % POOL], mc = msg_pool[rand() % POOL];
    int lo, hi, child;
    if (kind == 0) {
        decision_set_leaf(d, node, rand() % d->n_methods);
    } else if (kind == 3) {
        CHECK_INT(0, decision_add_quad(d, node, (int32_t)pc, mc, &child));
        for (int c = 0; c < 4; c++) {
            random_subtree(d, child + c, depth + 1);
        }
    } else {
        bool is_procs = kind == 1;
        CHECK_INT(0, decision_add_split(d, node, is_procs, is_procs ? pc : mc,
                                        &lo, &hi));
        random_subtree(d, lo, depth + 1);
        random_subtree(d, hi, depth + 1);
    }
}

static int64_t clamp64(int64_t x, int64_t lo, int64_t hi)
{
    return x < lo ? lo : x > hi ? hi : x;
}

/* The flattened lookup against the walk at one point of every collective. */
static long check_point(const struct decision *d, int64_t procs, int64_t msg)
{
    int p = (int)clamp64(procs, INT_MIN, INT_MAX);
    long m = (long)clamp64(msg, LONG_MIN, LONG_MAX);
    for (int c = 0; c < d->n_colls; c++) {
        int expected = decision_walk(d, c, p, m), actual;
        if ((actual = decision_lookup(d, c, p, m)) != expected) {
            CHECK_INT(expected, actual);
            fprintf(stderr, "  at collective %d P=%d m=%ld\n", c, p, m);
        }
    }
    return d->n_colls;
}

static int64_t random64(void)
{
    uint64_t v = 0;
    for (int i = 0; i < 4; i++) {
        v = v << 16 | (uint64_t)(rand() & 0xffff);
    }
    return (int64_t)(v >> (rand() % 64)) * (rand() % 2 ? 1 : -1);
}

static void test_flat(void)
{
    static const char *const fm[] = {"a", "b", "c", "d", "e"};
    static const char *const fc[] = {"bcast", "reduce", "gather"};
    long points = 0;
    srand(7);
    for (int trial = 0; trial < 200; trial++) {
        struct decision *d = NULL;
        CHECK_INT(0, decision_create("c45", 5, fm, 3, fc, 1, NULL, &d));
        for (int c = 0; c < 3; c++) {
            int root = decision_add_node(d);
            random_subtree(d, root, trial % 7 == 0 ? 6 : 0);
            decision_set_root(d, c, root);
        }
        CHECK_INT(0, decision_prepare(d));
        for (int c = 0; c < 3; c++) {
            CHECK(d->flat && d->flat[c].cells);
        }
        /* On and next to every cut, at the extremes, and anywhere. */
        static const int64_t extremes[] = {INT64_MIN, INT32_MIN, -1,       0, 1,
                                           2,         INT32_MAX, INT64_MAX};
        for (size_t i = 0; i < POOL; i++) {
            for (int dp = -1; dp <= 1; dp++) {
                for (size_t j = 0; j < POOL; j++) {
                    for (int dm = -1; dm <= 1; dm++) {
                        points += check_point(d, procs_pool[i] + dp,
                                              msg_pool[j] == INT64_MIN && dm < 0
                                                  ? INT64_MIN
                                                  : msg_pool[j] + dm);
                    }
                }
            }
        }
        for (size_t i = 0; i < 8; i++) {
            for (size_t j = 0; j < 8; j++) {
                points += check_point(d, extremes[i], extremes[j]);
            }
        }
        for (int i = 0; i < 2000; i++) {
            points += check_point(d, random64(), random64());
            points += check_point(d, rand() % 200 - 10, rand() % 5000 - 10);
        }
        /* A change to the nodes drops the flattened form. */
        CHECK(decision_add_node(d) >= 0);
        CHECK(d->flat == NULL);
        decision_destroy(d);
    }
    CHECK(points > 1000000);

    /* Cuts closer than any bucket (eight in one): each would be a compare
     * on every lookup, so the lookup walks the nodes instead. */
    struct decision *d = NULL;
    CHECK_INT(0, decision_create("c45", 5, fm, 1, fc, 1, NULL, &d));
    int node = decision_add_node(d);
    decision_set_root(d, 0, node);
    for (int i = 0; i < 8; i++) {
        int lo, hi;
        CHECK_INT(0,
                  decision_add_split(d, node, false, (1L << 20) + i, &lo, &hi));
        decision_set_leaf(d, lo, i % 5);
        node = hi;
    }
    CHECK_INT(0, decision_prepare(d));
    CHECK(d->flat && d->flat[0].cells == NULL);
    for (int64_t m = (1L << 20) - 2; m < (1L << 20) + 10; m++) {
        check_point(d, 4, m);
    }
    decision_destroy(d);
}

int main(void)
{
    char dir[] = "/tmp/test_decision.XXXXXX";
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    test_run_data(dir);
    test_quadtree(dir);
    test_c45();
    test_flat();
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0) {
        fprintf(stderr, "%s: not removed\n", dir);
    }
    return check_exit();
}
