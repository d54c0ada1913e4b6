#ifndef TC_HEIF_H
#define TC_HEIF_H
/*
 * HEIF and AVIF through libheif (HEVC by libde265, AV1 by dav1d or libaom):
 * the primary image, with its container transformations (rotation, mirror,
 * crop) applied, converted to 8-bit interleaved RGB(A).
 *
 * libheif is C++ behind a C API that returns struct heif_error: no longjmp,
 * no exceptions across the boundary. Same split as the other codecs: the
 * header (size, alpha, colour description) first, pixels into the caller's
 * buffer after the caller's limits pass. See tc_codec.h for status codes.
 */
#include "tc_codec.h"

typedef struct tc_heif_info {
    uint32_t width;        /* of the primary image after its transformations */
    uint32_t height;
    int has_alpha;
    int bit_depth;         /* luma bits per sample (8, 10, 12); decoding reduces to 8 */
    int av1;               /* 1: AV1-coded (AVIF), 0: HEVC or other */
    int has_icc;           /* an ICC profile (colr prof/rICC) */
    int has_nclx;          /* an nclx colr box: `primaries` and `transfer` are its code points */
    int primaries;         /* ITU-T H.273 colour primaries (1 = BT.709/sRGB, 12 = Display P3) */
    int transfer;          /* ITU-T H.273 transfer characteristics (13 = sRGB, 16 = PQ, 18 = HLG) */
    double xy[8];          /* the primaries as chromaticities: white x, y, then red, green, blue x, y */
} tc_heif_info;

tc_status tc_heif_read_header(const uint8_t *data, size_t len, tc_heif_info *info, char *msg);

/* The primary image's ICC profile: on TC_OK *icc is NULL when there is none, else malloc'd (tc_codec_free). */
tc_status tc_heif_read_icc(const uint8_t *data, size_t len, uint8_t **icc, size_t *icc_len, char *msg);

/* Decodes the primary image (width x height from the header) into 8-bit RGB (3) or straight RGBA (4). */
tc_status tc_heif_decode(const uint8_t *data, size_t len, uint32_t width, uint32_t height, int out_channels,
                         uint8_t *out, size_t out_capacity, size_t stride, char *msg);

/* Whether this libheif can decode AV1 (AVIF) and HEVC (HEIC) images. */
int tc_heif_can_decode(int av1);

/*
 * Fixtures: RGB (3) or RGBA (4) rows encoded as AVIF (av1 1) or HEIC (0) at
 * `quality` (0-100), with an optional ICC profile. *out is malloc'd (tc_codec_free).
 */
tc_status tc_heif_encode(const uint8_t *pixels, uint32_t width, uint32_t height, int channels, size_t stride,
                         int av1, int quality, const uint8_t *icc, size_t icc_len,
                         uint8_t **out, size_t *out_len, char *msg);

#endif
