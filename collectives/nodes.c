/* Which node each rank of a communicator is on (collectives/nodes.h). */
#include <stdlib.h>
#include <string.h>

#include "collectives/nodes.h"

int nodes_parse_emulation(const char *text, int *block)
{
    *block = 0;
    if (!text || !*text) {
        return 0;
    }
    /* digits only: strtol would take " 4" and "+4" too */
    if (strncmp(text, "block:", 6) != 0 || text[6] < '0' || text[6] > '9') {
        return -1;
    }
    char *end;
    long k = strtol(text + 6, &end, 10);
    if (end == text + 6 || *end || k < 1 || k > (1L << 24)) {
        return -1;
    }
    *block = (int)k;
    return 0;
}

/* Numbers the keys (one per rank, equal on one node) 0, 1, ... in the
 * order of their first rank, in place. */
static void number_nodes(int *key, int size, int *n_nodes)
{
    int *first = malloc((size_t)size * sizeof *first); /* node -> key */
    *n_nodes = 0;
    for (int r = 0; r < size; r++) {
        int node = 0;
        while (node < *n_nodes && (first ? first[node] : -1) != key[r]) {
            node++;
        }
        if (node == *n_nodes && first) {
            first[(*n_nodes)++] = key[r];
        }
        key[r] = node;
    }
    free(first);
}

/* The world rank of each rank of comm. */
static int world_ranks(MPI_Comm comm, int size, int *out)
{
    MPI_Group group, world;
    int rc = PMPI_Comm_group(comm, &group);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if ((rc = PMPI_Comm_group(MPI_COMM_WORLD, &world)) == MPI_SUCCESS) {
        int *ranks = malloc((size_t)size * sizeof *ranks);
        if (!ranks) {
            rc = MPI_ERR_NO_MEM;
        } else {
            for (int r = 0; r < size; r++) {
                ranks[r] = r;
            }
            rc = PMPI_Group_translate_ranks(group, size, ranks, world, out);
            free(ranks);
        }
        PMPI_Group_free(&world);
    }
    PMPI_Group_free(&group);
    return rc;
}

int nodes_of_comm(MPI_Comm comm, int block, int *node_of_rank, int *n_nodes)
{
    int size, rank, rc;
    if ((rc = PMPI_Comm_size(comm, &size)) != MPI_SUCCESS ||
        (rc = PMPI_Comm_rank(comm, &rank)) != MPI_SUCCESS) {
        return rc;
    }
    if (block > 0) {
        /* Emulated: local, from the world ranks. */
        if ((rc = world_ranks(comm, size, node_of_rank)) != MPI_SUCCESS) {
            return rc;
        }
        for (int r = 0; r < size; r++) {
            node_of_rank[r] /= block;
        }
    } else {
        /* A node is named by its lowest rank in comm: split_type keeps
         * comm's order (key 0), so that is the node communicator's rank
         * 0, which tells the others. */
        MPI_Comm node;
        int lowest = rank;
        if ((rc = PMPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0,
                                       MPI_INFO_NULL, &node)) != MPI_SUCCESS) {
            return rc;
        }
        rc = PMPI_Bcast(&lowest, 1, MPI_INT, 0, node);
        PMPI_Comm_free(&node);
        if (rc != MPI_SUCCESS ||
            (rc = PMPI_Allgather(&lowest, 1, MPI_INT, node_of_rank, 1, MPI_INT,
                                 comm)) != MPI_SUCCESS) {
            return rc;
        }
    }
    number_nodes(node_of_rank, size, n_nodes);
    return *n_nodes > 0 ? MPI_SUCCESS : MPI_ERR_NO_MEM;
}

void nodes_layout(const int *node_of_rank, int size, struct nodes_layout *out)
{
    int n_nodes = 0;
    for (int r = 0; r < size; r++) {
        n_nodes = node_of_rank[r] + 1 > n_nodes ? node_of_rank[r] + 1 : n_nodes;
    }
    int *count = calloc((size_t)(n_nodes > 0 ? n_nodes : 1), sizeof *count);
    memset(out, 0, sizeof *out);
    out->n_nodes = n_nodes;
    out->is_consecutive = true;
    for (int r = 0; r < size; r++) {
        if (count) {
            count[node_of_rank[r]]++;
        }
        /* consecutive: a node, once left, is never seen again; nodes are
         * numbered by their lowest rank, so a new node is the next number */
        if (r > 0 && node_of_rank[r] != node_of_rank[r - 1] &&
            node_of_rank[r] != node_of_rank[r - 1] + 1) {
            out->is_consecutive = false;
        }
    }
    out->is_regular = count != NULL;
    for (int n = 0; count && n < n_nodes; n++) {
        out->ppn = count[n] > out->ppn ? count[n] : out->ppn;
        out->is_regular &= count[n] == count[0];
    }
    free(count);
}

int nodes_block_order(const int *node_of_rank, int size, int ppn, int *order)
{
    if (ppn <= 0) {
        for (int r = 0; order && r < size; r++) {
            order[r] = r;
        }
        return size;
    }
    int n_nodes = 0;
    for (int r = 0; r < size; r++) {
        n_nodes = node_of_rank[r] >= n_nodes ? node_of_rank[r] + 1 : n_nodes;
    }
    /* count[n]: node n's ranks; then, as the ranks are listed, how many of
     * its first ppn are still to come */
    int *count = calloc((size_t)n_nodes + 1, sizeof *count);
    int *first = malloc(((size_t)n_nodes + 1) * sizeof *first);
    int n = -1;
    if (count && first) {
        for (int r = 0; r < size; r++) {
            count[node_of_rank[r]]++;
        }
        n = 0;
        for (int node = 0; node < n_nodes; node++) {
            first[node] = n;
            n += count[node] >= ppn ? ppn : 0;
            count[node] = count[node] >= ppn ? ppn : 0;
        }
        for (int r = 0; order && r < size; r++) {
            int node = node_of_rank[r];
            if (count[node] > 0) {
                order[first[node] + ppn - count[node]--] = r;
            }
        }
    }
    free(count);
    free(first);
    return n;
}
