/* libautotune's Fortran bindings of the eight collectives (mpif.h, the mpi
 * module, mpi_f08) and of MPI_Init, MPI_Init_thread and MPI_Finalize: Open
 * MPI's and SimGrid's own bypass the C MPI_ functions, so these convert the
 * handles and run the C path (intercept.c's); a buffer is never
 * reinterpreted unless the library's Fortran MPI_IN_PLACE and MPI_BOTTOM
 * are known. */
#define _GNU_SOURCE /* RTLD_NEXT */
#include <ctype.h>
#include <dlfcn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/runtime.h"

#ifdef SMPI_H
/* SimGrid's Fortran sentinels: its mpif.h declares MPI_IN_PLACE and
 * MPI_BOTTOM external, so a program passes the addresses of libsimgrid's
 * mpi_in_place_ and mpi_bottom_. */
extern int mpi_in_place_ __attribute__((weak));
extern int mpi_bottom_ __attribute__((weak));
static int *const in_place_names[] = {&mpi_in_place_};
static int *const bottom_names[] = {&mpi_bottom_};
#define FORTRAN_VISIBILITY "protected" /* as intercept.c's MPI_ names */
#else
/* Open MPI's Fortran sentinels: one variable each, named as the Fortran
 * compiler mangles it (gfortran: mpi_fortran_in_place_), which libmpi's
 * own Fortran bindings compare addresses with. Weak: absent in another
 * library, where the Fortran calls then go to its own bindings. */
extern int mpi_fortran_in_place __attribute__((weak));
extern int mpi_fortran_in_place_ __attribute__((weak));
extern int mpi_fortran_in_place__ __attribute__((weak));
extern int MPI_FORTRAN_IN_PLACE __attribute__((weak));
extern int mpi_fortran_bottom __attribute__((weak));
extern int mpi_fortran_bottom_ __attribute__((weak));
extern int mpi_fortran_bottom__ __attribute__((weak));
extern int MPI_FORTRAN_BOTTOM __attribute__((weak));

static int *const in_place_names[] = {
    &mpi_fortran_in_place, &mpi_fortran_in_place_, &mpi_fortran_in_place__,
    &MPI_FORTRAN_IN_PLACE};
static int *const bottom_names[] = {&mpi_fortran_bottom, &mpi_fortran_bottom_,
                                    &mpi_fortran_bottom__, &MPI_FORTRAN_BOTTOM};
#define FORTRAN_VISIBILITY "default"
#endif
enum { N_SENTINEL_NAMES = sizeof in_place_names / sizeof in_place_names[0] };

static bool is_one_of(const void *buf, int *const names[])
{
    for (int i = 0; i < N_SENTINEL_NAMES; i++) {
        if (names[i] && buf == names[i]) {
            return true;
        }
    }
    return false;
}

/* Both sentinels can be told apart from data only if the library defines
 * at least one of the names of each. */
static bool are_sentinels_known(void)
{
    bool has_in_place = false, has_bottom = false;
    for (int i = 0; i < N_SENTINEL_NAMES; i++) {
        has_in_place = has_in_place || in_place_names[i];
        has_bottom = has_bottom || bottom_names[i];
    }
    return has_in_place && has_bottom;
}

/* The Fortran bindings defined here, in the order of their names. */
enum fortran_fn {
    F_BCAST,
    F_REDUCE,
    F_ALLREDUCE,
    F_GATHER,
    F_SCATTER,
    F_ALLGATHER,
    F_ALLTOALL,
    F_BARRIER,
    F_INIT,
    F_INIT_THREAD,
    F_FINALIZE,
    F_N_FNS
};
static const char *const fn_names[F_N_FNS] = {
    "bcast",    "reduce",  "allreduce", "gather",      "scatter", "allgather",
    "alltoall", "barrier", "init",      "init_thread", "finalize"};

typedef void fortran_fn(void);
static fortran_fn *library_fns[F_N_FNS];

/* The library's own binding of fn: the next definition after this
 * library's under the first of the names Fortran compilers use that it
 * has, or NULL. */
