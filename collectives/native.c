/* The native backend: times the MPI library's own algorithms instead of
 * ours. Open MPI's coll/tuned reads its forced-algorithm variables when a
 * communicator is created, so each method writes them through MPI_T and
 * duplicates the communicator; the duplicate runs that algorithm and nothing
 * else. Which algorithms exist, their numbers and where Open MPI runs
 * another than the one forced: store/ompi_algs.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collectives/internal.h"
#include "store/libraries.h"

/* Components that would take a collective away from coll/tuned. */
#define NATIVE_COLL_EXCLUDE "^han,hcoll"
/* Open MPI 4.1's bcast and reduce read no tree fanout; binary is the shape
 * our tree algorithms use, so a library that does read it builds the same. */
enum { NATIVE_TREE_FANOUT = 2 };

#ifdef SMPI_H
/* SimGrid 3.32 implements no MPI_T: nothing can be forced. */
static const char smpi_refusal[] =
    "backend native: SMPI has no MPI_T control variables, so the library's "
    "algorithms cannot be forced; under SMPI use backend = \"own\" (the "
    "library default is --cfg=smpi/coll-selector)";

int native_has_algorithm(const char *collective, const char *algorithm)
{
    return ompi_alg_find(collective, algorithm) != NULL;
}

void native_prepare_environment(void)
{
}

int native_check(const char *const *collectives, int n)
{
    (void)collectives;
    (void)n;
    fprintf(stderr, "autotune: %s\n", smpi_refusal);
    return -1;
}

int native_comm_create(MPI_Comm comm, const char *collective,
                       const char *algorithm, int seg_bytes, int chain_fanout,
                       MPI_Comm *out)
{
    (void)comm;
    (void)collective;
    (void)algorithm;
    (void)seg_bytes;
    (void)chain_fanout;
    *out = MPI_COMM_NULL;
    fprintf(stderr, "autotune: %s\n", smpi_refusal);
    return -1;
}

void native_close(void)
{
}

/* SimGrid has no C call that returns a string option, so the selector, and
 * any per-collective choice (--cfg=smpi/bcast:...), is read from the
 * simulator's command line, where smpirun passes --cfg. */
int native_describe_default(char *buf, size_t size)
{
    char args[8192];
    const char *selector = "default";
    FILE *f = fopen("/proc/self/cmdline", "r");
    size_t n = f ? fread(args, 1, sizeof args - 1, f) : 0;
    if (f) {
        fclose(f);
    }
    args[n] = '\0';
    static const char key[] = "--cfg=smpi/coll-selector:";
    for (size_t i = 0; i < n; i += strlen(args + i) + 1) {
        if (strncmp(args + i, key, sizeof key - 1) == 0) {
            selector = args + i + sizeof key - 1;
        }
    }
    size_t used =
        (size_t)snprintf(buf, size, "smpi/coll-selector:%s", selector);
    for (int c = 0; c < coll_table_size && used < size; c++) {
        char own[64];
        int len =
            snprintf(own, sizeof own, "--cfg=smpi/%s:", coll_table[c]->name);
        for (size_t i = 0; i < n && used < size; i += strlen(args + i) + 1) {
            if (strncmp(args + i, own, (size_t)len) == 0) {
                used += (size_t)snprintf(buf + used, size - used, ";%s:%s",
                                         coll_table[c]->name, args + i + len);
            }
        }
    }
    return 0;
}

#else

/* This library's release as 401 for 4.1, to compare with ompi_alg.since. */
static int library_release(void)
{
#if defined(OMPI_MAJOR_VERSION) && defined(OMPI_MINOR_VERSION)
    return OMPI_MAJOR_VERSION * 100 + OMPI_MINOR_VERSION;
#else
    return 0; /* not Open MPI: native_check refuses it */
#endif
}

int native_has_algorithm(const char *collective, const char *algorithm)
{
    const struct ompi_alg *a = ompi_alg_find(collective, algorithm);
    return a && a->since <= library_release();
}

void native_prepare_environment(void)
{
    /* Read by coll/tuned at MPI_Init only; read-only through MPI_T. */
    setenv("OMPI_MCA_coll_tuned_use_dynamic_rules", "1", 1);
    setenv("OMPI_MCA_coll", NATIVE_COLL_EXCLUDE, 1);
}

static int mpit_open_count;

static int native_open(void)
{
    int provided;
    if (mpit_open_count > 0) {
        return 0;
    }
    if (MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) != MPI_SUCCESS) {
        fprintf(stderr, "autotune: backend native: MPI_T_init_thread "
                        "failed\n");
        return -1;
    }
    mpit_open_count++;
    return 0;
}

