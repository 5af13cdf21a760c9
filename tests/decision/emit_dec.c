/* Writes the generated C of a decision file, for decisions no run builds
 * (cuts anywhere, one attribute): OUT.c in the table form and OUT-tree.c
 * in the tree form, as --emit c,c-tree would.
 * usage: emit_dec DECISION.dec OUT */
#include <stdio.h>

#include "decision/decision.h"

static int write_form(const struct decision *d, const char *out,
                      const char *suffix, enum decision_c_form form)
{
    char path[4096];
    snprintf(path, sizeof path, "%s%s", out, suffix);
    FILE *f = fopen(path, "w");
    if (!f) {
        perror(path);
        return -1;
    }
    int rc = decision_emit_c(d, f, "autotune", "test decision", form);
    return fclose(f) || rc ? -1 : 0;
}

int main(int argc, char **argv)
{
    struct decision *d = NULL;
    if (argc != 3 || decision_load(argv[1], &d)) {
        fprintf(stderr, "usage: emit_dec DECISION.dec OUT\n");
        return 2;
    }
    int rc = write_form(d, argv[2], ".c", DECISION_C_TABLE) ||
             write_form(d, argv[2], "-tree.c", DECISION_C_TREE);
    decision_destroy(d);
    return rc ? 1 : 0;
}