static fortran_fn *library_binding(enum fortran_fn fn)
{
    static const char *const suffixes[] = {"_", "", "__", "" /* upper */};
    enum { N_FORMS = sizeof suffixes / sizeof suffixes[0] };
    for (int i = 0; !library_fns[fn] && i < N_FORMS; i++) {
        char name[32];
        snprintf(name, sizeof name, "mpi_%s%s", fn_names[fn], suffixes[i]);
        for (char *c = name; i == N_FORMS - 1 && *c; c++) {
            *c = (char)toupper((unsigned char)*c);
        }
        void *p = dlsym(RTLD_NEXT, name);
        memcpy(&library_fns[fn], &p, sizeof p);
    }
    return library_fns[fn];
}

/* Calls the library's own binding of fn, of type type, with the caller's
 * arguments unchanged. */
#define FORWARD(fn, type, ierr, ...)                                           \
    do {                                                                       \
        type *library_ = (type *)library_binding(fn);                          \
        if (library_) {                                                        \
            library_(__VA_ARGS__);                                             \
        } else {                                                               \
            set_ierr(ierr, MPI_ERR_INTERN);                                    \
        }                                                                      \
    } while (0)

static void set_ierr(MPI_Fint *ierr, int rc)
{
    if (ierr) { /* mpi_f08's ierror is optional */
        *ierr = (MPI_Fint)rc;
    }
}

/* buf as the C path takes it: MPI_BOTTOM, or MPI_IN_PLACE where MPI
 * allows it (may_be_in_place). Sets *to_library when the call must go to
 * the library's own binding: the sentinels are not known. */
static void *c_buffer(void *buf, bool may_be_in_place, bool *to_library)
{
    if (!are_sentinels_known()) {
        *to_library = true;
        return buf;
    }
    if (is_one_of(buf, bottom_names)) {
        return MPI_BOTTOM;
    }
    return may_be_in_place && is_one_of(buf, in_place_names) ? MPI_IN_PLACE
                                                             : buf;
}

typedef void bcast_fn(void *, MPI_Fint *, MPI_Fint *, MPI_Fint *, MPI_Fint *,
                      MPI_Fint *);
static void fortran_bcast(void *buf, MPI_Fint *count, MPI_Fint *dtype,
                          MPI_Fint *root, MPI_Fint *comm, MPI_Fint *ierr)
{
    bool to_library = false;
    void *b = c_buffer(buf, false, &to_library);
    if (to_library) {
        FORWARD(F_BCAST, bcast_fn, ierr, buf, count, dtype, root, comm, ierr);
        return;
    }
    set_ierr(ierr, MPI_Bcast(b, *count, PMPI_Type_f2c(*dtype), *root,
                             PMPI_Comm_f2c(*comm)));
}

typedef void reduce_fn(void *, void *, MPI_Fint *, MPI_Fint *, MPI_Fint *,
                       MPI_Fint *, MPI_Fint *, MPI_Fint *);
static void fortran_reduce(void *sendbuf, void *recvbuf, MPI_Fint *count,
                           MPI_Fint *dtype, MPI_Fint *op, MPI_Fint *root,
                           MPI_Fint *comm, MPI_Fint *ierr)
{
    bool to_library = false;
    void *s = c_buffer(sendbuf, true, &to_library);
    void *r = c_buffer(recvbuf, false, &to_library);
    if (to_library) {
        FORWARD(F_REDUCE, reduce_fn, ierr, sendbuf, recvbuf, count, dtype, op,
                root, comm, ierr);
        return;
    }
    set_ierr(ierr, MPI_Reduce(s, r, *count, PMPI_Type_f2c(*dtype),
                              PMPI_Op_f2c(*op), *root, PMPI_Comm_f2c(*comm)));
}

typedef void allreduce_fn(void *, void *, MPI_Fint *, MPI_Fint *, MPI_Fint *,
                          MPI_Fint *, MPI_Fint *);
static void fortran_allreduce(void *sendbuf, void *recvbuf, MPI_Fint *count,
                              MPI_Fint *dtype, MPI_Fint *op, MPI_Fint *comm,
                              MPI_Fint *ierr)
{
    bool to_library = false;
    void *s = c_buffer(sendbuf, true, &to_library);
    void *r = c_buffer(recvbuf, false, &to_library);
    if (to_library) {
        FORWARD(F_ALLREDUCE, allreduce_fn, ierr, sendbuf, recvbuf, count, dtype,
                op, comm, ierr);
        return;
    }
    set_ierr(ierr, MPI_Allreduce(s, r, *count, PMPI_Type_f2c(*dtype),
                                 PMPI_Op_f2c(*op), PMPI_Comm_f2c(*comm)));
}

