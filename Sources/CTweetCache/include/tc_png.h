#ifndef TC_PNG_H
#define TC_PNG_H
/*
 * PNG decode and encode through libpng's classic API, with every setjmp in C.
 *
 * The classic API rather than png_image_*: the simplified API treats 16-bit
 * samples as linear light and gamma-converts them, while we want the stored
 * values scaled to 8 bits. Decoding is split in two (header, then pixels into
 * the caller's buffer) so limits are checked before any pixel memory exists.
 * See tc_codec.h for status codes and the `msg` convention.
 */
#include "tc_codec.h"
#include "tc_color.h"

/* Most memory one ancillary chunk (iCCP, zTXt, ...) may take once inflated: guards against chunk bombs. */
#define TC_PNG_CHUNK_MALLOC_MAX (8u * 1024u * 1024u)

typedef struct tc_png_info {
    uint32_t width;     /* pixels; up to 2^31 - 1, so callers must apply their own pixel limit */
    uint32_t height;
    int bit_depth;      /* bits per sample (per palette index for colour type 3): 1, 2, 4, 8 or 16 */
    int color_type;     /* 0 gray, 2 RGB, 3 palette, 4 gray + alpha, 6 RGBA */
    int interlaced;     /* 1 for Adam7 */
    int has_alpha;      /* alpha channel or tRNS chunk: decodes naturally to 4 channels */
    int orientation;    /* EXIF orientation 1-8 from an eXIf chunk before the image data, 0 when none */
} tc_png_info;

/* Reads the signature and the chunks before the first IDAT; inflates no image data. */
tc_status tc_png_read_header(const uint8_t *data, size_t len, tc_png_info *info, char *msg);

/* How a PNG says what its colours mean; the PNG spec's precedence is iCCP, then sRGB, then gAMA/cHRM. */
typedef struct tc_png_color {
    uint8_t *icc;       /* the iCCP profile, inflated (malloc'd: free with tc_codec_free), or NULL */
    size_t icc_len;
    int srgb;           /* 1: an sRGB chunk */
    int has_gamma;      /* 1: a gAMA chunk */
    double gamma;       /* as stored: the encoding exponent, 0.45455 for a 2.2 display gamma */
    int has_chrm;       /* 1: a cHRM chunk */
    double chrm[8];     /* white x, y, then red, green, blue x, y */
} tc_png_color;

/* Reads the colour chunks before the first IDAT. */
tc_status tc_png_read_color(const uint8_t *data, size_t len, tc_png_color *color, char *msg);

/*
 * Decodes into the caller's buffer, normalised to 8-bit RGB (out_channels 3)
 * or RGBA (4): palettes expanded, tRNS turned into alpha, 1/2/4-bit gray
 * expanded, 16-bit scaled (not gamma-converted), gray copied to RGB, Adam7
 * de-interlaced; alpha is added (opaque) or dropped to match out_channels.
 * Rows are `stride` bytes apart. An image larger than the buffer is refused
 * from its header (TC_ERR_LIMIT). `warnings` (may be NULL) receives how many
 * non-fatal problems libpng reported, e.g. a bad CRC on an ancillary chunk.
 *
 * With a `transform` (to out_channels), every row is converted to sRGB as it is
 * read. Its input must be 16-bit big-endian (RGB16_BE / RGBA16_BE matching
 * out_channels) for a non-interlaced 16-bit PNG, whose samples then reach the
 * transform unrounded, and 8-bit (RGB8 / RGBA8) otherwise.
 */
/* On TC_OK with warnings, `msg` holds the first one (an ancillary chunk's "CRC error": the chunk was skipped). */
tc_status tc_png_decode(const uint8_t *data, size_t len, int out_channels,
                        uint8_t *out, size_t out_capacity, size_t stride,
                        const tc_color_transform *transform,
                        long *warnings, char *msg);

/*
 * Encodes 8-bit RGB (channels 3) or RGBA (4) rows `stride` bytes apart.
 * compression_level is zlib's 0-9: 1-3 are several times faster (and use
 * only the cheap None/Sub/Up row filters) and fine for tiles, 6 is the usual
 * balance. The file carries an sRGB chunk: what TweetCache writes is sRGB.
 * On TC_OK, *out is a malloc'd buffer of *out_len
 * bytes to free with tc_codec_free; on failure *out is NULL.
 */
tc_status tc_png_encode(const uint8_t *pixels, uint32_t width, uint32_t height, int channels,
                        size_t stride, int compression_level,
                        uint8_t **out, size_t *out_len, char *msg);

/*
 * Any PNG colour type and bit depth, for fixtures our decoder must handle but
 * the normal encoder never writes (palette, low-bit gray, 16-bit, tRNS, Adam7).
 */
typedef struct tc_png_raw_format {
    int color_type;             /* 0, 2, 3, 4 or 6 */
    int bit_depth;              /* as the PNG spec allows for the colour type */
    int interlaced;             /* 1 writes Adam7 */
    const uint8_t *palette;     /* colour type 3: palette_count RGB triples */
    int palette_count;          /* 1-256 */
    const uint8_t *trns_alpha;  /* colour type 3: alpha of the first trns_count palette entries */
    int trns_count;
    int has_trns_color;         /* colour types 0 and 2: one sample value that means transparent */
    uint16_t trns_gray;
    uint16_t trns_red, trns_green, trns_blue;
    const uint8_t *icc;         /* written as iCCP when set (and then no sRGB, gAMA or cHRM) */
    size_t icc_len;
    int srgb;                   /* 1: an sRGB chunk (perceptual) */
    double gamma;               /* > 0: a gAMA chunk with this encoding exponent */
    int has_chrm;               /* 1: a cHRM chunk from chrm */
    double chrm[8];             /* white x, y, then red, green, blue x, y */
    int exif_orientation;       /* 1-8: an eXIf chunk recording this orientation (pixels unchanged); 0: none */
} tc_png_raw_format;

/*
 * Writes rows already packed as PNG stores them (sub-byte samples packed
 * big-end first, 16-bit samples big-endian), `stride` bytes apart. Output
 * ownership as for tc_png_encode.
 */
tc_status tc_png_encode_raw(const uint8_t *rows, uint32_t width, uint32_t height, size_t stride,
                            const tc_png_raw_format *format, int compression_level,
                            uint8_t **out, size_t *out_len, char *msg);

#endif
