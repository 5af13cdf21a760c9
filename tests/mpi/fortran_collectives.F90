! The eight collectives called from Fortran, through mpif.h, the mpi module
! (-DUSE_MPI) or mpi_f08 (-DUSE_F08), on a communicator whose ranks are
! reversed from MPI_COMM_WORLD's: roots 0 and P-1, counts 1, 7 and 1009
! (a prime), MPI_IN_PLACE wherever MPI allows it, a non-commutative
! reduction (2x2 matrices mod 1009 on a derived type) and MPI_BOTTOM (on
! every rank, then on the root only); every result is compared with values
! computed here. Rank 0 prints the calls made per collective (summed over
! ranks) for the AUTOTUNE_VERBOSE counts of libautotune, which the test
! preloads.
! Usage: fortran_collectives [no-bottom]   (no MPI_BOTTOM call: SimGrid
! 3.32's own bcast crashes on one)
#ifdef USE_F08
#define HANDLE(kind) type(kind)
#else
#define HANDLE(kind) integer
#endif

module matrix_op
#ifdef USE_F08
    use mpi_f08
#endif
    implicit none
    integer, parameter :: mat_prime = 1009
contains
    ! c = a x b, 2x2 matrices stored (a11, a12, a21, a22), mod mat_prime.
    pure function mat_mul(a, b) result(c)
        integer, intent(in) :: a(4), b(4)
        integer :: c(4)
        c(1) = mod(a(1) * b(1) + a(2) * b(3), mat_prime)
        c(2) = mod(a(1) * b(2) + a(2) * b(4), mat_prime)
        c(3) = mod(a(3) * b(1) + a(4) * b(3), mat_prime)
        c(4) = mod(a(3) * b(2) + a(4) * b(4), mat_prime)
    end function

    ! inout = in x inout: associative, not commutative.
#ifdef USE_F08
    subroutine mat_op(invec, inoutvec, len, datatype) bind(C)
        use, intrinsic :: iso_c_binding, only: c_ptr, c_f_pointer
        type(c_ptr), value :: invec, inoutvec
        integer :: len
        type(MPI_Datatype) :: datatype
        integer, pointer :: a(:, :), b(:, :)
        integer :: i
        call c_f_pointer(invec, a, [4, len])
        call c_f_pointer(inoutvec, b, [4, len])
#else
    subroutine mat_op(a, b, len, datatype)
        integer :: len, datatype
        integer :: a(4, len), b(4, len)
        integer :: i
#endif
        do i = 1, len
            b(:, i) = mat_mul(a(:, i), b(:, i))
        end do
    end subroutine
end module

program fortran_collectives
#if defined(USE_F08)
    use mpi_f08
#elif defined(USE_MPI)
    use mpi
#endif
    use matrix_op
    implicit none
#if !defined(USE_F08) && !defined(USE_MPI)
    include 'mpif.h'
#endif
    integer, parameter :: n_counts = 3, counts(n_counts) = [1, 7, 1009]
    integer, parameter :: max_count = 1009, max_procs = 16
    character(len=9), parameter :: names(8) = [character(len=9) :: &
        'bcast', 'reduce', 'allreduce', 'gather', 'scatter', 'allgather', &
        'alltoall', 'barrier']
    integer :: calls(8), all_calls(8), checks, failed, all_failed
    integer :: ierr, world_rank, rank, nprocs, c, n, root, r, i, k
    integer :: buf(max_count), res(max_count), mats(4, max_count)
    integer :: mres(4, max_count), want(4)
    integer :: blocks(max_count * max_procs), rblocks(max_count * max_procs)
    integer :: bottom_a(3), bottom_b(2)
    integer(kind=MPI_ADDRESS_KIND) :: disp(2)
    character(len=16) :: arg
    HANDLE(MPI_Comm) :: comm
    HANDLE(MPI_Datatype) :: mat_type, bottom_type
    HANDLE(MPI_Op) :: mat_op_handle

    calls = 0
    checks = 0
    failed = 0
    call MPI_Init(ierr)
    call check_ierr('MPI_Init')
    call MPI_Comm_rank(MPI_COMM_WORLD, world_rank, ierr)
    call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
    if (nprocs > max_procs) then
        print '(a,i0,a)', 'fortran_collectives: at most ', max_procs, ' ranks'
        call MPI_Abort(MPI_COMM_WORLD, 2, ierr)
    end if
    ! Ranks reversed: a handle taken for MPI_COMM_WORLD shows in the data.
    call MPI_Comm_split(MPI_COMM_WORLD, 0, nprocs - world_rank, comm, ierr)
    call MPI_Comm_rank(comm, rank, ierr)
    call MPI_Type_contiguous(4, MPI_INTEGER, mat_type, ierr)
    call MPI_Type_commit(mat_type, ierr)
    call MPI_Op_create(mat_op, .false., mat_op_handle, ierr)

    do c = 1, n_counts
        n = counts(c)
        do k = 0, 1
            root = k * (nprocs - 1)
            call run_bcast()
            call run_reduce()
            call run_gather()
            call run_scatter()
        end do
        call run_allreduce()
        call run_allgather()
        call run_alltoall()
    end do
#ifdef USE_F08
    call MPI_Barrier(comm) ! ierror is optional in mpi_f08
#else
    call MPI_Barrier(comm, ierr)
    call check_ierr('MPI_Barrier')
#endif
    calls(8) = calls(8) + 1
    call get_command_argument(1, arg)
    if (arg /= 'no-bottom') call run_bottom()

    call MPI_Reduce(calls, all_calls, 8, MPI_INTEGER, MPI_SUM, 0, comm, ierr)
    call MPI_Reduce(failed, all_failed, 1, MPI_INTEGER, MPI_SUM, 0, comm, ierr)
    if (rank == 0) then
        all_calls(2) = all_calls(2) + 2 * nprocs ! these two reduces
        do i = 1, 8
            print '(a,a,a,i0)', 'fortran_collectives: calls ', &
                trim(names(i)), ' ', all_calls(i)
        end do
        print '(a,i0,a,i0,a,i0,a)', 'fortran_collectives: P=', nprocs, ': ', &
            checks, ' checks on rank 0, ', all_failed, ' failed'
    end if
    call MPI_Op_free(mat_op_handle, ierr)
    call MPI_Type_free(mat_type, ierr)
    call MPI_Comm_free(comm, ierr)
    call MPI_Finalize(ierr)
    if (rank == 0 .and. all_failed > 0) stop 1

contains

    ! An element of rank r's data: distinct over ranks and positions.
    pure integer function val(r, i)
        integer, intent(in) :: r, i
        val = r * 10000 + i
    end function

    ! Rank r's i-th matrix, entries in [0, mat_prime).
    pure function mat(r, i) result(m)
        integer, intent(in) :: r, i
        integer :: m(4)
        m = [mod(r + i, 7) + 1, mod(3 * r + i, 5), mod(5 * r + 2 * i, 11), &
             mod(r + 3 * i, 13) + 1]
    end function

    subroutine check_ierr(what)
        character(len=*), intent(in) :: what
        if (ierr /= MPI_SUCCESS) then
            print '(a,i0,a,a,a,i0)', 'fortran_collectives: rank ', rank, &
                ': ', what, ': ierror ', ierr
            failed = failed + 1
        end if
    end subroutine

    ! Collective k was called: counted, its ierror checked.
    subroutine called(k, what)
        integer, intent(in) :: k
        character(len=*), intent(in) :: what
        calls(k) = calls(k) + 1
        call check_ierr(what)
    end subroutine

    subroutine expect(what, i, got, wanted)
        character(len=*), intent(in) :: what
        integer, intent(in) :: i, got, wanted
        checks = checks + 1
        if (got /= wanted) then
            failed = failed + 1
            if (failed <= 10) then
                print '(a,i0,a,a,a,i0,a,i0,a,i0,a,i0,a,i0)', &
                    'fortran_collectives: rank ', rank, ': ', what, &
                    ' count ', n, ' root ', root, ' element ', i, &
                    ': expected ', wanted, ', got ', got
            end if
        end if
    end subroutine

    subroutine run_bcast()
        buf(1:n) = [(val(rank, i), i = 1, n)]
        call MPI_Bcast(buf, n, MPI_INTEGER, root, comm, ierr)
        call called(1, 'MPI_Bcast')
        do i = 1, n
            call expect('MPI_Bcast', i, buf(i), val(root, i))
        end do
    end subroutine

    ! Sum (MPI_IN_PLACE at the root on the second call) and the
    ! non-commutative product, whose result is M(0) x ... x M(P-1).
    subroutine run_reduce()
        integer :: in_place
        do in_place = 0, 1
            buf(1:n) = [(val(rank, i), i = 1, n)]
            res(1:n) = -1
            if (in_place == 1 .and. rank == root) then
                res(1:n) = buf(1:n)
                call MPI_Reduce(MPI_IN_PLACE, res, n, MPI_INTEGER, MPI_SUM, &
                                root, comm, ierr)
            else
                call MPI_Reduce(buf, res, n, MPI_INTEGER, MPI_SUM, root, &
                                comm, ierr)
            end if
            call called(2, 'MPI_Reduce')
            if (rank == root) then
                do i = 1, n
                    call expect('MPI_Reduce sum', i, res(i), &
                                sum([(val(r, i), r = 0, nprocs - 1)]))
                end do
            end if
        end do
        mats(:, 1:n) = reshape([(mat(rank, i), i = 1, n)], [4, n])
        call MPI_Reduce(mats, mres, n, mat_type, mat_op_handle, root, comm, &
                        ierr)
        call called(2, 'MPI_Reduce')
        if (rank == root) then
            call expect_product('MPI_Reduce product')
        end if
    end subroutine

    subroutine run_allreduce()
        integer :: in_place
        do in_place = 0, 1
            buf(1:n) = [(val(rank, i), i = 1, n)]
            if (in_place == 1) then
                res(1:n) = buf(1:n)
                call MPI_Allreduce(MPI_IN_PLACE, res, n, MPI_INTEGER, &
                                   MPI_SUM, comm, ierr)
            else
                call MPI_Allreduce(buf, res, n, MPI_INTEGER, MPI_SUM, comm, &
                                   ierr)
            end if
            call called(3, 'MPI_Allreduce')
            do i = 1, n
                call expect('MPI_Allreduce sum', i, res(i), &
                            sum([(val(r, i), r = 0, nprocs - 1)]))
            end do
        end do
        mats(:, 1:n) = reshape([(mat(rank, i), i = 1, n)], [4, n])
        call MPI_Allreduce(mats, mres, n, mat_type, mat_op_handle, comm, ierr)
        call called(3, 'MPI_Allreduce')
        call expect_product('MPI_Allreduce product')
    end subroutine

    ! mres(:, i) is M(0, i) x ... x M(P-1, i), in that order.
    subroutine expect_product(what)
        character(len=*), intent(in) :: what
        do i = 1, n
            want = mat(0, i)
            do r = 1, nprocs - 1
                want = mat_mul(want, mat(r, i))
            end do
            do r = 1, 4
                call expect(what, i, mres(r, i), want(r))
            end do
        end do
    end subroutine

    ! Rank r's block lands at r * n; in place, the root's block is there.
    subroutine run_gather()
        integer :: in_place
        do in_place = 0, 1
            buf(1:n) = [(val(rank, i), i = 1, n)]
            rblocks(1:n * nprocs) = -1
            if (in_place == 1 .and. rank == root) then
                rblocks(root * n + 1:root * n + n) = buf(1:n)
                call MPI_Gather(MPI_IN_PLACE, n, MPI_INTEGER, rblocks, n, &
                                MPI_INTEGER, root, comm, ierr)
            else
                call MPI_Gather(buf, n, MPI_INTEGER, rblocks, n, MPI_INTEGER, &
                                root, comm, ierr)
            end if
            call called(4, 'MPI_Gather')
            if (rank == root) then
                call expect_blocks('MPI_Gather', 0)
            end if
        end do
    end subroutine

    ! rblocks holds P blocks of n, block r val(r, i) + add.
    subroutine expect_blocks(what, add)
        character(len=*), intent(in) :: what
        integer, intent(in) :: add
        do r = 0, nprocs - 1
            do i = 1, n
                call expect(what, r * n + i, rblocks(r * n + i), val(r, i) + add)
            end do
        end do
    end subroutine

    ! The root's block r goes to rank r; in place, the root keeps its own.
    subroutine run_scatter()
        integer :: in_place
        do in_place = 0, 1
            do r = 0, nprocs - 1
                blocks(r * n + 1:r * n + n) = [(val(r, i) + rank, i = 1, n)]
            end do
            res(1:n) = -1
            if (in_place == 1 .and. rank == root) then
                call MPI_Scatter(blocks, n, MPI_INTEGER, MPI_IN_PLACE, n, &
                                 MPI_INTEGER, root, comm, ierr)
                res(1:n) = blocks(root * n + 1:root * n + n)
            else
                call MPI_Scatter(blocks, n, MPI_INTEGER, res, n, MPI_INTEGER, &
                                 root, comm, ierr)
            end if
            call called(5, 'MPI_Scatter')
            do i = 1, n
                call expect('MPI_Scatter', i, res(i), val(rank, i) + root)
            end do
        end do
    end subroutine

    subroutine run_allgather()
        integer :: in_place
        do in_place = 0, 1
            buf(1:n) = [(val(rank, i), i = 1, n)]
            rblocks(1:n * nprocs) = -1
            if (in_place == 1) then
                rblocks(rank * n + 1:rank * n + n) = buf(1:n)
                call MPI_Allgather(MPI_IN_PLACE, n, MPI_INTEGER, rblocks, n, &
                                   MPI_INTEGER, comm, ierr)
            else
                call MPI_Allgather(buf, n, MPI_INTEGER, rblocks, n, &
                                   MPI_INTEGER, comm, ierr)
            end if
            call called(6, 'MPI_Allgather')
            call expect_blocks('MPI_Allgather', 0)
        end do
    end subroutine

    ! Block j of rank r holds val(r, i) + 100 * j; rank j receives it as
    ! its block r.
    subroutine run_alltoall()
        do r = 0, nprocs - 1
            blocks(r * n + 1:r * n + n) = [(val(rank, i) + 100 * r, i = 1, n)]
        end do
        rblocks(1:n * nprocs) = -1
        call MPI_Alltoall(blocks, n, MPI_INTEGER, rblocks, n, MPI_INTEGER, &
                          comm, ierr)
        call called(7, 'MPI_Alltoall')
        call expect_blocks('MPI_Alltoall', 100 * rank)
    end subroutine

    ! MPI_BOTTOM with a datatype of absolute addresses (two arrays): the
    ! root's values reach every rank; then from the root's MPI_BOTTOM into
    ! the others' array (MPI asks only the type signatures to match).
    subroutine run_bottom()
        integer :: lens(2)
        HANDLE(MPI_Datatype) :: types(2)
        root = nprocs - 1
        n = 5
        bottom_a = [(val(rank, i), i = 1, 3)]
        bottom_b = [(val(rank, i), i = 4, 5)]
        call MPI_Get_address(bottom_a, disp(1), ierr)
        call MPI_Get_address(bottom_b, disp(2), ierr)
        lens = [3, 2]
        types = [MPI_INTEGER, MPI_INTEGER]
        call MPI_Type_create_struct(2, lens, disp, types, bottom_type, ierr)
        call MPI_Type_commit(bottom_type, ierr)
        call MPI_Bcast(MPI_BOTTOM, 1, bottom_type, root, comm, ierr)
        call called(1, 'MPI_Bcast MPI_BOTTOM')
        do i = 1, 3
            call expect('MPI_Bcast MPI_BOTTOM', i, bottom_a(i), val(root, i))
        end do
        do i = 4, 5
            call expect('MPI_Bcast MPI_BOTTOM', i, bottom_b(i - 3), &
                        val(root, i))
        end do
        bottom_a = [(val(rank, i) + 1, i = 1, 3)]
        bottom_b = [(val(rank, i) + 1, i = 4, 5)]
        buf(1:n) = [(val(rank, i) + 1, i = 1, n)]
        if (rank == root) then
            call MPI_Bcast(MPI_BOTTOM, 1, bottom_type, root, comm, ierr)
        else
            call MPI_Bcast(buf, n, MPI_INTEGER, root, comm, ierr)
            do i = 1, n
                call expect('MPI_Bcast from MPI_BOTTOM', i, buf(i), &
                            val(root, i) + 1)
            end do
        end if
        call called(1, 'MPI_Bcast from MPI_BOTTOM')
        call MPI_Type_free(bottom_type, ierr)
    end subroutine
end program