/* gather and scatter (rooted) and allgather and alltoall (root NULL): the
 * C function, and which buffer may be MPI_IN_PLACE (gather, allgather,
 * alltoall: the send buffer; scatter: the receive buffer). */
typedef int c_rooted_fn(const void *, int, MPI_Datatype, void *, int,
                        MPI_Datatype, int, MPI_Comm);
typedef int c_all_fn(const void *, int, MPI_Datatype, void *, int, MPI_Datatype,
                     MPI_Comm);
typedef void rooted_fn(void *, MPI_Fint *, MPI_Fint *, void *, MPI_Fint *,
                       MPI_Fint *, MPI_Fint *, MPI_Fint *, MPI_Fint *);
typedef void all_fn(void *, MPI_Fint *, MPI_Fint *, void *, MPI_Fint *,
                    MPI_Fint *, MPI_Fint *, MPI_Fint *);

static void blocks(enum fortran_fn fn, void *sendbuf, MPI_Fint *scount,
                   MPI_Fint *stype, void *recvbuf, MPI_Fint *rcount,
                   MPI_Fint *rtype, MPI_Fint *root, MPI_Fint *comm,
                   MPI_Fint *ierr)
{
    bool to_library = false, is_scatter = fn == F_SCATTER;
    void *s = c_buffer(sendbuf, !is_scatter, &to_library);
    void *r = c_buffer(recvbuf, is_scatter, &to_library);
    if (to_library && root) {
        FORWARD(fn, rooted_fn, ierr, sendbuf, scount, stype, recvbuf, rcount,
                rtype, root, comm, ierr);
    } else if (to_library) {
        FORWARD(fn, all_fn, ierr, sendbuf, scount, stype, recvbuf, rcount,
                rtype, comm, ierr);
    } else if (root) {
        c_rooted_fn *c = fn == F_GATHER ? MPI_Gather : MPI_Scatter;
        set_ierr(ierr, c(s, *scount, PMPI_Type_f2c(*stype), r, *rcount,
                         PMPI_Type_f2c(*rtype), *root, PMPI_Comm_f2c(*comm)));
    } else {
        c_all_fn *c = fn == F_ALLGATHER ? MPI_Allgather : MPI_Alltoall;
        set_ierr(ierr, c(s, *scount, PMPI_Type_f2c(*stype), r, *rcount,
                         PMPI_Type_f2c(*rtype), PMPI_Comm_f2c(*comm)));
    }
}

static void fortran_gather(void *sendbuf, MPI_Fint *scount, MPI_Fint *stype,
                           void *recvbuf, MPI_Fint *rcount, MPI_Fint *rtype,
                           MPI_Fint *root, MPI_Fint *comm, MPI_Fint *ierr)
{
    blocks(F_GATHER, sendbuf, scount, stype, recvbuf, rcount, rtype, root, comm,
           ierr);
}

static void fortran_scatter(void *sendbuf, MPI_Fint *scount, MPI_Fint *stype,
                            void *recvbuf, MPI_Fint *rcount, MPI_Fint *rtype,
                            MPI_Fint *root, MPI_Fint *comm, MPI_Fint *ierr)
{
    blocks(F_SCATTER, sendbuf, scount, stype, recvbuf, rcount, rtype, root,
           comm, ierr);
}

static void fortran_allgather(void *sendbuf, MPI_Fint *scount, MPI_Fint *stype,
                              void *recvbuf, MPI_Fint *rcount, MPI_Fint *rtype,
                              MPI_Fint *comm, MPI_Fint *ierr)
{
    blocks(F_ALLGATHER, sendbuf, scount, stype, recvbuf, rcount, rtype, NULL,
           comm, ierr);
}

static void fortran_alltoall(void *sendbuf, MPI_Fint *scount, MPI_Fint *stype,
                             void *recvbuf, MPI_Fint *rcount, MPI_Fint *rtype,
                             MPI_Fint *comm, MPI_Fint *ierr)
{
    blocks(F_ALLTOALL, sendbuf, scount, stype, recvbuf, rcount, rtype, NULL,
           comm, ierr);
}

