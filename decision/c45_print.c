/* C4.5's text output: trees (leaf branches first, deep subtrees deferred as
 * [S<k>]) and the evaluation tables, byte for byte as release 8 prints. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decision/c45_impl.h"

#define LINE_WIDTH 80
#define TAB_SIZE 4
#define MAX_SUBTREES 99

struct printer {
    FILE *f;
    const struct c45_data *d;
    const struct c45_node *subtrees[MAX_SUBTREES + 1];
    int n_subtrees;
};

static void show(struct printer *p, const struct c45_node *t, int sh);

static void indent(struct printer *p, int sh)
{
    fputc('\n', p->f);
    while (sh-- > 0) {
        fputs("|   ", p->f);
    }
}

/* Width of the widest branch line of t, as c4.5 estimates it. */
static int max_line(const struct printer *p, const struct c45_node *t)
{
    const struct c45_attr *at = &p->d->attrs[t->attr];
    int widest = 0;
    for (int b = 0; b < t->n_branches; b++) {
        int len =
            t->type == C45_TEST_CUT
                ? 4
                : (b < at->n_values ? (int)strlen(at->value_names[b]) : 0);
        len += 1;
        const struct c45_node *child = t->branches[b];
        if (child->type == C45_LEAF) {
            len += (int)strlen(p->d->class_names[child->leaf_class]) + 6;
        }
        if (len > widest) {
            widest = len;
        }
    }
    return (int)strlen(at->name) + 4 + widest;
}

static void show_subset(struct printer *p, const struct c45_node *t, int b,
                        int sh)
{
    const struct c45_attr *at = &p->d->attrs[t->attr];
    int n = 0, last = 0;
    for (int v = 1; v <= t->n_values; v++) {
        if (t->subsets[b][v]) {
            n++;
            last = v;
        }
    }
    indent(p, sh);
    if (n == 1) {
        fprintf(p->f, "%s = %s:", at->name, at->value_names[last - 1]);
        return;
    }
    fprintf(p->f, "%s in {", at->name);
    /* Long lists wrap, continuing under the first value. */
    int skip = (int)strlen(at->name) + 5, width = skip;
    bool is_first = true;
    for (int v = 1; v <= t->n_values; v++) {
        if (!t->subsets[b][v]) {
            continue;
        }
        const char *name = at->value_names[v - 1];
        if (!is_first && width + (int)strlen(name) + 11 > LINE_WIDTH) {
            indent(p, sh);
            fprintf(p->f, "%*s", skip, "");
            width = skip;
        }
        fprintf(p->f, "%s%c", name, v == last ? '}' : ',');
        width += (int)strlen(name) + 1;
        is_first = false;
    }
    fputc(':', p->f);
}

static void show_branch(struct printer *p, const struct c45_node *t, int b,
                        int sh)
{
    const struct c45_attr *at = &p->d->attrs[t->attr];
    switch (t->type) {
    case C45_TEST_DISCRETE:
        indent(p, sh);
        fprintf(p->f, "%s = %s:", at->name, at->value_names[b]);
        break;
    case C45_TEST_CUT:
        indent(p, sh);
        fprintf(p->f, "%s %s %g :", at->name, b == 0 ? "<=" : ">",
                (double)t->cut);
        break;
    case C45_TEST_SUBSET: {
        bool is_empty = true;
        for (int v = 1; v <= t->n_values; v++) {
            if (t->subsets[b][v]) {
                is_empty = false;
            }
        }
        if (is_empty) {
            return;
        }
        show_subset(p, t, b, sh);
        break;
    }
    case C45_LEAF:
        return;
    }
    show(p, t->branches[b], sh + 1);
}

static void show(struct printer *p, const struct c45_node *t, int sh)
{
    if (t->type == C45_LEAF) {
        fprintf(p->f, " %s (%.1f", p->d->class_names[t->leaf_class],
                (double)t->items);
        if (t->errors > 0) {
            fprintf(p->f, "/%.1f", (double)t->errors);
        }
        fputc(')', p->f);
        return;
    }
    if (sh && sh * TAB_SIZE + max_line(p, t) > LINE_WIDTH) {
        if (p->n_subtrees < MAX_SUBTREES) {
            p->subtrees[++p->n_subtrees] = t;
            fprintf(p->f, "[S%d]", p->n_subtrees);
        } else {
            fputs("[S??]", p->f);
        }
        return;
    }
    for (int b = 0; b < t->n_branches; b++) {
        if (t->branches[b]->type == C45_LEAF) {
            show_branch(p, t, b, sh);
        }
    }
    for (int b = 0; b < t->n_branches; b++) {
        if (t->branches[b]->type != C45_LEAF) {
            show_branch(p, t, b, sh);
        }
    }
}

void c45_print_tree(FILE *f, const struct c45_tree *t, const struct c45_data *d)
{
    struct printer *p = calloc(1, sizeof *p);
    if (!p) {
        fprintf(stderr, "c45: out of memory\n");
        return;
    }
    p->f = f;
    p->d = d;
    show(p, t->root, 0);
    fputc('\n', f);
    for (int s = 1; s <= p->n_subtrees; s++) {
        fprintf(f, "\n\nSubtree [S%d]\n", s);
        show(p, p->subtrees[s], 0);
        fputc('\n', f);
    }
    free(p);
}

void c45_print_eval_header(FILE *f, const char *what, int n_items)
{
    fprintf(f, "Evaluation on %s data (%d items):\n", what, n_items);
    fputs("\n\t Before Pruning           After Pruning\n"
          "\t----------------   ---------------------------\n"
          "\tSize      Errors   Size      Errors   Estimate\n\n",
          f);
}

void c45_print_eval_row(FILE *f, int size_before, int errors_before,
                        int size_after, int errors_after, int n_items,
                        float estimate_pct)
{
    fprintf(f, "\t%4d  %3d(%4.1f%%)   %4d  %3d(%4.1f%%)    (%4.1f%%)%s\n",
            size_before, errors_before,
            n_items ? 100.0 * errors_before / n_items : 0.0, size_after,
            errors_after, n_items ? 100.0 * errors_after / n_items : 0.0,
            (double)estimate_pct, "   <<");
}

/* matrix[real * n_classes + predicted]; c4.5 labels classes (a), (b)... */
void c45_print_confusion(FILE *f, const struct c45_data *d, const int *matrix)
{
    int n = d->n_classes;
    fputs("\n\n\t", f);
    for (int k = 0; k < n; k++) {
        fprintf(f, "  (%c)", 'a' + k);
    }
    fputs("\t<-classified as\n\t", f);
    for (int k = 0; k < n; k++) {
        fputs(" ----", f);
    }
    fputc('\n', f);
    for (int r = 0; r < n; r++) {
        fputc('\t', f);
        for (int k = 0; k < n; k++) {
            int count = matrix[r * n + k];
            if (count) {
                fprintf(f, "%5d", count);
            } else {
                fputs("     ", f);
            }
        }
        fprintf(f, "\t(%c): class %s\n", 'a' + r, d->class_names[r]);
    }
    fputc('\n', f);
}
