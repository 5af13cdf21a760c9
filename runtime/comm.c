/* The private duplicate of each user communicator, so that the algorithms'
 * messages never match the application's, and the layout of its ranks on
 * nodes: both made at the first intercepted collective on it (every rank is
 * in that call), kept in an attribute whose delete callback frees them when
 * the application frees its communicator; with them, once, the node and
 * leaders' communicators of the first call that runs a node-aware method. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/runtime.h"

static int keyval = MPI_KEYVAL_INVALID;
static int node_block;    /* AUTOTUNE_NODE_OF_RANK's K; 0: the real nodes */
static long n_nodes_made; /* communicators whose node communicators this
                             rank made */
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
    node_comms_destroy(s->nodes);
    int rc = s->dup != MPI_COMM_NULL ? PMPI_Comm_free(&s->dup) : MPI_SUCCESS;
    free(s);
    return rc;
}

void autotune_comm_start(int rank)
{
    const char *text = getenv(NODES_ENV);
    if (nodes_parse_emulation(text, &node_block) != 0 && rank == 0) {
        fprintf(stderr,
                "libautotune: %s=%.48s: expected block:K (K >= 1); the real "
                "nodes count\n",
                NODES_ENV, text);
    }
    /* Every rank's layouts must agree, so rank 0's value holds. */
    PMPI_Bcast(&node_block, 1, MPI_INT, 0, MPI_COMM_WORLD);
}

/* "4, 4, 3": the ranks on each node, the first few, into out. */
static void say_node_counts(const int *node_of_rank, int size, int n_nodes,
                            char *out, size_t out_size)
{
    enum { SHOWN = 8 };
    int count[SHOWN] = {0};
    size_t n = 0;
    for (int r = 0; r < size; r++) {
        if (node_of_rank[r] < SHOWN) {
            count[node_of_rank[r]]++;
        }
    }
    out[0] = '\0';
    for (int k = 0; k < n_nodes && k < SHOWN && n < out_size; k++) {
        n += (size_t)snprintf(out + n, out_size - n, "%s%d", k ? ", " : "",
                              count[k]);
    }
    if (n_nodes > SHOWN && n < out_size) {
        snprintf(out + n, out_size - n, ", ... (%d nodes)", n_nodes);
    }
}

/* The layout of s's ranks on nodes (collective on its duplicate). */
static int find_layout(struct autotune_comm_state *s)
{
    int n_nodes, rc;
    int *node_of_rank = malloc((size_t)s->size * sizeof *node_of_rank);
    if (!node_of_rank) {
        return MPI_ERR_NO_MEM;
    }
    rc = nodes_of_comm(s->dup, node_block, node_of_rank, &n_nodes);
    if (rc == MPI_SUCCESS) {
        nodes_layout(node_of_rank, s->size, &s->layout);
        if (!s->layout.is_regular) {
            say_node_counts(node_of_rank, s->size, n_nodes, s->node_counts,
                            sizeof s->node_counts);
        }
    }
    free(node_of_rank);
    return rc;
}

bool autotune_all_ok(MPI_Comm comm, bool is_ok)
{
    int flag = is_ok, all = 0;
    return PMPI_Allreduce(&flag, &all, 1, MPI_INT, MPI_MIN, comm) ==
               MPI_SUCCESS &&
           all;
}

const struct node_comms *autotune_comm_nodes(struct autotune_comm_state *s)
{
    if (s->nodes || s->is_nodes_failed) {
        return s->nodes;
    }
    int n_nodes;
    int *node_of_rank = malloc((size_t)s->size * sizeof *node_of_rank);
    /* The ranks agree at each step, so that all make the communicators or
     * none (one rank out of memory must not leave the others waiting). */
    bool is_ok =
        autotune_all_ok(s->dup, node_of_rank != NULL) &&
        autotune_all_ok(s->dup, nodes_of_comm(s->dup, node_block, node_of_rank,
                                              &n_nodes) == MPI_SUCCESS);
    if (is_ok &&
        !autotune_all_ok(s->dup, node_comms_create(s->dup, node_of_rank,
                                                   &s->nodes) == MPI_SUCCESS)) {
        node_comms_destroy(s->nodes);
        s->nodes = NULL;
        is_ok = false;
    }
    free(node_of_rank);
    s->is_nodes_failed = !is_ok;
    n_nodes_made += is_ok;
    return s->nodes;
}

/* s->id, from its rank 0 (collective on its duplicate). */
static int name_state(struct autotune_comm_state *s)
{
    static long n_made;
    int world_rank = 0;
    if (s->rank == 0) {
        PMPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
        s->id = (long)world_rank * (1L << 32) + n_made++;
    }
    return PMPI_Bcast(&s->id, 1, MPI_LONG, 0, s->dup);
}

static int state_create(MPI_Comm comm, struct autotune_comm_state **out)
{
    int is_inter, rc;
    struct autotune_comm_state *s = calloc(1, sizeof *s);
    if (!s) {
        return MPI_ERR_NO_MEM;
    }
    s->dup = MPI_COMM_NULL;
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
        if ((autotune_prof.is_on && (rc = name_state(s)) != MPI_SUCCESS) ||
            (rc = find_layout(s)) != MPI_SUCCESS) {
            delete_state(comm, keyval, s, NULL);
            return rc;
        }
    }
    if ((rc = PMPI_Comm_set_attr(comm, keyval, s)) != MPI_SUCCESS) {
        delete_state(comm, keyval, s, NULL);
        return rc;
    }
    *out = s;
    return MPI_SUCCESS;
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

long autotune_comm_nodes_made(void)
{
    return n_nodes_made;
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
