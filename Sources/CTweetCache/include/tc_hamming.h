#ifndef TC_HAMMING_H
#define TC_HAMMING_H
#include <stddef.h>
#include <stdint.h>

/// One side of a join: 256-bit hashes (four 64-bit words each) laid out in the order of
/// a 16-bit key, `start[v]` to `start[v + 1]` being the run of hashes whose key is `v`
/// (65,537 offsets), and `slots[i]` the number of the image the `i`-th hash belongs to.
typedef struct {
    const uint64_t *hashes;
    const int32_t *start;
    const int32_t *slots;
} tc_sorted_hashes;

/// Joins two lists of hashes sorted by a 16-bit piece (see PDQJoin): for each key `v` =
/// `first`, `first + step`, ... below 65,536, every hash of `left`'s run `v` against
/// every hash of `right`'s runs `v` and `v ^ (1 << bit)` for each of the 16 bits; with
/// `same` (left and right one list) each pair of runs and each pair of hashes once.
///
/// Each pair at Hamming distance at most `threshold` joins its two images in `parent`,
/// a union-find over image numbers (path halving; the smaller root wins), so a picture
/// reposted ten thousand times costs no list of fifty million pairs. Returns how many
/// pairs matched. `parent` belongs to the caller's thread alone.
///
/// In C for one reason: the processor's popcount instruction. Swift cannot enable it
/// for one function (only for the whole package, with a target flag), and without it a
/// population count is some twenty instructions; the loop is compiled for it and that
/// version is picked at run time when the processor has it.
int64_t tc_hamming_join(tc_sorted_hashes left, tc_sorted_hashes right, int same, int threshold, uint32_t first,
                        uint32_t step, int32_t *parent);

#endif
