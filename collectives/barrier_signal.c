/* The empty messages every barrier is made of. */
#include "collectives/internal.h"

int barrier_send(int peer, MPI_Comm comm)
{
    return MPI_Send(NULL, 0, MPI_BYTE, peer, COLL_TAG_BARRIER, comm);
}

int barrier_recv(int peer, MPI_Comm comm)
{
    return MPI_Recv(NULL, 0, MPI_BYTE, peer, COLL_TAG_BARRIER, comm,
                    MPI_STATUS_IGNORE);
}

int barrier_sendrecv(int to, int from, MPI_Comm comm)
{
    return MPI_Sendrecv(NULL, 0, MPI_BYTE, to, COLL_TAG_BARRIER, NULL, 0,
                        MPI_BYTE, from, COLL_TAG_BARRIER, comm,
                        MPI_STATUS_IGNORE);
}
