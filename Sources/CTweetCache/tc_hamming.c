#include "tc_hamming.h"

static inline int32_t find(int32_t *parent, int32_t x) {
    while (parent[x] != x) {
        parent[x] = parent[parent[x]];
        x = parent[x];
    }
    return x;
}

static inline void unite(int32_t *parent, int32_t a, int32_t b) {
    int32_t ra = find(parent, a), rb = find(parent, b);
    if (ra < rb) parent[rb] = ra;
    else if (rb < ra) parent[ra] = rb;
}

#define TC_RUNS(POPCOUNT)                                                                            \
    for (int32_t i = a0; i < a1; i++) {                                                              \
        const uint64_t *x = left.hashes + 4 * (size_t)i;                                             \
        const uint64_t x0 = x[0], x1 = x[1], x2 = x[2], x3 = x[3];                                   \
        for (int32_t j = (within ? i + 1 : b0); j < b1; j++) {                                       \
            const uint64_t *y = right.hashes + 4 * (size_t)j;                                        \
            /* Half the hash first: two unrelated hashes differ in about 64 of its 128 bits, */      \
            /* so the rest is read for one pair in thousands (a branch almost always taken). */      \
            int d = POPCOUNT(x0 ^ y[0]) + POPCOUNT(x1 ^ y[1]);                                       \
            if (d > threshold) continue;                                                             \
            d += POPCOUNT(x2 ^ y[2]) + POPCOUNT(x3 ^ y[3]);                                          \
            if (d <= threshold) {                                                                    \
                matched++;                                                                           \
                if (left.slots[i] != right.slots[j]) unite(parent, left.slots[i], right.slots[j]);  \
            }                                                                                        \
        }                                                                                            \
    }

#define TC_JOIN_BODY(POPCOUNT)                                                                       \
    int64_t matched = 0;                                                                             \
    for (uint32_t v = first; v < 65536; v += step) {                                                 \
        int32_t a0 = left.start[v], a1 = left.start[v + 1];                                          \
        if (a0 >= a1) continue;                                                                      \
        {                                                                                            \
            int within = same;                                                                       \
            int32_t b0 = right.start[v], b1 = right.start[v + 1];                                    \
            TC_RUNS(POPCOUNT)                                                                        \
        }                                                                                            \
        for (int bit = 0; bit < 16; bit++) {                                                         \
            uint32_t other = v ^ (1u << bit);                                                        \
            if (same && other < v) continue;                                                         \
            int within = 0;                                                                          \
            int32_t b0 = right.start[other], b1 = right.start[other + 1];                            \
            if (b0 >= b1) continue;                                                                  \
            TC_RUNS(POPCOUNT)                                                                        \
        }                                                                                            \
    }                                                                                                \
    return matched;

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
__attribute__((target("popcnt")))
static int64_t join_popcnt(tc_sorted_hashes left, tc_sorted_hashes right, int same, int threshold, uint32_t first,
                           uint32_t step, int32_t *parent) {
    TC_JOIN_BODY(__builtin_popcountll)
}
#endif

static int64_t join_portable(tc_sorted_hashes left, tc_sorted_hashes right, int same, int threshold, uint32_t first,
                             uint32_t step, int32_t *parent) {
    TC_JOIN_BODY(__builtin_popcountll)
}

int64_t tc_hamming_join(tc_sorted_hashes left, tc_sorted_hashes right, int same, int threshold, uint32_t first,
                        uint32_t step, int32_t *parent) {
    if (step == 0) return 0;
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    static int has_popcnt = -1;
    if (has_popcnt < 0) {
        __builtin_cpu_init();
        has_popcnt = __builtin_cpu_supports("popcnt") ? 1 : 0;
    }
    if (has_popcnt) return join_popcnt(left, right, same, threshold, first, step, parent);
#endif
    return join_portable(left, right, same, threshold, first, step, parent);
}