void native_close(void)
{
    if (mpit_open_count > 0) {
        MPI_T_finalize();
        mpit_open_count = 0;
    }
}

/* A control variable: its index and whether it may be written now. */
struct cvar {
    int index;
    int is_writable;
    MPI_Datatype dtype;
};

/* 0 if the variable exists (its facts in *v), -1 if not. */
static int cvar_find(const char *name, struct cvar *v)
{
    char var_name[256], desc[16];
    int name_len = sizeof var_name, desc_len = sizeof desc;
    int verbosity, bind, scope;
    MPI_T_enum enumtype;
    if (MPI_T_cvar_get_index(name, &v->index) != MPI_SUCCESS ||
        MPI_T_cvar_get_info(v->index, var_name, &name_len, &verbosity,
                            &v->dtype, &enumtype, desc, &desc_len, &bind,
                            &scope) != MPI_SUCCESS) {
        return -1;
    }
    v->is_writable = bind == MPI_T_BIND_NO_OBJECT &&
                     scope != MPI_T_SCOPE_CONSTANT &&
                     scope != MPI_T_SCOPE_READONLY && v->dtype == MPI_INT;
    return 0;
}

/* Reads an integer variable, or a string one into a buffer of size bytes
 * (truncated to fit; Open MPI gives strings a count of 2048). */
static int cvar_read(const struct cvar *v, void *value, size_t size)
{
    MPI_T_cvar_handle handle;
    int count, rc = -1;
    char *text = NULL;
    if (MPI_T_cvar_handle_alloc(v->index, NULL, &handle, &count) !=
        MPI_SUCCESS) {
        return -1;
    }
    if (v->dtype != MPI_CHAR) {
        rc = MPI_T_cvar_read(handle, value) == MPI_SUCCESS ? 0 : -1;
    } else if (size > 0 && (text = calloc((size_t)count + 1, 1)) &&
               MPI_T_cvar_read(handle, text) == MPI_SUCCESS) {
        snprintf(value, size, "%s", text);
        rc = 0;
    }
    free(text);
    MPI_T_cvar_handle_free(&handle);
    return rc;
}

/* Writes an integer variable; prints why it could not. */
static int cvar_write(const char *name, int value)
{
    struct cvar v;
    MPI_T_cvar_handle handle;
    int count, err;
    if (cvar_find(name, &v) != 0 || !v.is_writable) {
        fprintf(stderr,
                "autotune: backend native: this MPI library has no "
                "writable MPI_T control variable %s\n",
                name);
        return -1;
    }
    err = MPI_T_cvar_handle_alloc(v.index, NULL, &handle, &count);
    if (err == MPI_SUCCESS) {
        err = MPI_T_cvar_write(handle, &value);
        MPI_T_cvar_handle_free(&handle);
    }
    if (err != MPI_SUCCESS) {
        fprintf(stderr,
                "autotune: backend native: writing %s = %d through MPI_T "
                "failed (error %d)\n",
                name, value, err);
        return -1;
    }
    return 0;
}

/* The variables a forced method writes, by suffix of
 * coll_tuned_<collective>_; the first is required. */
enum { VAR_ALGORITHM, VAR_SEGMENT, VAR_TREE, VAR_CHAIN, VAR_RADIX, N_VARS };
static const char *const var_suffix[N_VARS] = {
    "algorithm", "algorithm_segmentsize", "algorithm_tree_fanout",
    "algorithm_chain_fanout", "algorithm_knomial_radix"};

static void var_name(char *buf, size_t size, const char *collective, int var)
{
    snprintf(buf, size, "coll_tuned_%s_%s", collective, var_suffix[var]);
}

int native_check(const char *const *collectives, int n)
{
    struct cvar v;
    int is_dynamic = 0;
    char name[128];
    if (library_release() == 0) {
        fprintf(stderr, "autotune: backend native: this MPI library is not "
                        "Open MPI; the native backend forces Open MPI's "
                        "coll/tuned algorithms\n");
        return -1;
    }
    if (native_open() != 0) {
        return -1;
    }
    if (cvar_find("coll_tuned_use_dynamic_rules", &v) != 0 ||
        cvar_read(&v, &is_dynamic, sizeof is_dynamic) != 0) {
        fprintf(stderr, "autotune: backend native: this Open MPI has no "
                        "MPI_T control variable coll_tuned_use_dynamic_rules "
                        "(is coll/tuned built?)\n");
        return -1;
    }
    if (!is_dynamic) {
        fprintf(stderr, "autotune: backend native: "
                        "coll_tuned_use_dynamic_rules is 0 after MPI_Init, so "
                        "coll/tuned ignores forced algorithms\n");
        return -1;
    }
    for (int i = 0; i < n; i++) {
        /* the segment size only where an algorithm takes it (not barrier) */
        int last = VAR_ALGORITHM;
        const struct ompi_alg *a;
        for (int k = 1; (a = ompi_alg_by_number(collectives[i], k)); k++) {
            last = a->is_segmented ? VAR_SEGMENT : last;
        }
        for (int var = VAR_ALGORITHM; var <= last; var++) {
            var_name(name, sizeof name, collectives[i], var);
            if (cvar_find(name, &v) != 0 || !v.is_writable) {
                fprintf(stderr,
                        "autotune: backend native: this Open MPI has no "
                        "writable MPI_T control variable %s, so %s "
                        "algorithms cannot be forced\n",
                        name, collectives[i]);
                return -1;
            }
        }
    }
    return 0;
}

