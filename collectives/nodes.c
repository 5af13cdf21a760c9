/* Which node each rank of a communicator is on (collectives/nodes.h). */
#include <stdint.h>
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

struct keyed {
    uint64_t key;
    int rank;
};

static int keyed_cmp(const void *a, const void *b)
{
    const struct keyed *x = a, *y = b;
    if (x->key != y->key) {
        return x->key < y->key ? -1 : 1;
    }
    return (x->rank > y->rank) - (x->rank < y->rank);
}

/* node_of_rank[r]: the nodes (ranks of equal key) numbered 0, 1, ... in
 * the order of their lowest rank; in O(size log size), as a thousand
 * simulated ranks in one process each number the whole world. */
static int number_nodes(const uint64_t *key, int size, int *node_of_rank,
                        int *n_nodes)
{
    struct keyed *k = malloc((size_t)size * sizeof *k);
    if (!k) {
        return MPI_ERR_NO_MEM;
    }
    for (int r = 0; r < size; r++) {
        k[r] = (struct keyed){key[r], r};
    }
    qsort(k, (size_t)size, sizeof *k, keyed_cmp);
    /* first the lowest rank of each rank's node ... */
    for (int i = 0; i < size; i++) {
        node_of_rank[k[i].rank] = i > 0 && k[i].key == k[i - 1].key
                                      ? node_of_rank[k[i - 1].rank]
                                      : k[i].rank;
    }
    free(k);
    /* ... then its number: a node's lowest rank comes first */
    *n_nodes = 0;
    for (int r = 0; r < size; r++) {
        node_of_rank[r] =
            node_of_rank[r] == r ? (*n_nodes)++ : node_of_rank[node_of_rank[r]];
    }
    return MPI_SUCCESS;
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

/* Every rank's key on every rank: a gather and a broadcast, 2 (P - 1)
 * messages; SMPI 3.32's allgather sends O(P^2) (256 simulated ranks on
 * fattree.xml: 20 s of wall time, against 0.3 s). */
static int share_keys(MPI_Comm comm, uint64_t mine, int size, uint64_t *key)
{
    int rc = PMPI_Gather(&mine, 1, MPI_UINT64_T, key, 1, MPI_UINT64_T, 0, comm);
    return rc != MPI_SUCCESS ? rc
                             : PMPI_Bcast(key, size, MPI_UINT64_T, 0, comm);
}

/* A node is named by its lowest rank in comm: split_type keeps comm's
 * order (key 0), so that is the node communicator's rank 0, which tells
 * the others. */
static int node_keys(MPI_Comm comm, int size, uint64_t *key)
{
    MPI_Comm node;
    int lowest, rc;
    if ((rc = PMPI_Comm_rank(comm, &lowest)) != MPI_SUCCESS ||
        (rc = PMPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL,
                                   &node)) != MPI_SUCCESS) {
        return rc;
    }
    rc = PMPI_Bcast(&lowest, 1, MPI_INT, 0, node);
    PMPI_Comm_free(&node);
    return rc != MPI_SUCCESS ? rc
                             : share_keys(comm, (uint64_t)lowest, size, key);
}

int nodes_of_comm(MPI_Comm comm, int block, int *node_of_rank, int *n_nodes)
{
    int size, rc;
    if ((rc = PMPI_Comm_size(comm, &size)) != MPI_SUCCESS) {
        return rc;
    }
    uint64_t *key = malloc((size_t)size * sizeof *key);
    if (!key) {
        return MPI_ERR_NO_MEM;
    }
    if (block > 0) {
        /* Emulated: local, from the world ranks. */
        rc = world_ranks(comm, size, node_of_rank);
        for (int r = 0; rc == MPI_SUCCESS && r < size; r++) {
            key[r] = (uint64_t)(node_of_rank[r] / block);
        }
    } else {
        rc = node_keys(comm, size, key);
    }
    if (rc == MPI_SUCCESS) {
        rc = number_nodes(key, size, node_of_rank, n_nodes);
    }
    free(key);
    return rc;
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
