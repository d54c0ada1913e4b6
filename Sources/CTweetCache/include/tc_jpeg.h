#ifndef TC_JPEG_H
#define TC_JPEG_H
/*
 * JPEG decode and encode through libjpeg-turbo, with every setjmp kept in C.
 *
 * Decoding is split in two so a caller can refuse an image from its header
 * alone (pixel limits, unsupported variants) before allocating a single pixel,
 * then decode straight into a buffer it owns. Input is always an in-memory
 * byte range; nothing here touches files. See tc_codec.h for status codes and
 * the `msg` convention.
 */
#include "tc_codec.h"
#include "tc_color.h"

/* Colour space libjpeg infers from the file's markers and component count. */
typedef enum tc_jpeg_color {
    TC_JPEG_COLOR_UNKNOWN = 0,
    TC_JPEG_COLOR_GRAY = 1,
    TC_JPEG_COLOR_RGB = 2,
    TC_JPEG_COLOR_YCBCR = 3,
    TC_JPEG_COLOR_CMYK = 4,
    TC_JPEG_COLOR_YCCK = 5
} tc_jpeg_color;

typedef struct tc_jpeg_info {
    uint32_t width;        /* pixels, as stored (before any EXIF orientation) */
    uint32_t height;
    int components;        /* colour components in the file: 1, 3 or 4 */
    tc_jpeg_color color;
    int adobe_inverted;    /* 1 when an Adobe APP14 marker is present: CMYK/YCCK samples are stored inverted */
    int progressive;       /* 1 for progressive (multi-scan) files */
    int orientation;       /* EXIF orientation 1-8 from the first APP1 Exif segment, 1 when absent or unreadable */
} tc_jpeg_info;

/*
 * Reads markers up to the first scan, without decoding pixels: cheap even for
 * huge images, so limits can be checked first. Fails cleanly for 12-bit,
 * lossless and other variants this libjpeg cannot decode (TC_ERR_UNSUPPORTED).
 */
tc_status tc_jpeg_read_header(const uint8_t *data, size_t len, tc_jpeg_info *info, char *msg);

/*
 * Output size for DCT-domain downscaling by 1/scale_denom (1, 2, 4 or 8), as
 * libjpeg computes it (jpeg_calc_output_dimensions rounds up), so a caller can
 * size the buffer for tc_jpeg_decode exactly.
 */
tc_status tc_jpeg_scaled_size(const uint8_t *data, size_t len, int scale_denom,
                              uint32_t *width, uint32_t *height, char *msg);

/* Where a decode is, so a report can say where the data ran out. */
typedef enum tc_jpeg_phase {
    TC_JPEG_PHASE_NONE = 0,    /* reading markers (or the data never ran out) */
    TC_JPEG_PHASE_INPUT = 1,   /* jpeg_start_decompress: a progressive file buffers every scan here */
    TC_JPEG_PHASE_ROWS = 2,    /* reading scanlines: a sequential file's entropy data is read here */
    TC_JPEG_PHASE_FINISH = 3   /* every row read, looking for the end marker */
} tc_jpeg_phase;

/* What a successful tc_jpeg_decode saw; corrupt or truncated data is only a warning to libjpeg. */
typedef struct tc_jpeg_decode_report {
    uint32_t width;          /* of the pixels written, after scaling */
    uint32_t height;
    long warnings;           /* every warning libjpeg emitted */
    long damaging_warnings;  /* warnings before the data ran out meaning some pixels are wrong (bad entropy data) */
    int truncated;           /* 1 when the data ended before the end marker ("Premature end of JPEG file") */
    int missing_phase;       /* a tc_jpeg_phase: where the decoder first needed data past the end (pixels
                                are missing from there), TC_JPEG_PHASE_NONE when it never did (only the
                                end marker was missing, or the look-ahead ran past the end) */
    uint32_t missing_row;    /* with TC_JPEG_PHASE_ROWS: output rows decoded from real data (libjpeg fills the rest) */
    int missing_scan;        /* the scan that was being read then */
    int scans;               /* scans read in all */
} tc_jpeg_decode_report;

/*
 * Decodes into the caller's buffer: rows of `stride` bytes, each starting with
 * width * out_channels bytes of 8-bit RGB (out_channels 3) or RGBA with opaque
 * alpha (4). Grayscale is expanded to RGB; CMYK and YCCK are converted to RGB
 * through `cmyk` when given (a tc_color_transform from CMYK8 or CMYK8_INVERTED,
 * whichever the file's Adobe marker says, to out_channels), else by the naive
 * formula (Adobe-inverted samples handled). The buffer must hold the size reported by
 * tc_jpeg_scaled_size for the same scale_denom, else TC_ERR_LIMIT before any
 * pixel is decoded.
 *
 * libjpeg recovers from damaged data by filling grey and warning, so TC_OK can
 * still mean a damaged image: check `report`. When damaging warnings occurred,
 * `msg` holds the first one's text even on TC_OK. Files with more than
 * TC_JPEG_MAX_SCANS scans are refused (a known CPU-exhaustion pattern).
 */
