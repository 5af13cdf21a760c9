/* The parts of the C4.5 builder that are easy to get subtly wrong: the
 * pessimistic error estimate, the average-gain rule, threshold snapping and
 * tie rules. Values come from BEHAVIOUR.md's hand checks and c4.5 runs. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "decision/c45_impl.h"
#include "decision/decision.h"
#include "tests/check.h"

#define CHECK_NEAR(expected, actual, tol)                                      \
    do {                                                                       \
        double e_ = (expected), a_ = (actual);                                 \
        if (!(fabs(e_ - a_) <= (tol))) {                                       \
            fprintf(stderr, "%s:%d: %s: expected %.6f, got %.6f\n", __FILE__,  \
                    __LINE__, #actual, e_, a_);                                \
            check_failures++;                                                  \
        }                                                                      \
    } while (0)

/* Predicted errors (observed + extra) of a leaf with e errors among n. */
static double predicted(float n, float e, float cf)
{
    return e + c45_add_errs(n, e, cf, c45_coeff(cf));
}

static void test_coeff(void)
{
    CHECK_NEAR(0.6925 * 0.6925, c45_coeff(0.25f), 1e-5);
    CHECK(c45_coeff(0.05f) == 1.65f * 1.65f);
    CHECK(c45_coeff(1.0f) == 0.0f);
    CHECK_NEAR(3.09 * 3.09, c45_coeff(0.001f), 1e-4);
}

static void test_add_errs(void)
{
    /* The five iris leaves at -c 25 sum to 9.70, printed as 6.5%. */
    double sum = predicted(50, 0, 0.25f) + predicted(46, 1, 0.25f) +
                 predicted(48, 1, 0.25f) + predicted(3, 0, 0.25f) +
                 predicted(3, 1, 0.25f);
    CHECK_NEAR(1.367, predicted(50, 0, 0.25f), 5e-4);
    CHECK_NEAR(2.581, predicted(46, 1, 0.25f), 5e-4);
    CHECK_NEAR(2.583, predicted(48, 1, 0.25f), 5e-4);
    CHECK_NEAR(1.110, predicted(3, 0, 0.25f), 5e-4);
    CHECK_NEAR(2.057, predicted(3, 1, 0.25f), 5e-4);
    CHECK_NEAR(9.70, sum, 5e-3);
    /* bcastsmall -c 5 leaves print /4.5, /2.9, /2.1. */
    CHECK_NEAR(4.46, predicted(16, 1, 0.05f), 5e-3);
    CHECK_NEAR(2.93, predicted(72, 0, 0.05f), 5e-3);
    CHECK_NEAR(2.11, predicted(4, 0, 0.05f), 5e-3);
    /* CF = 1: no extra for a perfect leaf, but the 0.5 correction stays. */
    CHECK(c45_add_errs(10, 0, 1.0f, c45_coeff(1.0f)) == 0.0f);
    CHECK_NEAR(0.5, c45_add_errs(10, 1, 1.0f, c45_coeff(1.0f)), 1e-6);
    /* e + 0.5 >= N: 0.67 (N - e). */
    CHECK_NEAR(0.67 * 0.4, c45_add_errs(3, 2.6f, 0.25f, c45_coeff(0.25f)),
               1e-6);
    /* No cases, no errors. */
    CHECK(c45_add_errs(0, 0, 0.25f, c45_coeff(0.25f)) == 0.0f);
    /* Fractional e below 1 interpolates between e = 0 and e = 1. */
    double v0 = c45_add_errs(20, 0, 0.25f, c45_coeff(0.25f));
    double v1 = c45_add_errs(20, 1, 0.25f, c45_coeff(0.25f));
    CHECK_NEAR(v0 + 0.5 * (v1 - v0),
               c45_add_errs(20, 0.5f, 0.25f, c45_coeff(0.25f)), 1e-5);
}

static void test_total_info(void)
{
    float v[] = {0, 2, 2};
    CHECK_NEAR(4.0, c45_total_info(v, 0, 2), 1e-6); /* 4 log 4 - 2(2 log 2) */
    float w[] = {1, 1, 1, 1};
    CHECK_NEAR(8.0, c45_total_info(w, 0, 3), 1e-6);
    CHECK(c45_log2(0) == 0.0 && c45_log2(-1) == 0.0);
}

