/* Open MPI's coll/tuned applying a classic rules file (the format of
 * `export --format ompi` and ompi-v2): the file read as
 * coll_tuned_dynamic_file.c reads it and matched as
 * coll_tuned_dynamic_rules.c matches (largest communicator size <= the
 * call's, else the first; last message rule <= the key). The tests and
 * `report` use it to see what the library would run. Never calls MPI. */
#ifndef STORE_OMPI_EVAL_H
#define STORE_OMPI_EVAL_H

#define EVAL_MAX_RULES 4096

struct ompi_eval_rule {
    int coll_id;
    long procs, msg;
    long alg, segsize;
};

struct ompi_eval {
    int n;
    struct ompi_eval_rule rules[EVAL_MAX_RULES];
};

/* The rules of a classic file, flattened; 0 or -1 when too many. Reads
 * as Open MPI does: anything but digits is skipped (check the file with
 * export_check_ompi first for messages with lines). */
int ompi_eval_load(const char *text, struct ompi_eval *e);
/* Open MPI's algorithm for collective (ours) on procs ranks and msg_bytes
 * per rank (our definition): 0 for its fixed decision; *segsize its
 * segment size. */
long ompi_eval_alg(const struct ompi_eval *e, const char *collective, int procs,
                   long msg_bytes, long *segsize);

#endif
