#ifndef TC_CODEC_PRIVATE_H
#define TC_CODEC_PRIVATE_H
/* Helpers shared by tc_jpeg.c and tc_png.c; not part of the Swift-visible API. */
#include <stddef.h>
#include <stdint.h>
#include "tc_codec.h"

/* printf into the caller's message buffer; NULL `msg` is ignored. */
void tc_set_msg(char *msg, const char *format, ...) __attribute__((format(printf, 2, 3)));

/* a * b into *out; returns 0 when the product does not fit in size_t. */
static inline int tc_mul_size(size_t a, size_t b, size_t *out) {
    return !__builtin_mul_overflow(a, b, out);
}

/* Whether `height` rows of `row_bytes` each, `stride` apart, fit in `capacity`. */
static inline int tc_rows_fit(size_t row_bytes, size_t height, size_t stride, size_t capacity) {
    size_t span;
    if (height == 0 || stride < row_bytes) return 0;
    if (!tc_mul_size(height - 1, stride, &span)) return 0;
    if (__builtin_add_overflow(span, row_bytes, &span)) return 0;
    return span <= capacity;
}

#endif
