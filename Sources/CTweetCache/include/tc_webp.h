#ifndef TC_WEBP_H
#define TC_WEBP_H
/*
 * WebP through libwebp (decode, encode), libwebpdemux (ICC chunk, animation)
 * and libwebpmux (writing ICC chunks and animations for fixtures).
 *
 * libwebp reports errors by return codes, so no setjmp is needed; the shim
 * exists to keep its structs' versioned init macros and the animation and
 * container APIs out of Swift, and to give the same header-then-pixels split
 * as tc_jpeg.h: the caller checks its pixel limit from tc_webp_read_header
 * before any pixel memory exists. See tc_codec.h for status codes.
 */
#include "tc_codec.h"

/* Largest width or height a WebP can have (libwebp's WEBP_MAX_DIMENSION). */
#define TC_WEBP_MAX_DIMENSION 16383

typedef struct tc_webp_info {
    uint32_t width;    /* canvas size: the image, or an animation's canvas */
    uint32_t height;
    int has_alpha;     /* the VP8X alpha flag or a lossless image with alpha */
    int animated;      /* 1: an animation; decoding yields its first frame, composed on the canvas */
    int frames;        /* frames in the file (1 for a still image) */
    int lossless;      /* 1: VP8L, 0: lossy VP8 or mixed */
    int orientation;   /* EXIF orientation 1-8 from an EXIF chunk, 1 when absent or unreadable */
} tc_webp_info;

tc_status tc_webp_read_header(const uint8_t *data, size_t len, tc_webp_info *info, char *msg);

/* The ICCP chunk's profile: on TC_OK *icc is NULL when there is none, else malloc'd (tc_codec_free). */
tc_status tc_webp_read_icc(const uint8_t *data, size_t len, uint8_t **icc, size_t *icc_len, char *msg);

/*
 * Decodes a still image scaled to width x height (libwebp's area-averaging
 * rescaler: shrink-on-load; pass the header's size for none), or an
 * animation's first frame at full canvas size, into the caller's buffer:
 * 8-bit RGB (out_channels 3) or straight (not premultiplied) RGBA (4), rows
 * `stride` bytes apart.
 */
tc_status tc_webp_decode(const uint8_t *data, size_t len, uint32_t width, uint32_t height, int out_channels,
                         uint8_t *out, size_t out_capacity, size_t stride, char *msg);

typedef struct tc_webp_encode_options {
    float quality;          /* 0-100; for lossless, the effort */
    int lossless;           /* 1: VP8L */
    const uint8_t *icc;     /* NULL, or a profile written as an ICCP chunk */
    size_t icc_len;
    int exif_orientation;   /* 0: none; 1-8: an EXIF chunk recording this orientation (pixels unchanged) */
} tc_webp_encode_options;

/* Encodes RGB (3) or RGBA (4) rows; *out is malloc'd (tc_codec_free). */
tc_status tc_webp_encode(const uint8_t *pixels, uint32_t width, uint32_t height, int channels, size_t stride,
                         const tc_webp_encode_options *options, uint8_t **out, size_t *out_len, char *msg);

/* An animation of `frames` RGBA frames of width x height, packed one after another; for fixtures. */
tc_status tc_webp_encode_animation(const uint8_t *rgba, uint32_t width, uint32_t height, int frames,
                                   int frame_ms, int lossless, uint8_t **out, size_t *out_len, char *msg);

#endif
