/* Cutting a message into segments of whole elements; segment i starts at
 * element i * seg_count, so its offset is i * seg_count * extent. */
#include "collectives/internal.h"

void coll_segs_init(struct coll_segs *segs, int count, MPI_Datatype dtype,
                    int seg_bytes)
{
    struct coll_layout layout = {0};
    int type_size = 0;

    if (coll_layout_get(dtype, &layout) == MPI_SUCCESS) {
        type_size = layout.size;
    }
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
        segs->n_segs = segs->seg_count == count
                           ? 1
                           : (count + segs->seg_count - 1) / segs->seg_count;
    }
}

int coll_block_start(int count, int n_blocks, int i)
{
    int rem = count % n_blocks;
    return i * (count / n_blocks) + (i < rem ? i : rem);
}
