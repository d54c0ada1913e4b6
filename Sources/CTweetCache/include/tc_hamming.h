#ifndef TC_HAMMING_H
#define TC_HAMMING_H
#include <stddef.h>
#include <stdint.h>

/// One side of a join: 256-bit hashes (four 64-bit words each) laid out in the order of
/// a 16-bit key, `start[v]` to `start[v + 1]` being the run of hashes whose key is `v`
/// (65,537 offsets).
typedef struct {
    const uint64_t *hashes;
    const int32_t *start;
} tc_sorted_hashes;

/// Finds the pairs of a join by pieces (see PDQJoin): for each key `v` = `first`,
/// `first + step`, ... below 65,536, every hash of `left`'s run `v` against every hash of
/// `right`'s runs `v` and `v ^ (1 << bit)` for each of the 16 bits; with `same` (left and
/// right one list) each pair of runs and each pair of hashes once. Pairs at Hamming
/// distance at most `threshold` are appended to `*pairs` as positions (left, right),
/// the buffer grown with realloc (`*count` pairs in `*capacity`); release it with
/// free(). Returns 0, or -1 when memory ran out.
///
/// In C for one reason: the processor's popcount instruction. Swift cannot enable it
/// for one function (only for the whole package, with a target flag), and without it a
/// population count is some twenty instructions; the loop is compiled for it and that
/// version is picked at run time when the processor has it.
int tc_hamming_join(tc_sorted_hashes left, tc_sorted_hashes right, int same, int threshold, uint32_t first,
                    uint32_t step, uint32_t **pairs, size_t *count, size_t *capacity);

/// Releases a buffer of tc_hamming_join.
void tc_hamming_free(uint32_t *pairs);

#endif
