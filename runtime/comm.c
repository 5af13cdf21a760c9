/* The private duplicate of each user communicator, so that the algorithms'
 * messages never match the application's: made at the first intercepted
 * collective on it (every rank is in that call), kept in an attribute whose
 * delete callback frees it when the application frees its communicator. */
#include <stdlib.h>

#include "runtime/runtime.h"

static int keyval = MPI_KEYVAL_INVALID;
struct autotune_comm_last autotune_comm_last = {MPI_COMM_NULL, NULL};

static int delete_state(MPI_Comm comm, int key, void *value, void *extra)
{
    struct autotune_comm_state *s = value;
    (void)comm;
    (void)key;
    (void)extra;
    if (s == autotune_comm_last.state) {
        autotune_comm_last.comm = MPI_COMM_NULL;
        autotune_comm_last.state = NULL;
    }
    int rc = s->dup != MPI_COMM_NULL ? PMPI_Comm_free(&s->dup) : MPI_SUCCESS;
    free(s);
    return rc;
}

static int state_create(MPI_Comm comm, struct autotune_comm_state **out)
{
    int is_inter, rc;
    struct autotune_comm_state *s = malloc(sizeof *s);
    if (!s) {
        return MPI_ERR_NO_MEM;
    }
    s->dup = MPI_COMM_NULL;
    s->per_node = 0;
    if ((rc = PMPI_Comm_test_inter(comm, &is_inter)) != MPI_SUCCESS ||
        (rc = PMPI_Comm_rank(comm, &s->rank)) != MPI_SUCCESS ||
        (rc = PMPI_Comm_size(comm, &s->size)) != MPI_SUCCESS) {
        free(s);
        return rc;
    }
    /* Collective: every rank of comm is in the collective that got here. */
    if (!is_inter && (rc = PMPI_Comm_dup(comm, &s->dup)) != MPI_SUCCESS) {
        free(s);
        return rc;
    }
    if (s->dup != MPI_COMM_NULL) {
        PMPI_Comm_set_errhandler(s->dup, MPI_ERRORS_RETURN);
    }
    if ((rc = PMPI_Comm_set_attr(comm, keyval, s)) != MPI_SUCCESS) {
        delete_state(comm, keyval, s, NULL);
        return rc;
    }
    *out = s;
    return MPI_SUCCESS;
}

/* The most ranks of the duplicate on one node (collective on it). */
static int count_per_node(struct autotune_comm_state *s)
{
    MPI_Comm node;
    int n = 0, rc;
    if ((rc = PMPI_Comm_split_type(s->dup, MPI_COMM_TYPE_SHARED, 0,
                                   MPI_INFO_NULL, &node)) != MPI_SUCCESS) {
        return rc;
    }
    PMPI_Comm_size(node, &n);
    PMPI_Comm_free(&node);
    return PMPI_Allreduce(&n, &s->per_node, 1, MPI_INT, MPI_MAX, s->dup);
}

int autotune_comm_find(MPI_Comm comm, struct autotune_comm_state **out)
{
    struct autotune_comm_state *s;
    int is_set = 0, rc;
    if (keyval == MPI_KEYVAL_INVALID &&
        (rc = PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_state,
                                      &keyval, NULL)) != MPI_SUCCESS) {
        return rc;
    }
    if ((rc = PMPI_Comm_get_attr(comm, keyval, &s, &is_set)) != MPI_SUCCESS) {
        return rc;
    }
    if (!is_set && (rc = state_create(comm, &s)) != MPI_SUCCESS) {
        return rc;
    }
    autotune_comm_last.comm = comm;
    autotune_comm_last.state = s;
    *out = s;
    return MPI_SUCCESS;
}

int autotune_comm_per_node(struct autotune_comm_state *s)
{
    return s->per_node || s->dup == MPI_COMM_NULL ? MPI_SUCCESS
                                                  : count_per_node(s);
}

void autotune_comm_release(void)
{
    if (keyval == MPI_KEYVAL_INVALID) {
        return;
    }
    MPI_Comm predefined[] = {MPI_COMM_WORLD, MPI_COMM_SELF};
    for (int i = 0; i < 2; i++) {
        struct autotune_comm_state *s;
        int is_set = 0;
        PMPI_Comm_get_attr(predefined[i], keyval, &s, &is_set);
        if (is_set) {
            PMPI_Comm_delete_attr(predefined[i], keyval);
        }
    }
    PMPI_Comm_free_keyval(&keyval);
    autotune_comm_last.comm = MPI_COMM_NULL;
    autotune_comm_last.state = NULL;
}
