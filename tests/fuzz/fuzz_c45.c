/* C4.5's .names/.data reader (decision/c45_io.c). An input is a .names
 * file, optionally followed by a NUL byte and a .data file. What is read
 * must be a well-formed data set; a small one is also grown into a tree,
 * pruned, printed and used to classify its own items. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "decision/decision.h"
#include "tests/fuzz/fuzz.h"

/* Trees on larger data sets cost more than the reader they test. */
#define FUZZ_TREE_MAX_ITEMS 2000

static void check_schema(const struct c45_data *d)
{
    if (d->n_classes < 1 || d->n_attrs < 1) {
        fuzz_fail("read %d classes and %d attributes", d->n_classes,
                  d->n_attrs);
    }
    for (int k = 0; k < d->n_classes; k++) {
        for (int l = 0; l < k; l++) {
            if (strcmp(d->class_names[k], d->class_names[l]) == 0) {
                fuzz_fail("class %s twice", d->class_names[k]);
            }
        }
    }
    for (int a = 0; a < d->n_attrs; a++) {
        const struct c45_attr *at = &d->attrs[a];
        for (int b = 0; b < a; b++) {
            if (strcmp(at->name, d->attrs[b].name) == 0) {
                fuzz_fail("attribute %s twice", at->name);
            }
        }
        if (at->kind == C45_DISCRETE &&
            (at->n_values > at->max_values || at->max_values < 2)) {
            fuzz_fail("attribute %s: %d values of at most %d", at->name,
                      at->n_values, at->max_values);
        }
    }
}

static void check_items(const struct c45_data *d)
{
    for (int i = 0; i < d->n_items; i++) {
        if (d->classes[i] < 0 || d->classes[i] >= d->n_classes) {
            fuzz_fail("item %d: class %d of %d", i, d->classes[i],
                      d->n_classes);
        }
        for (int a = 0; a < d->n_attrs; a++) {
            float v = d->values[(size_t)i * (size_t)d->n_attrs + (size_t)a];
            const struct c45_attr *at = &d->attrs[a];
            if (at->kind == C45_DISCRETE &&
                (v != floorf(v) || v < 0 || v > (float)at->n_values)) {
                fuzz_fail("item %d: attribute %s: value %g of %d", i, at->name,
                          (double)v, at->n_values);
            }
            if (at->kind == C45_CONTINUOUS && !isfinite(v)) {
                fuzz_fail("item %d: attribute %s: value %g accepted", i,
                          at->name, (double)v);
            }
        }
    }
}

static void grow_tree(const struct c45_data *d)
{
    static FILE *null_out;
    struct c45_options opt;
    struct c45_tree *tree = NULL;
    bool is_changed;
    c45_options_init(&opt);
    if (!null_out && !(null_out = fopen("/dev/null", "w"))) {
        fuzz_fail("cannot open /dev/null");
    }
    if (c45_build(d, &opt, &tree) == 0 &&
        c45_prune(tree, d, &opt, &is_changed) == 0) {
        c45_print_tree(null_out, tree, d);
        for (int i = 0; i < d->n_items; i++) {
            int cls;
            if (c45_classify(tree, d->values + (size_t)i * (size_t)d->n_attrs,
                             &cls) == 0 &&
                (cls < 0 || cls >= d->n_classes)) {
                fuzz_fail("item %d classified as %d of %d", i, cls,
                          d->n_classes);
            }
        }
    }
    c45_tree_destroy(tree);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *nul = memchr(data, '\0', size);
    size_t names_size = nul ? (size_t)(nul - data) : size;
    const char *names_path = fuzz_write_file(0, data, names_size);
    struct c45_data *d = NULL;
    if (c45_data_read_names(names_path, &d) != 0) {
        return 0;
    }
    check_schema(d);
    if (nul) {
        const char *data_path =
            fuzz_write_file(1, nul + 1, size - names_size - 1);
        if (c45_data_read_items(d, data_path) == 0) {
            check_schema(d);
            check_items(d);
            if (d->n_items > 0 && d->n_items <= FUZZ_TREE_MAX_ITEMS) {
                grow_tree(d);
            }
        }
    }
    c45_data_destroy(d);
    return 0;
}
