/* The MPI subset the algorithms of collectives/ call, as a recording layer:
 * collectives/ compiled against this header runs one rank at a time, and
 * each send, receive, wait and local reduction it makes goes, in program
 * order, to the sink of its communicator; no data moves and no network
 * exists. model/sim/record.c drives it for the model's schedules. */
#ifndef COLLECTIVES_RECORD_MPI_H
#define COLLECTIVES_RECORD_MPI_H

#include "collectives/record/record.h"

/* The communicator of a recorded run: rank is the rank being run. */
struct record_comm {
    int rank, size;
    const struct record_sink *sink;
    int failed; /* out of memory while recording */
};

typedef long MPI_Aint;
typedef int MPI_Datatype;
typedef int MPI_Op;
typedef int MPI_Request;
typedef struct record_comm *MPI_Comm;
typedef struct {
    int MPI_SOURCE, MPI_TAG, MPI_ERROR;
} MPI_Status;

#define MPI_SUCCESS 0
#define MPI_ERR_OTHER 15
#define MPI_ERR_NO_MEM 34
#define MPI_ERR_COUNT 2
#define MPI_ERR_SIZE 51
#define MPI_ERR_ARG 12
#define MPI_BYTE 1
#define MPI_UNSIGNED_CHAR 2
/* Named for collectives/buffer.c's list of predefined types only: every
 * type here is one byte. */
#define MPI_DOUBLE 3
#define MPI_INT 4
#define MPI_FLOAT 5
#define MPI_CHAR 6
#define MPI_LONG 7
#define MPI_UNSIGNED 8
#define MPI_UNSIGNED_LONG 9
#define MPI_LONG_LONG 10
#define MPI_OP_NULL 0
#define MPI_SUM 1
#define MPI_REQUEST_NULL (-1)
#define MPI_UNDEFINED (-32766)
#define MPI_IN_PLACE ((void *)1)
#define MPI_STATUS_IGNORE ((MPI_Status *)0)
#define MPI_STATUSES_IGNORE ((MPI_Status *)0)

int MPI_Comm_rank(MPI_Comm comm, int *rank);
int MPI_Comm_size(MPI_Comm comm, int *size);
int MPI_Type_get_extent(MPI_Datatype t, MPI_Aint *lb, MPI_Aint *extent);
int MPI_Type_get_true_extent(MPI_Datatype t, MPI_Aint *lb, MPI_Aint *extent);
int MPI_Type_size(MPI_Datatype t, int *size);
int MPI_Op_commutative(MPI_Op op, int *commute);
int MPI_Isend(const void *buf, int count, MPI_Datatype t, int dest, int tag,
              MPI_Comm comm, MPI_Request *req);
int MPI_Irecv(void *buf, int count, MPI_Datatype t, int source, int tag,
              MPI_Comm comm, MPI_Request *req);
int MPI_Send(const void *buf, int count, MPI_Datatype t, int dest, int tag,
             MPI_Comm comm);
int MPI_Recv(void *buf, int count, MPI_Datatype t, int source, int tag,
             MPI_Comm comm, MPI_Status *status);
int MPI_Sendrecv(const void *sbuf, int scount, MPI_Datatype st, int dest,
                 int stag, void *rbuf, int rcount, MPI_Datatype rt, int source,
                 int rtag, MPI_Comm comm, MPI_Status *status);
int MPI_Sendrecv_replace(void *buf, int count, MPI_Datatype t, int dest,
                         int stag, int source, int rtag, MPI_Comm comm,
                         MPI_Status *status);
int MPI_Wait(MPI_Request *req, MPI_Status *status);
int MPI_Waitall(int n, MPI_Request *reqs, MPI_Status *statuses);
int MPI_Waitany(int n, MPI_Request *reqs, int *index, MPI_Status *status);
int MPI_Cancel(MPI_Request *req);
int MPI_Reduce_local(const void *in, void *inout, int count, MPI_Datatype t,
                     MPI_Op op);

/* The library's own collectives (the table's references) are not modelled:
 * they fail with MPI_ERR_OTHER. */
int PMPI_Bcast(void *buf, int count, MPI_Datatype t, int root, MPI_Comm comm);
int PMPI_Reduce(const void *s, void *r, int count, MPI_Datatype t, MPI_Op op,
                int root, MPI_Comm comm);
int PMPI_Allreduce(const void *s, void *r, int count, MPI_Datatype t, MPI_Op op,
                   MPI_Comm comm);
int PMPI_Allgather(const void *s, int sc, MPI_Datatype st, void *r, int rc,
                   MPI_Datatype rt, MPI_Comm comm);
int PMPI_Alltoall(const void *s, int sc, MPI_Datatype st, void *r, int rc,
                  MPI_Datatype rt, MPI_Comm comm);
int PMPI_Scatter(const void *s, int sc, MPI_Datatype st, void *r, int rc,
                 MPI_Datatype rt, int root, MPI_Comm comm);
int PMPI_Gather(const void *s, int sc, MPI_Datatype st, void *r, int rc,
                MPI_Datatype rt, int root, MPI_Comm comm);
int PMPI_Barrier(MPI_Comm comm);

/* Calls without a communicator (MPI_Wait) record on comm's rank: set before
 * running a rank, NULL after. */
void record_set_current(MPI_Comm comm);

#endif
