/* The private duplicate of each user communicator, so that the algorithms'
 * messages never match the application's: made at the first intercepted
 * collective on it (every rank is in that call), kept in an attribute whose
 * delete callback frees it when the application frees its communicator. */
#include <stdlib.h>

#include "runtime/runtime.h"

struct comm_state {
    MPI_Comm dup; /* MPI_COMM_NULL for an inter-communicator */
    int rank, size;
    int per_node; /* 0: not known yet */
};

static int keyval = MPI_KEYVAL_INVALID;
/* The last communicator looked up: most applications call their
 * collectives on one. The delete callback forgets it. */
static MPI_Comm last_comm = MPI_COMM_NULL;
static struct comm_state *last_state;

static int delete_state(MPI_Comm comm, int key, void *value, void *extra)
{
    struct comm_state *s = value;
    (void)comm;
    (void)key;
    (void)extra;
    if (s == last_state) {
        last_comm = MPI_COMM_NULL;
        last_state = NULL;
    }
    int rc = s->dup != MPI_COMM_NULL ? PMPI_Comm_free(&s->dup) : MPI_SUCCESS;
    free(s);
    return rc;
}

static int state_create(MPI_Comm comm, struct comm_state **out)
{
    int is_inter, rc;
    struct comm_state *s = malloc(sizeof *s);
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
static int count_per_node(struct comm_state *s)
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

int autotune_comm_get(MPI_Comm comm, MPI_Comm *dup, int *rank, int *size,
                      int *per_node)
{
    struct comm_state *s = last_state;
    int rc;
    if (comm != last_comm || !s) {
        int is_set = 0;
        if (keyval == MPI_KEYVAL_INVALID &&
            (rc = PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_state,
                                          &keyval, NULL)) != MPI_SUCCESS) {
            return rc;
        }
        if ((rc = PMPI_Comm_get_attr(comm, keyval, &s, &is_set)) !=
            MPI_SUCCESS) {
            return rc;
        }
        if (!is_set && (rc = state_create(comm, &s)) != MPI_SUCCESS) {
            return rc;
        }
        last_comm = comm;
        last_state = s;
    }
    if (per_node && !s->per_node && s->dup != MPI_COMM_NULL &&
        (rc = count_per_node(s)) != MPI_SUCCESS) {
        return rc;
    }
    *dup = s->dup;
    *rank = s->rank;
    *size = s->size;
    if (per_node) {
        *per_node = s->per_node;
    }
    return MPI_SUCCESS;
}

void autotune_comm_release(void)
{
    if (keyval == MPI_KEYVAL_INVALID) {
        return;
    }
    MPI_Comm predefined[] = {MPI_COMM_WORLD, MPI_COMM_SELF};
    for (int i = 0; i < 2; i++) {
        struct comm_state *s;
        int is_set = 0;
        PMPI_Comm_get_attr(predefined[i], keyval, &s, &is_set);
        if (is_set) {
            PMPI_Comm_delete_attr(predefined[i], keyval);
        }
    }
    PMPI_Comm_free_keyval(&keyval);
    last_comm = MPI_COMM_NULL;
    last_state = NULL;
}
