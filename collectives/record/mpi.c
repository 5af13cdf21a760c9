/* The recording MPI: the calls of collectives/record/mpi.h, each handed to
 * the communicator's sink as one op of the rank being run. Invariant: the
 * algorithms' control flow depends on ranks, sizes and counts, never on the
 * data, so running each rank alone records exactly what it would do in a
 * real call; no data moves, and only MPI_Waitany, whose order depends on
 * time, is recorded oldest request first (alltoall linear_sync). */
#include "collectives/record/mpi.h"

int MPI_Comm_rank(MPI_Comm comm, int *rank)
{
    *rank = comm->rank;
    return MPI_SUCCESS;
}

int MPI_Comm_size(MPI_Comm comm, int *size)
{
    *size = comm->size;
    return MPI_SUCCESS;
}

/* Both datatypes the harness uses are one contiguous byte. */
int MPI_Type_get_extent(MPI_Datatype t, MPI_Aint *lb, MPI_Aint *extent)
{
    (void)t;
    *lb = 0;
    *extent = 1;
    return MPI_SUCCESS;
}

int MPI_Type_get_true_extent(MPI_Datatype t, MPI_Aint *lb, MPI_Aint *extent)
{
    return MPI_Type_get_extent(t, lb, extent);
}

int MPI_Type_size(MPI_Datatype t, int *size)
{
    (void)t;
    *size = 1;
    return MPI_SUCCESS;
}

int MPI_Op_commutative(MPI_Op op, int *commute)
{
    (void)op;
    *commute = 1;
    return MPI_SUCCESS;
}

static int record(MPI_Comm comm, enum record_op op, int peer, int tag,
                  long bytes, int req)
{
    int id =
        comm->sink->add(comm->sink->ctx, comm->rank, op, peer, tag, bytes, req);
    if (id < 0) {
        comm->failed = 1;
    }
    return id;
}

int MPI_Isend(const void *buf, int count, MPI_Datatype t, int dest, int tag,
              MPI_Comm comm, MPI_Request *req)
{
    (void)buf;
    (void)t;
    *req = record(comm, RECORD_ISEND, dest, tag, count, 0);
    return *req < 0 ? MPI_ERR_NO_MEM : MPI_SUCCESS;
}

int MPI_Irecv(void *buf, int count, MPI_Datatype t, int source, int tag,
              MPI_Comm comm, MPI_Request *req)
{
    (void)buf;
    (void)t;
    *req = record(comm, RECORD_IRECV, source, tag, count, 0);
    return *req < 0 ? MPI_ERR_NO_MEM : MPI_SUCCESS;
}

/* The communicator of the rank being recorded: MPI_Wait has none. */
static MPI_Comm current;

void record_set_current(MPI_Comm comm)
{
    current = comm;
}

int MPI_Wait(MPI_Request *req, MPI_Status *status)
{
    (void)status;
    if (*req != MPI_REQUEST_NULL) {
        record(current, RECORD_WAIT, 0, 0, 0, *req);
        *req = MPI_REQUEST_NULL;
    }
    return current->failed ? MPI_ERR_NO_MEM : MPI_SUCCESS;
}

int MPI_Waitall(int n, MPI_Request *reqs, MPI_Status *statuses)
{
    (void)statuses;
    for (int i = 0; i < n; i++) {
        MPI_Wait(&reqs[i], MPI_STATUS_IGNORE);
    }
    return current->failed ? MPI_ERR_NO_MEM : MPI_SUCCESS;
}

/* Which request completes first depends on time, which the recorder does
 * not have: the oldest one (requests are numbered as posted), first in,
 * first out. */
int MPI_Waitany(int n, MPI_Request *reqs, int *index, MPI_Status *status)
{
    *index = MPI_UNDEFINED;
    for (int i = 0; i < n; i++) {
        if (reqs[i] != MPI_REQUEST_NULL &&
            (*index == MPI_UNDEFINED || reqs[i] < reqs[*index])) {
            *index = i;
        }
    }
    return *index == MPI_UNDEFINED ? MPI_SUCCESS
                                   : MPI_Wait(&reqs[*index], status);
}

/* Only receives that will never match are cancelled (allreduce ring's
 * early-posted extra): the receive leaves the program. */
int MPI_Cancel(MPI_Request *req)
{
    current->sink->cancel(current->sink->ctx, current->rank, *req);
    *req = MPI_REQUEST_NULL;
    return MPI_SUCCESS;
}

