#ifndef TC_GIF_H
#define TC_GIF_H
/*
 * GIF through giflib's record-level API: the first frame only.
 *
 * DGifSlurp would read every frame into memory (a 10,000-frame file is a
 * memory and CPU bomb for a thumbnail); here records are read up to the first
 * image, and later frames are only counted by skipping their compressed blocks
 * unread. giflib reports errors by return codes (no longjmp). See tc_codec.h
 * for status codes and the `msg` convention.
 */
#include "tc_codec.h"

/* Frames counted past this are not walked: the count says "at least". */
#define TC_GIF_MAX_COUNTED_FRAMES 100000

typedef struct tc_gif_info {
    uint32_t width;        /* the logical screen (canvas) */
    uint32_t height;
    int has_alpha;         /* the first frame has a transparent index or leaves part of the canvas uncovered */
    int frames;            /* frames in the file, up to TC_GIF_MAX_COUNTED_FRAMES */
    int interlaced;        /* the first frame is interlaced */
} tc_gif_info;

tc_status tc_gif_read_header(const uint8_t *data, size_t len, tc_gif_info *info, char *msg);

/*
 * The first frame composed on a transparent canvas of the header's size, as
 * 8-bit RGB (out_channels 3) or RGBA (4), rows `stride` bytes apart. Pixels
 * whose index lies outside the colour table are black, as browsers draw them.
 */
tc_status tc_gif_decode(const uint8_t *data, size_t len, int out_channels,
                        uint8_t *out, size_t out_capacity, size_t stride, char *msg);

/*
 * Fixtures: `frames` copies of one width x height frame of palette indices
 * (a 2^n-entry RGB palette, palette_count 2-256), `transparent` the index that
 * means transparent or -1, optionally interlaced. *out is malloc'd (tc_codec_free).
 */
tc_status tc_gif_encode(const uint8_t *indices, uint32_t width, uint32_t height,
                        const uint8_t *palette, int palette_count, int transparent, int interlaced, int frames,
                        uint8_t **out, size_t *out_len, char *msg);

#endif