#define TC_JPEG_MAX_SCANS 500
tc_status tc_jpeg_decode(const uint8_t *data, size_t len, int scale_denom, int out_channels,
                         uint8_t *out, size_t out_capacity, size_t stride,
                         const tc_color_transform *cmyk,
                         tc_jpeg_decode_report *report, char *msg);

/*
 * One rectangle (x, y, width, height, in full-size pixels) of a YCbCr, RGB or grey
 * JPEG as packed RGB (width * 3 bytes a row) into `out`: the rows above it are
 * skipped (jpeg_skip_scanlines) and only the iMCU columns under it are decoded
 * (jpeg_crop_scanline), so one tile of a large photo costs a fraction of a full
 * decode. The pixels are the ones a full tc_jpeg_decode gives for that rectangle:
 * the crop starts one pixel left of it and ends one right of it, because libjpeg's
 * fancy upsampling treats a crop's edge columns as the image's edges.
 * CMYK and YCCK files are refused (TC_ERR_UNSUPPORTED): their inks go through a
 * transform a caller gives to the full decode. Damage is reported as by
 * tc_jpeg_decode; a caller wanting a damaged file shown as a full decode shows it
 * decodes it whole.
 */
tc_status tc_jpeg_decode_region(const uint8_t *data, size_t len, uint32_t x, uint32_t y,
                                uint32_t width, uint32_t height, uint8_t *out, size_t out_capacity,
                                tc_jpeg_decode_report *report, char *msg);

/*
 * The ICC profile of APP2 "ICC_PROFILE" segments, reassembled (jpeg_read_icc_profile).
 * On TC_OK *icc is NULL when the file has none or its chunks are inconsistent;
 * otherwise a malloc'd buffer of *icc_len bytes to free with tc_codec_free.
 */
tc_status tc_jpeg_read_icc(const uint8_t *data, size_t len, uint8_t **icc, size_t *icc_len, char *msg);

/* Largest width or height a JPEG can have (libjpeg's JPEG_MAX_DIMENSION). */
#define TC_JPEG_MAX_DIMENSION 65500

/* Colour space written by tc_jpeg_encode; the input is always RGB(X). */
typedef enum tc_jpeg_encode_color {
    TC_JPEG_ENCODE_YCBCR = 0,  /* the normal choice: 3 components, chroma 4:2:0 */
    TC_JPEG_ENCODE_GRAY = 1,   /* 1 component: luma of the RGB input */
    TC_JPEG_ENCODE_CMYK = 2,   /* 4 components, Adobe marker, inverted like Photoshop writes them */
    TC_JPEG_ENCODE_YCCK = 3    /* as CMYK, but stored as YCCK */
} tc_jpeg_encode_color;

typedef struct tc_jpeg_encode_options {
    int quality;             /* 1-100 (libjpeg's scale) */
    int progressive;         /* 1: progressive scan script; smaller for large images, slower to write */
    int optimize_coding;     /* 1: optimal Huffman tables (a second pass); off keeps encoding fast */
    tc_jpeg_encode_color color;
    int exif_orientation;    /* 0: no Exif segment; 1-8: write an APP1 Exif IFD0 with this orientation */
    const uint8_t *icc;      /* NULL, or an ICC profile written as APP2 "ICC_PROFILE" segments */
    size_t icc_len;
    int cmyk_input;          /* with CMYK or YCCK: the 4 channels are ink amounts (0 = none), not RGBX */
} tc_jpeg_encode_options;

/*
 * Encodes 8-bit RGB (channels 3) or RGBX (channels 4: the fourth byte is
 * ignored, so callers flatten alpha first) rows `stride` bytes apart.
 * On TC_OK, *out is a malloc'd buffer of *out_len bytes that the caller frees
 * with tc_codec_free; on failure *out is NULL.
 */
tc_status tc_jpeg_encode(const uint8_t *pixels, uint32_t width, uint32_t height, int channels,
                         size_t stride, const tc_jpeg_encode_options *options,
                         uint8_t **out, size_t *out_len, char *msg);

/*
 * EXIF orientation (tag 0x0112 of IFD0) from a TIFF structure: the bytes after
 * "Exif\0\0" in a JPEG APP1 segment, or a PNG eXIf chunk. Returns 1-8, or 0
 * when absent or malformed. Every read is bounds-checked against `len`.
 */
int tc_exif_orientation(const uint8_t *tiff, size_t len);

#endif