typedef void barrier_fn(MPI_Fint *, MPI_Fint *);
static void fortran_barrier(MPI_Fint *comm, MPI_Fint *ierr)
{
    if (!are_sentinels_known()) {
        FORWARD(F_BARRIER, barrier_fn, ierr, comm, ierr);
        return;
    }
    set_ierr(ierr, MPI_Barrier(PMPI_Comm_f2c(*comm)));
}

static bool is_verbose(void)
{
    const char *verbose = getenv("AUTOTUNE_VERBOSE");
    return verbose && *verbose && strcmp(verbose, "0") != 0;
}

static int world_rank(void)
{
    int rank = 0;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    return rank;
}

/* Where the sentinels are not known, AUTOTUNE_VERBOSE says at MPI_Init
 * that the Fortran calls go to the library's bindings. */
static void start(int thread_level_required)
{
    if (are_sentinels_known()) {
        autotune_start(thread_level_required);
    } else if (is_verbose() && world_rank() == 0) {
        fprintf(stderr, "libautotune: Fortran: this MPI library defines no "
                        "mpi_fortran_in_place_ or no mpi_fortran_bottom_ "
                        "(Open MPI's MPI_IN_PLACE and MPI_BOTTOM): Fortran "
                        "calls go to its own bindings, tuned only where "
                        "those call the MPI_ functions\n");
    }
}

/* The library's MPI_INIT, then what intercept.c's MPI_Init does. */
typedef void init_fn(MPI_Fint *);
static void fortran_init(MPI_Fint *ierr)
{
    MPI_Fint rc = MPI_SUCCESS;
    FORWARD(F_INIT, init_fn, &rc, &rc);
    if (rc == MPI_SUCCESS) {
        start(MPI_THREAD_SINGLE);
    }
    set_ierr(ierr, rc);
}

typedef void init_thread_fn(MPI_Fint *, MPI_Fint *, MPI_Fint *);
static void fortran_init_thread(MPI_Fint *required, MPI_Fint *provided,
                                MPI_Fint *ierr)
{
    MPI_Fint rc = MPI_SUCCESS;
    FORWARD(F_INIT_THREAD, init_thread_fn, &rc, required, provided, &rc);
    if (rc == MPI_SUCCESS) {
        start(*required);
    }
    set_ierr(ierr, rc);
}

/* What intercept.c's MPI_Finalize does, then the library's MPI_FINALIZE. */
static void fortran_finalize(MPI_Fint *ierr)
{
    if (are_sentinels_known()) {
        autotune_stop();
    }
    FORWARD(F_FINALIZE, init_fn, ierr, ierr);
}

/* Every name a binding has: the four manglings of mpif.h and the mpi
 * module, and mpi_f08's (the same arguments, ierror optional). */
#define ALIAS(name, impl)                                                      \
    extern __typeof__(impl) name                                               \
        __attribute__((alias(#impl), visibility(FORTRAN_VISIBILITY)))
#define FORTRAN_NAMES(lower, upper, impl)                                      \
    ALIAS(lower, impl);                                                        \
    ALIAS(lower##_, impl);                                                     \
    ALIAS(lower##__, impl);                                                    \
    ALIAS(upper, impl);                                                        \
    ALIAS(lower##_f08_, impl)

FORTRAN_NAMES(mpi_bcast, MPI_BCAST, fortran_bcast);
FORTRAN_NAMES(mpi_reduce, MPI_REDUCE, fortran_reduce);
FORTRAN_NAMES(mpi_allreduce, MPI_ALLREDUCE, fortran_allreduce);
FORTRAN_NAMES(mpi_gather, MPI_GATHER, fortran_gather);
FORTRAN_NAMES(mpi_scatter, MPI_SCATTER, fortran_scatter);
FORTRAN_NAMES(mpi_allgather, MPI_ALLGATHER, fortran_allgather);
FORTRAN_NAMES(mpi_alltoall, MPI_ALLTOALL, fortran_alltoall);
FORTRAN_NAMES(mpi_barrier, MPI_BARRIER, fortran_barrier);
FORTRAN_NAMES(mpi_init, MPI_INIT, fortran_init);
FORTRAN_NAMES(mpi_init_thread, MPI_INIT_THREAD, fortran_init_thread);
FORTRAN_NAMES(mpi_finalize, MPI_FINALIZE, fortran_finalize);