static void test_choose_attr(void)
{
    /* The coll root: communicator_size's ratio would be best, but its gain
     * is below the average, so message_size wins on gain ratio. */
    float gain[] = {0.983f, 0.119f, 0.620f};
    float info[] = {1.585f, 0.05f, 0.887f};
    bool all[] = {true, true, true};
    CHECK_INT(2, c45_choose_attr(3, gain, info, all, false));
    CHECK_INT(0, c45_choose_attr(3, gain, info, all, true));
    /* Left out of the average (many values), the low gain raises the bar:
     * message_size no longer reaches it either. */
    bool not_second[] = {true, false, true};
    CHECK_INT(0, c45_choose_attr(3, gain, info, not_second, false));
    /* Equal ratios: the earlier attribute. */
    float g2[] = {0.5f, 0.5f};
    float i2[] = {1.0f, 1.0f};
    CHECK_INT(0, c45_choose_attr(2, g2, i2, all, false));
    /* No attribute with gain: no test. */
    float none[] = {(float)-C45_EPSILON, (float)-C45_EPSILON};
    CHECK_INT(-1, c45_choose_attr(2, none, i2, all, false));
    /* Split info must exceed Epsilon for gain ratio. */
    float tiny_info[] = {0.0005f, 1.0f};
    float g3[] = {0.6f, 0.6f};
    CHECK_INT(1, c45_choose_attr(2, g3, tiny_info, all, false));
}

static void test_compute_gain(void)
{
    /* Two outcomes, pure: gain = base info; one outcome under MINOBJS: none. */
    float freq[] = {0, 0, 3, 0, 0, 3};
    float val_freq[] = {0, 3, 3};
    CHECK_NEAR(1.0, c45_compute_gain(freq, val_freq, 2, 2, 1.0f, 0, 6, 2),
               1e-6);
    CHECK(c45_compute_gain(freq, val_freq, 2, 2, 1.0f, 0, 6, 4) < 0);
    /* Unknowns scale the gain down. */
    CHECK_NEAR(0.75, c45_compute_gain(freq, val_freq, 2, 2, 1.0f, 0.25f, 6, 2),
               1e-6);
}

/* snap: y in {p, q}, x continuous; classes a, b, c. */
static struct c45_data *make_snap(bool with_y)
{
    static const char *const yv[] = {"p", "q"};
    static const float x[] = {0, 0, 0, 10, 10, 10, 4, 4, 4, 4, 4, 4};
    static const int cls[] = {0, 0, 0, 1, 1, 1, 2, 2, 2, 2, 2, 2};
    struct c45_data *d;
    if (c45_data_create(&d)) {
        return NULL;
    }
    c45_data_add_class(d, "a");
    c45_data_add_class(d, "b");
    c45_data_add_class(d, "c");
    if (with_y) {
        c45_data_add_discrete(d, "y", 2, yv);
    }
    c45_data_add_continuous(d, "x");
    for (int i = 0; i < 12; i++) {
        float row[2] = {i < 6 ? 1.0f : 2.0f, x[i]};
        c45_data_add_item(d, with_y ? row : row + 1, cls[i]);
    }
    return d;
}

static void test_snap(void)
{
    struct c45_data *d = make_snap(true);
    struct c45_options opt;
    struct c45_tree *t = NULL;
    c45_options_init(&opt);
    CHECK(d != NULL);
    if (!d) {
        return;
    }
    /* Midpoint of 0 and 10 is 5, but the cut is the largest training value
     * at most 5 anywhere in the data: 4. */
    CHECK(c45_greatest_value_below(d, 1, 5.0f) == 4.0f);
    CHECK(c45_greatest_value_below(d, 1, 3.9f) == 0.0f);
    CHECK_INT(0, c45_build(d, &opt, &t));
    if (t) {
        struct c45_node *r = t->root;
        CHECK_INT(C45_TEST_DISCRETE, r->type);
        CHECK_INT(0, r->attr);
        CHECK_INT(5, c45_tree_size(t));
        struct c45_node *p = r->branches[0];
        CHECK_INT(C45_TEST_CUT, p->type);
        CHECK(p->cut == 4.0f);
        CHECK_INT(2, r->branches[1]->leaf_class);
        float item[] = {1, 7};
        int k = -1;
        CHECK_INT(0, c45_classify(t, item, &k));
        CHECK_INT(1, k); /* 7 > 4: b, though 7 is below the midpoint 5 */
        /* y unknown: half the weight to each branch; the tie between the
         * p leaf's class and q's c goes to the lower class. */
        float unknown_y[] = {C45_UNKNOWN_DISCRETE, 7};
        CHECK_INT(0, c45_classify(t, unknown_y, &k));
        CHECK_INT(1, k);
        unknown_y[1] = 0;
        CHECK_INT(0, c45_classify(t, unknown_y, &k));
        CHECK_INT(0, k);
    }
    c45_tree_destroy(t);
    c45_data_destroy(d);

    /* Only x: cuts between 0|4 and 4|10 gain the same; the lower one wins,
     * and its midpoint 2 snaps to 0. */
    d = make_snap(false);
    t = NULL;
    CHECK_INT(0, c45_build(d, &opt, &t));
    if (t) {
        CHECK_INT(C45_TEST_CUT, t->root->type);
        CHECK(t->root->cut == 0.0f);
        CHECK_INT(0, t->root->branches[0]->leaf_class);
    }
    c45_tree_destroy(t);

    /* -m 40: no test is possible; the root leaf takes the first of the
     * most frequent classes (c, 6 of 12). */
    opt.min_objs = 40;
    t = NULL;
    CHECK_INT(0, c45_build(d, &opt, &t));
    if (t) {
        CHECK_INT(C45_LEAF, t->root->type);
        CHECK_INT(2, t->root->leaf_class);
        CHECK_NEAR(6.0, t->root->errors, 0);
    }
    c45_tree_destroy(t);
    c45_data_destroy(d);
}

