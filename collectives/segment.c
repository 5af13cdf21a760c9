/* Cutting a message into segments of whole elements; segment i starts at
 * element i * seg_count, so its offset is i * seg_count * extent. */
#include "collectives/internal.h"

void coll_segs_init(struct coll_segs *segs, int count, MPI_Datatype dtype,
                    int seg_bytes)
{
    int type_size = 0;

    MPI_Type_size(dtype, &type_size);
    segs->count = count;
    segs->seg_count = count;
    if (seg_bytes > 0 && type_size > 0 &&
        (long long)seg_bytes < (long long)count * type_size) {
        segs->seg_count = seg_bytes / type_size;
        if (segs->seg_count < 1) {
            segs->seg_count = 1;
        }
    }
    if (count <= 0) {
        segs->seg_count = 0;
        segs->n_segs = 0;
    } else {
        segs->n_segs = (count + segs->seg_count - 1) / segs->seg_count;
    }
}

int coll_segs_elems(const struct coll_segs *segs, int i)
{
    int rest = segs->count - i * segs->seg_count;
    return rest < segs->seg_count ? rest : segs->seg_count;
}

MPI_Aint coll_segs_offset(const struct coll_segs *segs, int i, MPI_Aint extent)
{
    return (MPI_Aint)i * segs->seg_count * extent;
}

int coll_block_start(int count, int n_blocks, int i)
{
    int rem = count % n_blocks;
    return i * (count / n_blocks) + (i < rem ? i : rem);
}
