/* Decision functions built from optimal-method tables (C4.5, quadtree). */
#ifndef DECISION_H
#define DECISION_H

/* `autotune tree ...`: argv[0] is "tree". Returns the exit status. */
int tree_main(int argc, char **argv);

#endif
