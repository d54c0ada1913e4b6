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
    int matrix;            /* ITU-T H.273 matrix coefficients (libheif applies them turning YCbCr into RGB) */
    int full_range;        /* the nclx full-range flag */
} tc_heif_info;

/* What a decoded image says about its light, for tone mapping HDR (0: not said). */
typedef struct tc_heif_light {
    int bit_depth;                   /* of the samples tc_heif_decode16 wrote (8, 10, 12) */
    int max_content_light_level;     /* clli MaxCLL, cd/m2 */
    double max_mastering_luminance;  /* mdcv, cd/m2 */
} tc_heif_light;

tc_status tc_heif_read_header(const uint8_t *data, size_t len, tc_heif_info *info, char *msg);

/* The primary image's ICC profile: on TC_OK *icc is NULL when there is none, else malloc'd (tc_codec_free). */
tc_status tc_heif_read_icc(const uint8_t *data, size_t len, uint8_t **icc, size_t *icc_len, char *msg);

/*
 * Decodes the primary image (width x height from the header) into 8-bit RGB (3)
 * or straight RGBA (4). With `raw`, libheif's transformations (irot, imir, clap)
 * are not applied and width x height is the coded size (the ispe property), for
 * callers that apply them themselves; a plane coded sideways of it (libheif 1.15
 * writes a turned image's ispe turned) is written packed at its own size, which
 * *got_width and *got_height say. A plane of another size than asked for is
 * TC_ERR_LAYOUT (libheif 1.15 returns some rotated files unrotated).
 */
tc_status tc_heif_decode(const uint8_t *data, size_t len, uint32_t width, uint32_t height, int out_channels, int raw,
                         uint8_t *out, size_t out_capacity, size_t stride, uint32_t *got_width, uint32_t *got_height,
                         char *msg);

/*
 * As tc_heif_decode, but each sample a 16-bit little-endian word holding the
 * image's own bit depth (10 or 12 for HDR; 8-bit images widened), for tone
 * mapping; `light` says the depth and the file's light levels.
 */
tc_status tc_heif_decode16(const uint8_t *data, size_t len, uint32_t width, uint32_t height, int out_channels, int raw,
                           uint16_t *out, size_t out_capacity, size_t stride, uint32_t *got_width, uint32_t *got_height,
                           tc_heif_light *light, char *msg);

/* Whether this libheif can decode AV1 (AVIF) and HEVC (HEIC) images. */
int tc_heif_can_decode(int av1);

/*
 * Fixtures: RGB (3) or RGBA (4) rows encoded as AVIF (av1 1) or HEIC (0) at
 * `quality` (0-100), with an optional ICC profile. *out is malloc'd (tc_codec_free).
 */
tc_status tc_heif_encode(const uint8_t *pixels, uint32_t width, uint32_t height, int channels, size_t stride,
                         int av1, int quality, const uint8_t *icc, size_t icc_len,
                         uint8_t **out, size_t *out_len, char *msg);

/* What tc_heif_encode_ex writes beyond the pixels, for fixtures of what phones and cameras write. */
typedef struct tc_heif_encode_options {
    int bit_depth;                /* 8, or 10/12 with 16-bit little-endian samples in `pixels` */
    int orientation;              /* EXIF-style 1-8, written as irot/imir boxes */
    int nclx_primaries;           /* 0: no nclx box; else H.273 code points, full range */
    int nclx_transfer;
    int nclx_matrix;
    int max_content_light_level;  /* 0: no clli box */
} tc_heif_encode_options;

tc_status tc_heif_encode_ex(const uint8_t *pixels, uint32_t width, uint32_t height, int channels, size_t stride,
                            int av1, int quality, const uint8_t *icc, size_t icc_len,
                            const tc_heif_encode_options *extra, uint8_t **out, size_t *out_len, char *msg);

#endif
