/* The MPI functions libautotune defines: the eight blocking collectives run
 * the decision's algorithm from collectives/ on the communicator's private
 * duplicate, or the library's PMPI_ call; MPI_Init* and MPI_Finalize set up
 * and report. Everything else is the library's own. */
#include <stdbool.h>
#include <stdlib.h>

#include "runtime/runtime.h"

/* The MPI_ names are aliases of the static functions below, set in
 * assembly, because SimGrid's smpi.h declares every MPI_ function weak and
 * public: a C definition here would be weak too, and the application's
 * calls, compiled into a shared object that smpirun loads after
 * libsimgrid, would bind to SimGrid's. Under SMPI the alias is protected:
 * the application's calls bind to it when the application is linked (its
 * references are weak, so the archive alone would not be searched for it;
 * build/libautotune-smpi.a is a linker script naming one relocatable object
 * for that reason). With Open MPI it is an ordinary exported symbol, which
 * LD_PRELOAD or linking before libmpi puts in front of the library's. */
#ifdef SMPI_H
#define INTERPOSE_VISIBILITY(name) ".protected " name "\n\t"
#else
#define INTERPOSE_VISIBILITY(name) ""
#endif
#define INTERPOSE(name, impl)                                                  \
    __asm__(".globl " #name "\n\t" INTERPOSE_VISIBILITY(#name) ".set " #name   \
                                                               ", " #impl)
#define INTERPOSED static __attribute__((used))

/* count elements of a datatype as bytes, as the tuner times them: the
 * buffer itself when its data is contiguous, else a packed copy (unpacked
 * after the call when it is an output). Every rank moves the same bytes
 * whatever datatypes the ranks pass (MPI only asks their signatures to
 * match), so segments and blocks line up as in a sweep. MPI_BOTTOM is a
 * buffer like any other (the datatype's displacements are addresses), so
 * every rank runs the decision's algorithm whichever ranks pass it; no
 * elements and MPI_IN_PLACE stay as they are. */
struct view {
    void *user;
    int count;
    MPI_Datatype dtype;
    int n_bytes;
    char *bytes;        /* what the algorithm gets */
    char *packed;       /* NULL when bytes is the user's buffer */
    MPI_Datatype owned; /* dtype when made here, else MPI_DATATYPE_NULL */
};

/* Where MPI_BOTTOM's data is packed from and unpacked to: an address any
 * MPI takes (MPICH's MPI_Pack refuses NULL, which its MPI_BOTTOM is;
 * SimGrid's MPI_Pack does not translate its MPI_BOTTOM, (void *)-111),
 * with the elements in a struct displaced by minus that address. */
static char bottom_anchor;

static int view_anchor(struct view *v)
{
    MPI_Aint at;
    MPI_Datatype dtype = v->dtype;
    int rc = PMPI_Get_address(&bottom_anchor, &at);
    if (rc == MPI_SUCCESS) {
        at = -at;
        rc = PMPI_Type_create_struct(1, &v->count, &at, &dtype, &v->owned);
    }
    if (rc == MPI_SUCCESS &&
        (rc = PMPI_Type_commit(&v->owned)) == MPI_SUCCESS) {
        v->user = &bottom_anchor;
        v->count = 1;
        v->dtype = v->owned;
    }
    return rc;
}

/* A non-contiguous view: its packed copy (out of line, so that the
 * contiguous case inlines). */
static int view_pack(struct view *v, bool is_input)
{
    int pos = 0, rc;
    if (v->user == MPI_BOTTOM && (rc = view_anchor(v)) != MPI_SUCCESS) {
        return rc;
    }
    if (!(v->packed = malloc((size_t)v->n_bytes))) {
        return MPI_ERR_NO_MEM;
    }
    v->bytes = v->packed;
    return is_input ? PMPI_Pack(v->user, v->count, v->dtype, v->packed,
                                v->n_bytes, &pos, MPI_COMM_SELF)
                    : MPI_SUCCESS;
}

/* Whether dtype's type map runs through increasing addresses, so that the
 * bytes of a datatype without holes can be taken as they lie: a predefined
 * datatype, or a contiguous, duplicated or resized one of such a datatype.
 * A struct or an indexed datatype may list its blocks in any order (and
 * absolute addresses in the order of the program's variables), so any
 * other datatype is packed, in the order of its type map as MPI has it. */
static bool type_is_in_order(MPI_Datatype dtype)
{
    enum { MAX_DEPTH = 8 };
    MPI_Datatype owned = MPI_DATATYPE_NULL;
    bool is_in_order = false;
    for (int depth = 0; depth < MAX_DEPTH; depth++) {
        int n_ints, n_addrs, n_types, combiner, ints[1];
        MPI_Aint addrs[2];
        MPI_Datatype inner;
        if (PMPI_Type_get_envelope(dtype, &n_ints, &n_addrs, &n_types,
                                   &combiner) != MPI_SUCCESS) {
            break;
        }
        if (combiner == MPI_COMBINER_NAMED) {
            is_in_order = true;
            break;
        }
        if ((combiner != MPI_COMBINER_CONTIGUOUS &&
             combiner != MPI_COMBINER_DUP &&
             combiner != MPI_COMBINER_RESIZED) ||
            n_ints > 1 || n_addrs > 2 || n_types != 1 ||
            PMPI_Type_get_contents(dtype, 1, 2, 1, ints, addrs, &inner) !=
                MPI_SUCCESS) {
            break;
        }
        /* A derived datatype got from MPI_Type_get_contents is the
         * caller's to free. */
        if (owned != MPI_DATATYPE_NULL) {
            PMPI_Type_free(&owned);
        }
        dtype = owned = inner;
    }
    if (owned != MPI_DATATYPE_NULL) {
        int n_ints, n_addrs, n_types, combiner;
        if (PMPI_Type_get_envelope(owned, &n_ints, &n_addrs, &n_types,
                                   &combiner) == MPI_SUCCESS &&
            combiner != MPI_COMBINER_NAMED) {
            PMPI_Type_free(&owned);
        }
    }
    return is_in_order;
}

static inline int view_open_as(struct view *v, const void *buf, long count,
                               MPI_Datatype dtype,
                               const struct coll_layout *layout, bool is_input)
{
    struct coll_layout t;
    int rc;
    v->user = (void *)buf;
    v->packed = NULL;
    v->owned = MPI_DATATYPE_NULL;
    v->bytes = (char *)buf;
    if (buf == MPI_IN_PLACE || count == 0) {
        return MPI_SUCCESS;
    }
    if (layout) {
        t = *layout;
    } else if ((rc = coll_layout_get(dtype, &t)) != MPI_SUCCESS) {
        return rc;
    }
    v->count = (int)count;
    v->dtype = dtype;
    v->n_bytes = (int)(count * t.size);
    /* Not MPI_BOTTOM: no datatype taken as it lies has addresses. */
    if (t.true_extent == t.size && (count == 1 || t.extent == t.size) &&
        type_is_in_order(dtype)) {
        v->bytes = (char *)buf + t.true_lb;
        return MPI_SUCCESS;
    }
    return view_pack(v, is_input);
}

/* view_open_as, the layout asked here. */
static int view_open(struct view *v, const void *buf, long count,
                     MPI_Datatype dtype, bool is_input)
{
    return view_open_as(v, buf, count, dtype, NULL, is_input);
}

static int view_unpack(struct view *v, bool is_output, int rc)
{
    int pos = 0;
    if (is_output && rc == MPI_SUCCESS) {
        rc = PMPI_Unpack(v->packed, v->n_bytes, &pos, v->user, v->count,
                         v->dtype, MPI_COMM_SELF);
    }
    free(v->packed);
    v->packed = NULL;
    if (v->owned != MPI_DATATYPE_NULL) {
        PMPI_Type_free(&v->owned);
    }
    return rc;
}

static inline int view_close(struct view *v, bool is_output, int rc)
{
    return v->packed || v->owned != MPI_DATATYPE_NULL
               ? view_unpack(v, is_output, rc)
               : rc;
}

/* Bytes of count elements of dtype. */
static long type_bytes(long count, MPI_Datatype dtype)
{
    struct coll_layout t;
    return coll_layout_get(dtype, &t) == MPI_SUCCESS ? count * t.size : 0;
}

/* An algorithm's error goes to the user communicator's error handler, as
 * the library's own would. */
static int finish(MPI_Comm comm, int rc)
{
    if (rc != MPI_SUCCESS) {
        PMPI_Comm_call_errhandler(comm, rc);
    }
    return rc;
}

/* The arguments of the chosen algorithm on the duplicate, for msg_bytes
 * of MPI_BYTE per block (the harness's form, tune/measure.c). */
static struct coll_args bytes_args(const struct autotune_choice *ch,
                                   long msg_bytes, int root)
{
    return (struct coll_args){.count = (int)msg_bytes,
                              .dtype = MPI_BYTE,
                              .op = MPI_OP_NULL,
                              .root = root,
                              .comm = ch->comm,
                              .seg_bytes = ch->seg_bytes,
                              .chain_fanout = ch->chain_fanout};
}

INTERPOSED int autotune_mpi_bcast(void *buf, int count, MPI_Datatype dtype,
                                  int root, MPI_Comm comm)
{
    struct autotune_choice ch;
    struct coll_layout t;
    bool is_known = coll_layout_get(dtype, &t) == MPI_SUCCESS;
    long bytes = is_known ? count * (long)t.size : 0;
    int rc = autotune_choose(AUTOTUNE_BCAST, comm, bytes, MPI_OP_NULL, root,
                             false, &ch);
    if (rc != MPI_SUCCESS || autotune_is_library(&ch)) {
        return autotune_call_end(
            &ch, rc != MPI_SUCCESS ? finish(comm, rc)
                                   : PMPI_Bcast(buf, count, dtype, root, comm));
    }
    struct view v;
    struct coll_args args = bytes_args(&ch, bytes, root);
    bool is_root = ch.rank == root;
    if ((rc = view_open_as(&v, buf, count, dtype, is_known ? &t : NULL,
                           is_root)) == MPI_SUCCESS) {
        args.recvbuf = v.bytes;
        rc = autotune_run(&ch, &args);
    }
    return autotune_call_end(&ch, finish(comm, view_close(&v, !is_root, rc)));
}
INTERPOSE(MPI_Bcast, autotune_mpi_bcast);

/* Whether a reduction's buffer this rank uses is MPI_BOTTOM: a datatype
 * of absolute addresses, which MPI has every rank pass (the same datatype
 * everywhere), so every rank finds one, whether it sends from it or
 * receives into it. Not NULL's other use: the recvbuf of a non-root. */
static int reduction_is_bottom(enum autotune_coll coll, const void *sendbuf,
                               const void *recvbuf, int count, int root,
                               MPI_Comm comm, bool *is_bottom)
{
    int rank;
    *is_bottom = count > 0 && sendbuf == MPI_BOTTOM;
    if (*is_bottom || count == 0 || recvbuf != MPI_BOTTOM) {
        return MPI_SUCCESS;
    }
    if (coll != AUTOTUNE_REDUCE) {
        *is_bottom = true;
        return MPI_SUCCESS;
    }
    int rc = PMPI_Comm_rank(comm, &rank);
    *is_bottom = rc == MPI_SUCCESS && rank == root;
    return rc;
}

/* Reductions run on the caller's count and datatype: MPI has every rank
 * pass the same ones, and the operation needs them. With MPI_BOTTOM they
 * go to the library: an algorithm's temporaries span the datatype's
 * extent, here the distance between the application's variables. */
static int reduction(enum autotune_coll coll, const void *sendbuf,
                     void *recvbuf, int count, MPI_Datatype dtype, MPI_Op op,
                     int root, MPI_Comm comm, struct autotune_choice *ch,
                     bool *is_library)
{
    bool is_bottom;
    ch->profile_index = 0;
    int rc = reduction_is_bottom(coll, sendbuf, recvbuf, count, root, comm,
                                 &is_bottom);
    if (rc == MPI_SUCCESS) {
        rc =
            autotune_choose(coll, comm, type_bytes(count, dtype), op,
                            coll == AUTOTUNE_REDUCE ? root : -1, is_bottom, ch);
    }
    *is_library = rc == MPI_SUCCESS && autotune_is_library(ch);
    if (rc != MPI_SUCCESS || autotune_is_library(ch)) {
        return rc;
    }
    bool is_rooted = coll == AUTOTUNE_REDUCE;
    struct coll_args args = {.sendbuf = sendbuf,
                             .recvbuf = !is_rooted || ch->rank == root ? recvbuf
                                                                       : NULL,
                             .count = count,
                             .dtype = dtype,
                             .op = op,
                             .root = root,
                             .comm = ch->comm,
                             .seg_bytes = ch->seg_bytes,
                             .chain_fanout = ch->chain_fanout};
    return autotune_run(ch, &args);
}

INTERPOSED int autotune_mpi_reduce(const void *sendbuf, void *recvbuf,
                                   int count, MPI_Datatype dtype, MPI_Op op,
                                   int root, MPI_Comm comm)
{
    struct autotune_choice ch;
    bool is_library;
    int rc = reduction(AUTOTUNE_REDUCE, sendbuf, recvbuf, count, dtype, op,
                       root, comm, &ch, &is_library);
    return autotune_call_end(
        &ch, is_library
                 ? PMPI_Reduce(sendbuf, recvbuf, count, dtype, op, root, comm)
                 : finish(comm, rc));
}
INTERPOSE(MPI_Reduce, autotune_mpi_reduce);

INTERPOSED int autotune_mpi_allreduce(const void *sendbuf, void *recvbuf,
                                      int count, MPI_Datatype dtype, MPI_Op op,
                                      MPI_Comm comm)
{
    struct autotune_choice ch;
    bool is_library;
    int rc = reduction(AUTOTUNE_ALLREDUCE, sendbuf, recvbuf, count, dtype, op,
                       0, comm, &ch, &is_library);
    return autotune_call_end(
        &ch, is_library
                 ? PMPI_Allreduce(sendbuf, recvbuf, count, dtype, op, comm)
                 : finish(comm, rc));
}
INTERPOSE(MPI_Allreduce, autotune_mpi_allreduce);

/* The two buffers of a collective that moves blocks, as one rank passes
 * them; a buffer MPI does not read here is NULL. */
struct blocks_call {
    const void *sendbuf;
    long send_count; /* elements of the whole buffer on this rank */
    MPI_Datatype send_type;
    void *recvbuf;
    long recv_count;
    MPI_Datatype recv_type;
};

/* Runs the choice on bytes views of both buffers; the receive buffer is
 * read too when the send buffer is MPI_IN_PLACE (it holds this rank's
 * data). */
static int blocks_run(const struct autotune_choice *ch,
                      const struct blocks_call *call, long msg_bytes, int root)
{
    struct view s, r;
    struct coll_args args = bytes_args(ch, msg_bytes, root);
    bool is_in_place = call->sendbuf == MPI_IN_PLACE;
    int rc =
        view_open(&s, call->sendbuf, call->send_count, call->send_type, true);
    if (rc != MPI_SUCCESS) {
        return view_close(&s, false, rc);
    }
    rc = view_open(&r, call->recvbuf, call->recv_count, call->recv_type,
                   is_in_place);
    if (rc == MPI_SUCCESS) {
        args.sendbuf = s.bytes;
        args.recvbuf = r.bytes;
        rc = autotune_run(ch, &args);
    }
    rc = view_close(&r, true, rc);
    return view_close(&s, false, rc);
}

/* gather and scatter: the root alone passes the buffer of P blocks (and
 * a root in place only that one); every other argument is significant. */
static int rooted_blocks(enum autotune_coll coll, const void *sendbuf,
                         int scount, MPI_Datatype stype, void *recvbuf,
                         int rcount, MPI_Datatype rtype, int root,
                         MPI_Comm comm, struct autotune_choice *ch,
                         bool *is_library)
{
    int rank, rc;
    *is_library = false;
    ch->profile_index = 0;
    if ((rc = PMPI_Comm_rank(comm, &rank)) != MPI_SUCCESS) {
        return rc;
    }
    bool is_gather = coll == AUTOTUNE_GATHER, is_root = rank == root;
    bool is_send_sized = is_gather ? !(is_root && sendbuf == MPI_IN_PLACE)
                                   : is_root && recvbuf == MPI_IN_PLACE;
    long bytes =
        is_send_sized ? type_bytes(scount, stype) : type_bytes(rcount, rtype);
    rc = autotune_choose(coll, comm, bytes, MPI_OP_NULL, root, false, ch);
    *is_library = rc == MPI_SUCCESS && autotune_is_library(ch);
    if (rc != MPI_SUCCESS || autotune_is_library(ch)) {
        return rc;
    }
    struct blocks_call call = {NULL, 0, MPI_BYTE, NULL, 0, MPI_BYTE};
    if (is_gather || is_root) {
        call.sendbuf = sendbuf;
        call.send_count = is_gather ? scount : (long)scount * ch->size;
        call.send_type = stype;
    }
    if (!is_gather || is_root) {
        call.recvbuf = recvbuf;
        call.recv_count = is_gather ? (long)rcount * ch->size : rcount;
        call.recv_type = rtype;
    }
    return blocks_run(ch, &call, bytes, root);
}

INTERPOSED int autotune_mpi_gather(const void *sendbuf, int scount,
                                   MPI_Datatype stype, void *recvbuf,
                                   int rcount, MPI_Datatype rtype, int root,
                                   MPI_Comm comm)
{
    struct autotune_choice ch;
    bool is_library;
    int rc = rooted_blocks(AUTOTUNE_GATHER, sendbuf, scount, stype, recvbuf,
                           rcount, rtype, root, comm, &ch, &is_library);
    return autotune_call_end(
        &ch, is_library ? PMPI_Gather(sendbuf, scount, stype, recvbuf, rcount,
                                      rtype, root, comm)
                        : finish(comm, rc));
}
INTERPOSE(MPI_Gather, autotune_mpi_gather);

INTERPOSED int autotune_mpi_scatter(const void *sendbuf, int scount,
                                    MPI_Datatype stype, void *recvbuf,
                                    int rcount, MPI_Datatype rtype, int root,
                                    MPI_Comm comm)
{
    struct autotune_choice ch;
    bool is_library;
    int rc = rooted_blocks(AUTOTUNE_SCATTER, sendbuf, scount, stype, recvbuf,
                           rcount, rtype, root, comm, &ch, &is_library);
    return autotune_call_end(
        &ch, is_library ? PMPI_Scatter(sendbuf, scount, stype, recvbuf, rcount,
                                       rtype, root, comm)
                        : finish(comm, rc));
}
INTERPOSE(MPI_Scatter, autotune_mpi_scatter);

/* allgather and alltoall: every rank passes both buffers; send_blocks
 * blocks are sent (1 or P). */
static int all_blocks(enum autotune_coll coll, const void *sendbuf, int scount,
                      MPI_Datatype stype, void *recvbuf, int rcount,
                      MPI_Datatype rtype, MPI_Comm comm,
                      struct autotune_choice *ch, bool *is_library)
{
    long bytes = sendbuf == MPI_IN_PLACE ? type_bytes(rcount, rtype)
                                         : type_bytes(scount, stype);
    int rc = autotune_choose(coll, comm, bytes, MPI_OP_NULL, -1, false, ch);
    *is_library = rc == MPI_SUCCESS && autotune_is_library(ch);
    if (rc != MPI_SUCCESS || autotune_is_library(ch)) {
        return rc;
    }
    long send_blocks =
        autotune_coll_def(coll)->send_blocks == BLOCKS_P ? ch->size : 1;
    struct blocks_call call = {sendbuf, scount * send_blocks,    stype,
                               recvbuf, (long)rcount * ch->size, rtype};
    return blocks_run(ch, &call, bytes, 0);
}

INTERPOSED int autotune_mpi_allgather(const void *sendbuf, int scount,
                                      MPI_Datatype stype, void *recvbuf,
                                      int rcount, MPI_Datatype rtype,
                                      MPI_Comm comm)
{
    struct autotune_choice ch;
    bool is_library;
    int rc = all_blocks(AUTOTUNE_ALLGATHER, sendbuf, scount, stype, recvbuf,
                        rcount, rtype, comm, &ch, &is_library);
    return autotune_call_end(
        &ch, is_library ? PMPI_Allgather(sendbuf, scount, stype, recvbuf,
                                         rcount, rtype, comm)
                        : finish(comm, rc));
}
INTERPOSE(MPI_Allgather, autotune_mpi_allgather);

INTERPOSED int autotune_mpi_alltoall(const void *sendbuf, int scount,
                                     MPI_Datatype stype, void *recvbuf,
                                     int rcount, MPI_Datatype rtype,
                                     MPI_Comm comm)
{
    struct autotune_choice ch;
    bool is_library;
    int rc = all_blocks(AUTOTUNE_ALLTOALL, sendbuf, scount, stype, recvbuf,
                        rcount, rtype, comm, &ch, &is_library);
    return autotune_call_end(
        &ch, is_library ? PMPI_Alltoall(sendbuf, scount, stype, recvbuf, rcount,
                                        rtype, comm)
                        : finish(comm, rc));
}
INTERPOSE(MPI_Alltoall, autotune_mpi_alltoall);

INTERPOSED int autotune_mpi_barrier(MPI_Comm comm)
{
    struct autotune_choice ch;
    int rc =
        autotune_choose(AUTOTUNE_BARRIER, comm, 0, MPI_OP_NULL, -1, false, &ch);
    if (rc != MPI_SUCCESS || autotune_is_library(&ch)) {
        return autotune_call_end(&ch, rc != MPI_SUCCESS ? finish(comm, rc)
                                                        : PMPI_Barrier(comm));
    }
    struct coll_args args = bytes_args(&ch, 0, 0);
    return autotune_call_end(&ch, finish(comm, autotune_run(&ch, &args)));
}
INTERPOSE(MPI_Barrier, autotune_mpi_barrier);

INTERPOSED int autotune_mpi_init(int *argc, char ***argv)
{
    int rc = PMPI_Init(argc, argv);
    if (rc == MPI_SUCCESS) {
        autotune_start(MPI_THREAD_SINGLE);
    }
    return rc;
}
INTERPOSE(MPI_Init, autotune_mpi_init);

INTERPOSED int autotune_mpi_init_thread(int *argc, char ***argv, int required,
                                        int *provided)
{
    int rc = PMPI_Init_thread(argc, argv, required, provided);
    if (rc == MPI_SUCCESS) {
        autotune_start(required);
    }
    return rc;
}
INTERPOSE(MPI_Init_thread, autotune_mpi_init_thread);

INTERPOSED int autotune_mpi_finalize(void)
{
    autotune_stop();
    return PMPI_Finalize();
}
INTERPOSE(MPI_Finalize, autotune_mpi_finalize);
