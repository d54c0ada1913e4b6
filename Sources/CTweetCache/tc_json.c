#include "tc_json.h"
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/// The walk's state between blocks.
typedef struct {
    uint64_t kinds;  // bit d set when the bracket open at depth d is `{`
    int depth;
    int in_string;
    int escaped;  // inside a string, the next byte is taken by a backslash
} walk;

enum { done = 1, going = 0, broken = -1, too_deep = -2 };

/// A bracket outside strings: opens or closes a level. `done` when the outermost closes.
static inline int bracket(walk *w, uint8_t c) {
    if (c == '{' || c == '[') {
        if (w->depth >= 64) return too_deep;
        if (c == '{') w->kinds |= (uint64_t)1 << w->depth;
        else w->kinds &= ~((uint64_t)1 << w->depth);
        w->depth++;
        return going;
    }
    if (w->depth == 0) return broken;
    w->depth--;
    int object = (int)((w->kinds >> w->depth) & 1);
    if (object != (c == '}')) return broken;
    return w->depth == 0 ? done : going;
}

/// One byte, as the Swift scanner takes it.
static inline int step(walk *w, uint8_t c) {
    if (w->in_string) {
        if (w->escaped) w->escaped = 0;
        else if (c == '\\') w->escaped = 1;
        else if (c == '"') w->in_string = 0;
        return going;
    }
    if (c == '"') {
        w->in_string = 1;
        return going;
    }
    if (c == '{' || c == '[' || c == '}' || c == ']') return bracket(w, c);
    return going;
}

#if defined(__SSE2__)
/// Bit i set where byte i of the 64 at `p` equals `c`.
static inline uint64_t equal(const __m128i v[4], uint8_t c) {
    const __m128i k = _mm_set1_epi8((char)c);
    uint64_t m = 0;
    for (int i = 0; i < 4; i++) m |= (uint64_t)(uint16_t)_mm_movemask_epi8(_mm_cmpeq_epi8(v[i], k)) << (16 * i);
    return m;
}

/// Bit i set when an odd number of bits 0...i of `x` are: inside a string, from its quotes.
static inline uint64_t running_parity(uint64_t x) {
    x ^= x << 1;
    x ^= x << 2;
    x ^= x << 4;
    x ^= x << 8;
    x ^= x << 16;
    x ^= x << 32;
    return x;
}
#endif

ptrdiff_t tc_json_container_end(const uint8_t *bytes, size_t count, size_t start) {
    if (start >= count || (bytes[start] != '{' && bytes[start] != '[')) return broken;
    walk w = {0, 0, 0, 0};
    int r = bracket(&w, bytes[start]);
    size_t i = start + 1;
#if defined(__SSE2__)
    while (i + 64 <= count) {
        const uint8_t *p = bytes + i;
        __m128i v[4];
        for (int k = 0; k < 4; k++) v[k] = _mm_loadu_si128((const __m128i *)(p + 16 * k));
        uint64_t backslashes = equal(v, '\\');
        if (backslashes != 0 || w.escaped) {
            // Escapes: byte by byte, as the reference does.
            for (int k = 0; k < 64; k++) {
                r = step(&w, p[k]);
                if (r == done) return (ptrdiff_t)(i + (size_t)k + 1);
                if (r < 0) return r;
            }
            i += 64;
            continue;
        }
        uint64_t quotes = equal(v, '"');
        // `{` and `[` differ by one bit (0x20), as do `}` and `]`.
        __m128i folded[4];
        const __m128i bit = _mm_set1_epi8(0x20);
        for (int k = 0; k < 4; k++) folded[k] = _mm_or_si128(v[k], bit);
        uint64_t brackets = equal(folded, '{') | equal(folded, '}');
        uint64_t inside = running_parity(quotes) ^ (w.in_string ? ~(uint64_t)0 : 0);
        // A quote's own bit says which side of it the string is; brackets are never quotes.
        uint64_t outside = brackets & ~inside;
        while (outside != 0) {
            int k = __builtin_ctzll(outside);
            r = bracket(&w, p[k]);
            if (r == done) return (ptrdiff_t)(i + (size_t)k + 1);
            if (r < 0) return r;
            outside &= outside - 1;
        }
        w.in_string = (int)(inside >> 63);
        i += 64;
    }
#else
    // Without SSE2 the Swift walk, eight bytes at a time through strings, is the faster.
    return too_deep;
#endif
    (void)r;
    for (; i < count; i++) {
        r = step(&w, bytes[i]);
        if (r == done) return (ptrdiff_t)(i + 1);
        if (r < 0) return r;
    }
    return broken;
}