int MPI_Send(const void *buf, int count, MPI_Datatype t, int dest, int tag,
             MPI_Comm comm)
{
    MPI_Request req;
    int rc = MPI_Isend(buf, count, t, dest, tag, comm, &req);
    return rc ? rc : MPI_Wait(&req, MPI_STATUS_IGNORE);
}

int MPI_Recv(void *buf, int count, MPI_Datatype t, int source, int tag,
             MPI_Comm comm, MPI_Status *status)
{
    MPI_Request req;
    int rc = MPI_Irecv(buf, count, t, source, tag, comm, &req);
    return rc ? rc : MPI_Wait(&req, status);
}

/* As MPI libraries do it: receive posted first, then the send, then both
 * awaited. */
int MPI_Sendrecv(const void *sbuf, int scount, MPI_Datatype st, int dest,
                 int stag, void *rbuf, int rcount, MPI_Datatype rt, int source,
                 int rtag, MPI_Comm comm, MPI_Status *status)
{
    MPI_Request reqs[2];
    int rc = MPI_Irecv(rbuf, rcount, rt, source, rtag, comm, &reqs[0]);
    if (rc == MPI_SUCCESS) {
        rc = MPI_Isend(sbuf, scount, st, dest, stag, comm, &reqs[1]);
    }
    if (rc == MPI_SUCCESS) {
        MPI_Wait(&reqs[1], MPI_STATUS_IGNORE);
        rc = MPI_Wait(&reqs[0], status);
    }
    return rc;
}

int MPI_Sendrecv_replace(void *buf, int count, MPI_Datatype t, int dest,
                         int stag, int source, int rtag, MPI_Comm comm,
                         MPI_Status *status)
{
    return MPI_Sendrecv(buf, count, t, dest, stag, buf, count, t, source, rtag,
                        comm, status);
}

int MPI_Reduce_local(const void *in, void *inout, int count, MPI_Datatype t,
                     MPI_Op op)
{
    (void)in;
    (void)inout;
    (void)t;
    (void)op;
    record(current, RECORD_REDUCE, 0, 0, count, 0);
    return current->failed ? MPI_ERR_NO_MEM : MPI_SUCCESS;
}

int PMPI_Bcast(void *buf, int count, MPI_Datatype t, int root, MPI_Comm comm)
{
    (void)buf, (void)count, (void)t, (void)root, (void)comm;
    return MPI_ERR_OTHER;
}

int PMPI_Reduce(const void *s, void *r, int count, MPI_Datatype t, MPI_Op op,
                int root, MPI_Comm comm)
{
    (void)s, (void)r, (void)count, (void)t, (void)op, (void)root, (void)comm;
    return MPI_ERR_OTHER;
}

int PMPI_Allreduce(const void *s, void *r, int count, MPI_Datatype t, MPI_Op op,
                   MPI_Comm comm)
{
    (void)s, (void)r, (void)count, (void)t, (void)op, (void)comm;
    return MPI_ERR_OTHER;
}

int PMPI_Allgather(const void *s, int sc, MPI_Datatype st, void *r, int rc,
                   MPI_Datatype rt, MPI_Comm comm)
{
    (void)s, (void)sc, (void)st, (void)r, (void)rc, (void)rt, (void)comm;
    return MPI_ERR_OTHER;
}

int PMPI_Alltoall(const void *s, int sc, MPI_Datatype st, void *r, int rc,
                  MPI_Datatype rt, MPI_Comm comm)
{
    (void)s, (void)sc, (void)st, (void)r, (void)rc, (void)rt, (void)comm;
    return MPI_ERR_OTHER;
}

int PMPI_Scatter(const void *s, int sc, MPI_Datatype st, void *r, int rc,
                 MPI_Datatype rt, int root, MPI_Comm comm)
{
    (void)s, (void)sc, (void)st, (void)r, (void)rc, (void)rt, (void)root;
    (void)comm;
    return MPI_ERR_OTHER;
}

int PMPI_Gather(const void *s, int sc, MPI_Datatype st, void *r, int rc,
                MPI_Datatype rt, int root, MPI_Comm comm)
{
    (void)s, (void)sc, (void)st, (void)r, (void)rc, (void)rt, (void)root;
    (void)comm;
    return MPI_ERR_OTHER;
}

int PMPI_Barrier(MPI_Comm comm)
{
    (void)comm;
    return MPI_ERR_OTHER;
}