int native_comm_create(MPI_Comm comm, const char *collective,
                       const char *algorithm, int seg_bytes, int chain_fanout,
                       MPI_Comm *out)
{
    const struct ompi_alg *a = ompi_alg_find(collective, algorithm);
    int values[N_VARS] = {[VAR_SEGMENT] = seg_bytes,
                          [VAR_TREE] = NATIVE_TREE_FANOUT,
                          [VAR_CHAIN] = chain_fanout,
                          [VAR_RADIX] = COLL_KNOMIAL_RADIX};
    char name[128];
    int failed = 0, any_failed = 1;
    *out = MPI_COMM_NULL;
    if (!a) {
        fprintf(stderr,
                "autotune: backend native: Open MPI has no %s algorithm "
                "'%s'\n",
                collective, algorithm);
        failed = 1;
    } else if (native_open() != 0) {
        failed = 1;
    } else {
        values[VAR_ALGORITHM] = a->number;
    }
    for (int var = 0; var < N_VARS && !failed; var++) {
        struct cvar v;
        var_name(name, sizeof name, collective, var);
        /* Fanouts and radix exist for some collectives only, the segment
         * size for those with segmented algorithms. */
        int is_optional =
            var > VAR_SEGMENT || (var == VAR_SEGMENT && values[var] == 0);
        if (is_optional && cvar_find(name, &v) != 0) {
            continue;
        }
        failed = cvar_write(name, values[var]) != 0;
    }
    /* Every rank duplicates or none does. */
    MPI_Allreduce(&failed, &any_failed, 1, MPI_INT, MPI_MAX, comm);
    if (!any_failed && MPI_Comm_dup(comm, out) != MPI_SUCCESS) {
        *out = MPI_COMM_NULL;
        any_failed = 1;
    }
    /* Communicators created later keep the library's own decision. */
    if (a && mpit_open_count > 0) {
        var_name(name, sizeof name, collective, VAR_ALGORITHM);
        cvar_write(name, 0);
    }
    if (*out != MPI_COMM_NULL) {
        MPI_Comm_set_errhandler(*out, MPI_ERRORS_RETURN);
    }
    return any_failed ? -1 : 0;
}

/* Open MPI's default decision depends on its version (journaled apart), the
 * components that may serve collectives and coll/tuned's rules. */
int native_describe_default(char *buf, size_t size)
{
    char coll[256] = "", rules[1024] = "";
    int is_dynamic = 0;
    struct cvar v;
    if (native_open() != 0) {
        return -1;
    }
    if (cvar_find("coll", &v) == 0 && v.dtype == MPI_CHAR) {
        cvar_read(&v, coll, sizeof coll);
    }
    if (cvar_find("coll_tuned_use_dynamic_rules", &v) == 0) {
        cvar_read(&v, &is_dynamic, sizeof is_dynamic);
    }
    if (cvar_find("coll_tuned_dynamic_rules_filename", &v) == 0 &&
        v.dtype == MPI_CHAR) {
        cvar_read(&v, rules, sizeof rules);
    }
    for (char *p = coll; *p; p++) {
        if (*p == ' ') {
            *p = '_';
        }
    }
    snprintf(buf, size, "ompi:coll=%s;rules=%s", coll[0] ? coll : "all",
             is_dynamic && rules[0] ? "file" : "fixed");
    return 0;
}

#endif

int native_runs_as_named(const char *collective, const char *algorithm,
                         int n_ranks, long count, int seg_bytes)
{
    return ompi_alg_runs_as_named(collective, algorithm, n_ranks, count,
                                  seg_bytes);
}

int native_uses_segments(const char *collective, const char *algorithm)
{
    const struct ompi_alg *a = ompi_alg_find(collective, algorithm);
    return a && a->is_segmented;
}
