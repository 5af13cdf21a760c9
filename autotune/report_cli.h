/* `autotune report`: the text summary of the speedup over the library
 * default, the decision map in the terminal (--map) and the HTML report
 * (--html), all offline. */
#ifndef AUTOTUNE_REPORT_CLI_H
#define AUTOTUNE_REPORT_CLI_H

#include "autotune/cli.h"

/* autotune report -r RUN [--html FILE] [--map COLL] [--points P:M,...];
 * returns the exit status. */
int report_cli_main(int argc, char **argv);
/* Its options and --help. */
extern const struct cli_spec report_cli;

#endif