static void test_majority_tie(void)
{
    struct c45_data *d;
    struct c45_tree *t = NULL;
    struct c45_options opt;
    c45_options_init(&opt);
    if (c45_data_create(&d)) {
        check_failures++;
        return;
    }
    c45_data_add_class(d, "first");
    c45_data_add_class(d, "second");
    c45_data_add_continuous(d, "x");
    /* Two of each class and no useful split: ties go to the lower class. */
    const float x[] = {1, 1, 1, 1};
    const int cls[] = {1, 0, 1, 0};
    for (int i = 0; i < 4; i++) {
        c45_data_add_item(d, &x[i], cls[i]);
    }
    CHECK_INT(0, c45_build(d, &opt, &t));
    if (t) {
        CHECK_INT(C45_LEAF, t->root->type);
        CHECK_INT(0, t->root->leaf_class);
    }
    c45_tree_destroy(t);
    c45_data_destroy(d);
}

static void test_iris_pruning(void)
{
    struct c45_data *d = NULL;
    struct c45_tree *t = NULL;
    struct c45_options opt;
    bool is_changed = true;
    c45_options_init(&opt);
    if (c45_data_read_names("tests/c45/data/iris.names", &d) ||
        c45_data_read_items(d, "tests/c45/data/iris.data")) {
        check_failures++;
        c45_data_destroy(d);
        return;
    }
    CHECK_INT(150, d->n_items);
    CHECK_INT(0, c45_build(d, &opt, &t));
    if (t) {
        CHECK_INT(9, c45_tree_size(t));
        CHECK_INT(0, c45_prune(t, d, &opt, &is_changed));
        CHECK(!is_changed);
        CHECK_NEAR(6.47, 100 * t->root->errors / t->root->items, 0.01);
    }
    c45_tree_destroy(t);
    /* -c 5 prunes to 7 nodes (iris_m2_c5). */
    opt.cf = 0.05f;
    t = NULL;
    CHECK_INT(0, c45_build(d, &opt, &t));
    if (t) {
        CHECK_INT(0, c45_prune(t, d, &opt, &is_changed));
        CHECK(is_changed);
        CHECK_INT(7, c45_tree_size(t));
    }
    c45_tree_destroy(t);
    c45_data_destroy(d);
}

/* Writes text to a temporary file named like a C4.5 file. */
static int write_file(char *path, const char *text)
{
    int fd = mkstemp(path);
    if (fd < 0) {
        return -1;
    }
    FILE *f = fdopen(fd, "w");
    if (!f) {
        close(fd);
        return -1;
    }
    fputs(text, f);
    fclose(f);
    return 0;
}

static int read_data(const char *names, const char *data)
{
    char names_path[] = "/tmp/test_c45_names_XXXXXX";
    char data_path[] = "/tmp/test_c45_data_XXXXXX";
    struct c45_data *d = NULL;
    int status = -1;
    if (write_file(names_path, names) || write_file(data_path, data)) {
        return -2;
    }
    if (c45_data_read_names(names_path, &d) == 0) {
        status = c45_data_read_items(d, data_path);
    }
    c45_data_destroy(d);
    unlink(names_path);
    unlink(data_path);
    return status;
}

static void test_reader(void)
{
    const char *names = "| comment\nyes, no.\n\ncolour: red, green.\n"
                        "size: continuous.\nid: ignore.\n";
    CHECK_INT(0, read_data(names, "red, 1.5, x, yes\ngreen, ?, y, no.\n"
                                  "?, 2, z, no | comment\n"));
    CHECK_INT(-1, read_data(names, "red, 1.5, x, maybe\n"));  /* class */
    CHECK_INT(-1, read_data(names, "blue, 1.5, x, yes\n"));   /* value */
    CHECK_INT(-1, read_data(names, "red, 1.5x, x, yes\n"));   /* number */
    CHECK_INT(-1, read_data(names, "red, 1.5, yes\n"));       /* too few */
    CHECK_INT(-1, read_data(names, "red, 1.5, x, y, yes\n")); /* too many */
    CHECK_INT(-1, read_data("yes, no.\ncolour: red.\n", "red, yes\n"));
    CHECK_INT(0, read_data("a, b.\nv: discrete 3.\n", "u, a\nw, b\nu, b\n"));
    CHECK_INT(-1, read_data("a, b.\nv: discrete 2.\n", "u, a\nw, b\nx, b\n"));
}

int main(void)
{
    test_coeff();
    test_add_errs();
    test_total_info();
    test_choose_attr();
    test_compute_gain();
    test_snap();
    test_majority_tie();
    test_iris_pruning();
    test_reader();
    return check_exit();
}
