/* Placeholder until the C4.5 builder lands: says so and fails. */
#include <stdio.h>

#include "decision/decision.h"

int tree_main(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "autotune tree: not built yet\n");
    return 2;
}
