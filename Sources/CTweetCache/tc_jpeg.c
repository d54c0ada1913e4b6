/*
 * libjpeg-turbo behind setjmp: see include/tc_jpeg.h for the contract.
 *
 * Every public function here owns exactly one setjmp and calls libjpeg only
 * between it and its return. State that must survive a longjmp lives in
 * structs whose addresses libjpeg holds (so it is in memory, not registers);
 * no plain local is modified after setjmp.
 */
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jpeglib.h>
#include <jerror.h>
#include "tc_jpeg.h"
#include "tc_codec_private.h"
#include "tc_color.h"

#if TC_JPEG_MAX_DIMENSION != JPEG_MAX_DIMENSION
#error "TC_JPEG_MAX_DIMENSION must match libjpeg's JPEG_MAX_DIMENSION"
#endif

/* Error manager: turns libjpeg's error_exit into a longjmp and counts warnings. */
typedef struct tc_jpeg_error {
    struct jpeg_error_mgr pub; /* first, so libjpeg's pointer to it is a pointer to us */
    jmp_buf jump;
    tc_status status;
    char message[JMSG_LENGTH_MAX];
    long warnings;
    long damaging;
    int truncated;
    char first_damage[JMSG_LENGTH_MAX];
    int phase;             /* where decoding is: a tc_jpeg_phase */
    int missing_phase;     /* where a decoder first needed data past the end, TC_JPEG_PHASE_NONE when none did */
    uint32_t missing_row;  /* output rows already read then, during TC_JPEG_PHASE_ROWS */
    int missing_scan;      /* the scan being read then */
} tc_jpeg_error;

/* Warnings after which every pixel is still right: odd but harmless markers. */
static int tc_jpeg_warning_is_benign(int code) {
    switch (code) {
    case JWRN_ADOBE_XFORM:     /* unknown transform code: libjpeg falls back to the component count */
    case JWRN_EXTRANEOUS_DATA: /* padding between a finished segment and the next marker */
    case JWRN_JFIF_MAJOR:      /* newer JFIF version number */
    case JWRN_NOT_SEQUENTIAL:  /* odd SOS fields in a baseline file; ignored by the decoder */
        return 1;
    default:
        return 0;
    }
}

static tc_status tc_jpeg_classify_error(int code, int truncated) {
    switch (code) {
    case JERR_BAD_PRECISION:     /* 12- and 16-bit samples */
    case JERR_SOF_UNSUPPORTED:   /* lossless, hierarchical */
    case JERR_NOT_COMPILED:
    case JERR_CONVERSION_NOTIMPL:
        return TC_ERR_UNSUPPORTED;
    case JERR_OUT_OF_MEMORY:
        return TC_ERR_NOMEM;
    case JERR_IMAGE_TOO_BIG:
        return TC_ERR_LIMIT;
    case JERR_INPUT_EMPTY:
    case JERR_INPUT_EOF:
        return TC_ERR_TRUNCATED;
    default:
        /* A structural error right after the data ran out is a symptom of truncation. */
        return truncated ? TC_ERR_TRUNCATED : TC_ERR_CORRUPT;
    }
}

static void tc_jpeg_error_exit(j_common_ptr cinfo) {
    tc_jpeg_error *err = (tc_jpeg_error *)cinfo->err;
    (*cinfo->err->format_message)(cinfo, err->message);
    err->status = tc_jpeg_classify_error(err->pub.msg_code, err->truncated);
    longjmp(err->jump, 1);
}

/* Warnings (level < 0) are counted, never printed; trace messages are dropped. */
static void tc_jpeg_emit_message(j_common_ptr cinfo, int level) {
    tc_jpeg_error *err = (tc_jpeg_error *)cinfo->err;
    int code = err->pub.msg_code;
    if (level >= 0) return;
    err->warnings++;
    if (code == JWRN_JPEG_EOF) {
        err->truncated = 1;
        return;
    }
    if (err->truncated) {
        /* After the data ran out libjpeg reads a fake end marker; a decoder that needs bits
         * past it says so (once per scan) and fills zeros: that is where pixels go missing. */
        if (code == JWRN_HIT_MARKER && err->missing_phase == TC_JPEG_PHASE_NONE && cinfo->is_decompressor) {
            j_decompress_ptr d = (j_decompress_ptr)cinfo;
            err->missing_phase = err->phase;
            err->missing_row = err->phase == TC_JPEG_PHASE_ROWS ? d->output_scanline : 0;
            err->missing_scan = d->input_scan_number;
        }
        return;
    }
    if (tc_jpeg_warning_is_benign(code)) return;
    if (err->damaging == 0) (*cinfo->err->format_message)(cinfo, err->first_damage);
    err->damaging++;
}

static void tc_jpeg_output_message(j_common_ptr cinfo) { (void)cinfo; }

static void tc_jpeg_error_init(tc_jpeg_error *err) {
    memset(err, 0, sizeof *err);
    jpeg_std_error(&err->pub);
    err->pub.error_exit = tc_jpeg_error_exit;
    err->pub.emit_message = tc_jpeg_emit_message;
    err->pub.output_message = tc_jpeg_output_message;
    err->status = TC_ERR_CORRUPT;
}

/* Progress hook: refuses files with absurd scan counts before they burn CPU. */
static void tc_jpeg_progress(j_common_ptr cinfo) {
    tc_jpeg_error *err = (tc_jpeg_error *)cinfo->err;
    if (!cinfo->is_decompressor) return;
    if (((j_decompress_ptr)cinfo)->input_scan_number <= TC_JPEG_MAX_SCANS) return;
    snprintf(err->message, sizeof err->message, "JPEG has more than %d scans", TC_JPEG_MAX_SCANS);
    err->status = TC_ERR_CORRUPT;
    longjmp(err->jump, 1);
}

/* Creates the decompressor over `data`, keeping the segments of `save_marker` (0: none), and reads the header (may longjmp). */
static void tc_jpeg_open(j_decompress_ptr cinfo, const uint8_t *data, size_t len, int save_marker) {
    jpeg_create_decompress(cinfo);
    jpeg_mem_src(cinfo, data, (unsigned long)len);
    if (save_marker) jpeg_save_markers(cinfo, save_marker, 0xFFFF);
    jpeg_read_header(cinfo, TRUE);
}

static tc_jpeg_color tc_jpeg_color_of(J_COLOR_SPACE space) {
    switch (space) {
    case JCS_GRAYSCALE: return TC_JPEG_COLOR_GRAY;
    case JCS_RGB: return TC_JPEG_COLOR_RGB;
    case JCS_YCbCr: return TC_JPEG_COLOR_YCBCR;
    case JCS_CMYK: return TC_JPEG_COLOR_CMYK;
    case JCS_YCCK: return TC_JPEG_COLOR_YCCK;
    default: return TC_JPEG_COLOR_UNKNOWN;
    }
}

/* Orientation from the first APP1 segment that carries Exif (XMP also uses APP1). */
static int tc_jpeg_orientation(j_decompress_ptr cinfo) {
    static const uint8_t exif_id[6] = { 'E', 'x', 'i', 'f', 0, 0 };
    jpeg_saved_marker_ptr m;
    for (m = cinfo->marker_list; m != NULL; m = m->next) {
        if (m->marker != JPEG_APP0 + 1 || m->data_length < sizeof exif_id) continue;
        if (memcmp(m->data, exif_id, sizeof exif_id) != 0) continue;
        int o = tc_exif_orientation(m->data + sizeof exif_id, m->data_length - sizeof exif_id);
        return o == 0 ? 1 : o;
    }
    return 1;
}

tc_status tc_jpeg_read_header(const uint8_t *data, size_t len, tc_jpeg_info *info, char *msg) {
    struct jpeg_decompress_struct cinfo;
    tc_jpeg_error err;

    if (data == NULL || info == NULL) {
        tc_set_msg(msg, "no JPEG data or no info to fill");
        return TC_ERR_ARGUMENT;
    }
    memset(info, 0, sizeof *info);
    memset(&cinfo, 0, sizeof cinfo);
    tc_jpeg_error_init(&err);
    cinfo.err = &err.pub;
    if (setjmp(err.jump)) {
        jpeg_destroy_decompress(&cinfo);
        tc_set_msg(msg, "%s", err.message);
        return err.status;
    }
    tc_jpeg_open(&cinfo, data, len, JPEG_APP0 + 1);
    info->width = cinfo.image_width;
    info->height = cinfo.image_height;
    info->components = cinfo.num_components;
    info->color = tc_jpeg_color_of(cinfo.jpeg_color_space);
    info->adobe_inverted = cinfo.saw_Adobe_marker ? 1 : 0;
    info->progressive = cinfo.progressive_mode ? 1 : 0;
    info->orientation = tc_jpeg_orientation(&cinfo);
    jpeg_destroy_decompress(&cinfo);
    return TC_OK;
}

tc_status tc_jpeg_read_icc(const uint8_t *data, size_t len, uint8_t **icc, size_t *icc_len, char *msg) {
    struct jpeg_decompress_struct cinfo;
    tc_jpeg_error err;
    JOCTET *profile = NULL;
    unsigned int profile_len = 0;

    if (data == NULL || icc == NULL || icc_len == NULL) {
        tc_set_msg(msg, "no JPEG data or no profile pointers");
        return TC_ERR_ARGUMENT;
    }
    *icc = NULL;
    *icc_len = 0;
    memset(&cinfo, 0, sizeof cinfo);
    tc_jpeg_error_init(&err);
    cinfo.err = &err.pub;
    if (setjmp(err.jump)) {
        jpeg_destroy_decompress(&cinfo);
        tc_set_msg(msg, "%s", err.message);
        return err.status;
    }
    tc_jpeg_open(&cinfo, data, len, JPEG_APP0 + 2);
    /* FALSE with a warning for missing, out-of-order or duplicate chunks: no profile, not an error. */
    if (jpeg_read_icc_profile(&cinfo, &profile, &profile_len) && profile != NULL) {
        *icc = profile;
        *icc_len = profile_len;
    }
    jpeg_destroy_decompress(&cinfo);
    return TC_OK;
}

static int tc_jpeg_valid_scale(int denom) {
    return denom == 1 || denom == 2 || denom == 4 || denom == 8;
}

tc_status tc_jpeg_scaled_size(const uint8_t *data, size_t len, int scale_denom,
                              uint32_t *width, uint32_t *height, char *msg) {
    struct jpeg_decompress_struct cinfo;
    tc_jpeg_error err;

    if (data == NULL || width == NULL || height == NULL || !tc_jpeg_valid_scale(scale_denom)) {
        tc_set_msg(msg, "invalid arguments (scale denominator %d; must be 1, 2, 4 or 8)", scale_denom);
        return TC_ERR_ARGUMENT;
    }
    memset(&cinfo, 0, sizeof cinfo);
    tc_jpeg_error_init(&err);
    cinfo.err = &err.pub;
    if (setjmp(err.jump)) {
        jpeg_destroy_decompress(&cinfo);
        tc_set_msg(msg, "%s", err.message);
        return err.status;
    }
    tc_jpeg_open(&cinfo, data, len, 0);
    cinfo.scale_num = 1;
    cinfo.scale_denom = (unsigned int)scale_denom;
    jpeg_calc_output_dimensions(&cinfo);
    *width = cinfo.output_width;
    *height = cinfo.output_height;
    jpeg_destroy_decompress(&cinfo);
    return TC_OK;
}

/* x / 255 rounded, exact for 0 <= x <= 255 * 255. */
static inline uint8_t tc_div255(unsigned x) {
    x += 128;
    return (uint8_t)((x + (x >> 8)) >> 8);
}

/*
 * CMYK row to RGB(A). Adobe files store 255 - ink, so R = C'K'/255 directly;
 * plain files store ink amounts and are inverted first.
 */
static void tc_cmyk_to_rgb(const JSAMPLE *src, uint8_t *dst, JDIMENSION width, int channels, int inverted) {
    JDIMENSION x;
    for (x = 0; x < width; x++, src += 4, dst += channels) {
        unsigned c = src[0], m = src[1], y = src[2], k = src[3];
        if (!inverted) {
            c = 255 - c; m = 255 - m; y = 255 - y; k = 255 - k;
        }
        dst[0] = tc_div255(c * k);
        dst[1] = tc_div255(m * k);
        dst[2] = tc_div255(y * k);
        if (channels == 4) dst[3] = 255;
    }
}

/* Reads every scanline into `out` (may longjmp). */
static void tc_jpeg_read_rows(j_decompress_ptr cinfo, int out_channels, uint8_t *out, size_t stride,
                              const tc_color_transform *cmyk) {
    enum { batch = 16 };
    if (cinfo->out_color_space == JCS_CMYK) {
        int inverted = cinfo->saw_Adobe_marker;
        JSAMPARRAY tmp = (*cinfo->mem->alloc_sarray)((j_common_ptr)cinfo, JPOOL_IMAGE,
                                                     cinfo->output_width * 4, 1);
        while (cinfo->output_scanline < cinfo->output_height) {
            uint8_t *row = out + (size_t)cinfo->output_scanline * stride;
            if (jpeg_read_scanlines(cinfo, tmp, 1) != 1) break;
            if (cmyk != NULL) tc_color_apply(cmyk, tmp[0], row, cinfo->output_width);
            else tc_cmyk_to_rgb(tmp[0], row, cinfo->output_width, out_channels, inverted);
        }
        return;
    }
    while (cinfo->output_scanline < cinfo->output_height) {
        JSAMPROW rows[batch];
        JDIMENSION first = cinfo->output_scanline;
        JDIMENSION n = cinfo->output_height - first;
        JDIMENSION i;
        if (n > batch) n = batch;
        for (i = 0; i < n; i++) rows[i] = out + (size_t)(first + i) * stride;
        if (jpeg_read_scanlines(cinfo, rows, n) == 0) break;
    }
}

/* After a longjmp out of libjpeg: what the decode saw before it failed, and why it failed. */
static tc_status tc_jpeg_failed(j_decompress_ptr cinfo, const tc_jpeg_error *err,
                                tc_jpeg_decode_report *report, char *msg) {
    jpeg_destroy_decompress(cinfo);
    report->warnings = err->warnings;
    report->damaging_warnings = err->damaging;
    report->truncated = err->truncated;
    tc_set_msg(msg, "%s", err->message);
    return err->status;
}

/* What a finished decode of width x height pixels saw; the first damaging warning in msg. */
static void tc_jpeg_report(j_decompress_ptr cinfo, const tc_jpeg_error *err, uint32_t width, uint32_t height,
                           tc_jpeg_decode_report *report, char *msg) {
    report->width = width;
    report->height = height;
    report->warnings = err->warnings;
    report->damaging_warnings = err->damaging;
    report->truncated = err->truncated;
    report->missing_phase = err->missing_phase;
    report->missing_row = err->missing_row;
    report->missing_scan = err->missing_scan;
    report->scans = cinfo->input_scan_number;
    if (err->damaging > 0) tc_set_msg(msg, "%s", err->first_damage);
}

tc_status tc_jpeg_decode(const uint8_t *data, size_t len, int scale_denom, int out_channels,
                         uint8_t *out, size_t out_capacity, size_t stride,
                         const tc_color_transform *cmyk,
                         tc_jpeg_decode_report *report, char *msg) {
    struct jpeg_decompress_struct cinfo;
    struct jpeg_progress_mgr progress;
    tc_jpeg_error err;

    if (data == NULL || out == NULL || report == NULL || !tc_jpeg_valid_scale(scale_denom)
        || (out_channels != 3 && out_channels != 4)) {
        tc_set_msg(msg, "invalid decode arguments (scale 1/%d, %d channels)", scale_denom, out_channels);
        return TC_ERR_ARGUMENT;
    }
    memset(report, 0, sizeof *report);
    memset(&cinfo, 0, sizeof cinfo);
    memset(&progress, 0, sizeof progress);
    tc_jpeg_error_init(&err);
    cinfo.err = &err.pub;
    if (setjmp(err.jump)) return tc_jpeg_failed(&cinfo, &err, report, msg);
    tc_jpeg_open(&cinfo, data, len, 0);
    progress.progress_monitor = tc_jpeg_progress;
    cinfo.progress = &progress;
    cinfo.scale_num = 1;
    cinfo.scale_denom = (unsigned int)scale_denom;
    if (cinfo.jpeg_color_space == JCS_CMYK || cinfo.jpeg_color_space == JCS_YCCK) {
        cinfo.out_color_space = JCS_CMYK;
    } else {
        cinfo.out_color_space = out_channels == 4 ? JCS_EXT_RGBA : JCS_EXT_RGB;
    }
    jpeg_calc_output_dimensions(&cinfo);
    if (!tc_rows_fit((size_t)cinfo.output_width * (size_t)out_channels, cinfo.output_height,
                     stride, out_capacity)) {
        tc_set_msg(msg, "a %ux%u JPEG does not fit the %zu-byte buffer (stride %zu)",
                   cinfo.output_width, cinfo.output_height, out_capacity, stride);
        jpeg_destroy_decompress(&cinfo);
        return TC_ERR_LIMIT;
    }
    err.phase = TC_JPEG_PHASE_INPUT;
    jpeg_start_decompress(&cinfo);
    err.phase = TC_JPEG_PHASE_ROWS;
    tc_jpeg_read_rows(&cinfo, out_channels, out, stride, cmyk);
    err.phase = TC_JPEG_PHASE_FINISH;
    jpeg_finish_decompress(&cinfo);
    tc_jpeg_report(&cinfo, &err, cinfo.output_width, cinfo.output_height, report, msg);
    jpeg_destroy_decompress(&cinfo);
    return TC_OK;
}

tc_status tc_jpeg_decode_region(const uint8_t *data, size_t len, uint32_t x, uint32_t y,
                                uint32_t width, uint32_t height, uint8_t *out, size_t out_capacity,
                                tc_jpeg_decode_report *report, char *msg) {
    struct jpeg_decompress_struct cinfo;
    struct jpeg_progress_mgr progress;
    tc_jpeg_error err;
    JDIMENSION left, span;
    JSAMPARRAY row;
    uint32_t i;

    if (data == NULL || out == NULL || report == NULL || width == 0 || height == 0) {
        tc_set_msg(msg, "invalid region arguments (%ux%u)", width, height);
        return TC_ERR_ARGUMENT;
    }
    if (!tc_rows_fit((size_t)width * 3, height, (size_t)width * 3, out_capacity)) {
        tc_set_msg(msg, "a %ux%u region does not fit the %zu-byte buffer", width, height, out_capacity);
        return TC_ERR_LIMIT;
    }
    memset(report, 0, sizeof *report);
    memset(&cinfo, 0, sizeof cinfo);
    memset(&progress, 0, sizeof progress);
    tc_jpeg_error_init(&err);
    cinfo.err = &err.pub;
    if (setjmp(err.jump)) return tc_jpeg_failed(&cinfo, &err, report, msg);
    tc_jpeg_open(&cinfo, data, len, 0);
    if (cinfo.jpeg_color_space == JCS_CMYK || cinfo.jpeg_color_space == JCS_YCCK) {
        tc_set_msg(msg, "a CMYK JPEG is decoded whole");
        jpeg_destroy_decompress(&cinfo);
        return TC_ERR_UNSUPPORTED;
    }
    if ((uint64_t)x + width > cinfo.image_width || (uint64_t)y + height > cinfo.image_height) {
        tc_set_msg(msg, "region %ux%u at %u,%u is outside the %ux%u image", width, height, x, y,
                   cinfo.image_width, cinfo.image_height);
        jpeg_destroy_decompress(&cinfo);
        return TC_ERR_ARGUMENT;
    }
    progress.progress_monitor = tc_jpeg_progress;
    cinfo.progress = &progress;
    cinfo.out_color_space = JCS_EXT_RGB;
    err.phase = TC_JPEG_PHASE_INPUT;
    jpeg_start_decompress(&cinfo);
    err.phase = TC_JPEG_PHASE_ROWS;
    /* A progressive file whose scans leave coefficients unrefined is block-smoothed, and the
     * smoothing treats a crop's first block column as the image's edge: decoded whole. */
    if (cinfo.progressive_mode && cinfo.coef_bits != NULL) {
        int c, k;
        for (c = 0; c < cinfo.num_components; c++) {
            for (k = 1; k < 10; k++) {
                if (cinfo.coef_bits[c][k] != 0) {
                    tc_set_msg(msg, "a progressive JPEG with unrefined coefficients is decoded whole");
                    jpeg_destroy_decompress(&cinfo);
                    return TC_ERR_UNSUPPORTED;
                }
            }
        }
    }
    /* One pixel of context each side (libjpeg moves the left edge to an iMCU boundary), and at
     * least three iMCUs wide (or the whole row): a crop narrower than two chroma samples makes
     * libjpeg switch to another upsampler than the full decode's. */
    left = x > 0 ? x - 1 : 0;
    span = (x + width < cinfo.output_width ? x + width + 1 : cinfo.output_width) - left;
    {
        JDIMENSION least = 3 * (JDIMENSION)(cinfo.max_h_samp_factor * DCTSIZE);
        if (span < least) span = left + least < cinfo.output_width ? least : cinfo.output_width - left;
    }
    jpeg_crop_scanline(&cinfo, &left, &span);
    row = (*cinfo.mem->alloc_sarray)((j_common_ptr)&cinfo, JPOOL_IMAGE, cinfo.output_width * 3, 1);
    if (y > 0) jpeg_skip_scanlines(&cinfo, y);
    for (i = 0; i < height; i++) {
        if (jpeg_read_scanlines(&cinfo, row, 1) != 1) break;
        memcpy(out + (size_t)i * width * 3, row[0] + (size_t)(x - left) * 3, (size_t)width * 3);
    }
    /* The rows below are not read: no end marker is looked for, so no finish. */
    tc_jpeg_report(&cinfo, &err, width, i, report, msg);
    jpeg_abort_decompress(&cinfo);
    jpeg_destroy_decompress(&cinfo);
    return TC_OK;
}

/* Output of jpeg_mem_dest: libjpeg mallocs and grows it; we own it afterwards. */
typedef struct tc_jpeg_sink {
    unsigned char *buffer;
    unsigned long size;
} tc_jpeg_sink;

/* APP1 "Exif" with a big-endian TIFF header and one IFD0 entry: Orientation (SHORT). */
static void tc_jpeg_write_exif(j_compress_ptr cinfo, int orientation) {
    const JOCTET segment[] = {
        'E', 'x', 'i', 'f', 0, 0,
        'M', 'M', 0, 42, 0, 0, 0, 8,                   /* TIFF header, IFD0 at offset 8 */
        0, 1,                                          /* one entry */
        0x01, 0x12, 0, 3, 0, 0, 0, 1, 0, (JOCTET)orientation, 0, 0,
        0, 0, 0, 0                                     /* no next IFD */
    };
    jpeg_write_marker(cinfo, JPEG_APP0 + 1, segment, (unsigned int)sizeof segment);
}

/*
 * RGB to inverted CMYK the way Photoshop stores it (255 - ink), so a decoder
 * honouring the Adobe marker gets the RGB back: C' = 255 R / (255 - K).
 */
static void tc_rgb_to_inverted_cmyk(const uint8_t *src, JSAMPLE *dst, JDIMENSION width, int channels) {
    JDIMENSION x;
    for (x = 0; x < width; x++, src += channels, dst += 4) {
        unsigned r = src[0], g = src[1], b = src[2];
        unsigned max = r > g ? (r > b ? r : b) : (g > b ? g : b);
        if (max == 0) {
            dst[0] = dst[1] = dst[2] = 255;
            dst[3] = 0;
            continue;
        }
        dst[0] = (JSAMPLE)((r * 255 + max / 2) / max);
        dst[1] = (JSAMPLE)((g * 255 + max / 2) / max);
        dst[2] = (JSAMPLE)((b * 255 + max / 2) / max);
        dst[3] = (JSAMPLE)max;
    }
}

static int tc_jpeg_encode_args_ok(const uint8_t *pixels, uint32_t width, uint32_t height, int channels,
                                  size_t stride, const tc_jpeg_encode_options *o, char *msg) {
    if (pixels == NULL || o == NULL) {
        tc_set_msg(msg, "no pixels or no options");
        return 0;
    }
    if (width == 0 || height == 0 || width > JPEG_MAX_DIMENSION || height > JPEG_MAX_DIMENSION) {
        tc_set_msg(msg, "JPEG dimensions must be 1 to %ld pixels, got %ux%u", (long)JPEG_MAX_DIMENSION, width, height);
        return 0;
    }
    if ((channels != 3 && channels != 4) || stride < (size_t)width * (size_t)channels) {
        tc_set_msg(msg, "need 3 or 4 channels and a stride of at least width x channels");
        return 0;
    }
    if (o->quality < 1 || o->quality > 100 || o->exif_orientation < 0 || o->exif_orientation > 8
        || o->color < TC_JPEG_ENCODE_YCBCR || o->color > TC_JPEG_ENCODE_YCCK
        || o->icc_len > 255u * 65519u) {
        tc_set_msg(msg, "invalid JPEG options (quality %d must be 1-100, orientation %d must be 0-8)",
                   o->quality, o->exif_orientation);
        return 0;
    }
    return 1;
}

/* Sets input format, colour space, quality and scan options (may longjmp). */
static void tc_jpeg_configure(j_compress_ptr cinfo, uint32_t width, uint32_t height, int channels,
                              const tc_jpeg_encode_options *o) {
    int cmyk_input = o->color == TC_JPEG_ENCODE_CMYK || o->color == TC_JPEG_ENCODE_YCCK;
    cinfo->image_width = width;
    cinfo->image_height = height;
    cinfo->input_components = cmyk_input ? 4 : channels;
    cinfo->in_color_space = cmyk_input ? JCS_CMYK : (channels == 4 ? JCS_EXT_RGBX : JCS_EXT_RGB);
    jpeg_set_defaults(cinfo); /* YCbCr with 2x2 luma sampling: 4:2:0 */
    jpeg_set_quality(cinfo, o->quality, TRUE);
    switch (o->color) {
    case TC_JPEG_ENCODE_GRAY: jpeg_set_colorspace(cinfo, JCS_GRAYSCALE); break;
    case TC_JPEG_ENCODE_CMYK: jpeg_set_colorspace(cinfo, JCS_CMYK); break;
    case TC_JPEG_ENCODE_YCCK: jpeg_set_colorspace(cinfo, JCS_YCCK); break;
    default: break;
    }
    cinfo->optimize_coding = o->optimize_coding ? TRUE : FALSE;
    if (o->progressive) jpeg_simple_progression(cinfo);
    /* Exif readers expect APP1 right after SOI, so no JFIF APP0 in front of it. */
    if (o->exif_orientation > 0) cinfo->write_JFIF_header = FALSE;
}

/* Feeds every row to the compressor (may longjmp). */
static void tc_jpeg_write_rows(j_compress_ptr cinfo, const uint8_t *pixels, int channels, size_t stride, int cmyk_ink) {
    enum { batch = 16 };
    if (cinfo->in_color_space == JCS_CMYK) {
        JSAMPARRAY tmp = (*cinfo->mem->alloc_sarray)((j_common_ptr)cinfo, JPOOL_IMAGE,
                                                     cinfo->image_width * 4, 1);
        while (cinfo->next_scanline < cinfo->image_height) {
            const uint8_t *row = pixels + (size_t)cinfo->next_scanline * stride;
            if (cmyk_ink) {
                /* Stored as Photoshop does, inverted, with the Adobe marker saying so. */
                JDIMENSION i;
                for (i = 0; i < cinfo->image_width * 4; i++) tmp[0][i] = (JSAMPLE)(255 - row[i]);
            } else {
                tc_rgb_to_inverted_cmyk(row, tmp[0], cinfo->image_width, channels);
            }
            jpeg_write_scanlines(cinfo, tmp, 1);
        }
        return;
    }
    while (cinfo->next_scanline < cinfo->image_height) {
        JSAMPROW rows[batch];
        JDIMENSION first = cinfo->next_scanline;
        JDIMENSION n = cinfo->image_height - first;
        JDIMENSION i;
        if (n > batch) n = batch;
        /* libjpeg never writes through input rows; JSAMPROW just is not const. */
        for (i = 0; i < n; i++) rows[i] = (JSAMPROW)(uintptr_t)(pixels + (size_t)(first + i) * stride);
        jpeg_write_scanlines(cinfo, rows, n);
    }
}

tc_status tc_jpeg_encode(const uint8_t *pixels, uint32_t width, uint32_t height, int channels,
                         size_t stride, const tc_jpeg_encode_options *options,
                         uint8_t **out, size_t *out_len, char *msg) {
    struct jpeg_compress_struct cinfo;
    tc_jpeg_error err;
    tc_jpeg_sink sink = { NULL, 0 };

    if (out == NULL || out_len == NULL) {
        tc_set_msg(msg, "no output pointers");
        return TC_ERR_ARGUMENT;
    }
    *out = NULL;
    *out_len = 0;
    if (!tc_jpeg_encode_args_ok(pixels, width, height, channels, stride, options, msg)) return TC_ERR_ARGUMENT;
    memset(&cinfo, 0, sizeof cinfo);
    tc_jpeg_error_init(&err);
    cinfo.err = &err.pub;
    if (setjmp(err.jump)) {
        jpeg_destroy_compress(&cinfo);
        free(sink.buffer);
        tc_set_msg(msg, "JPEG encoding failed: %s", err.message);
        return err.status == TC_ERR_NOMEM ? TC_ERR_NOMEM : TC_ERR_ARGUMENT;
    }
    jpeg_create_compress(&cinfo);
    jpeg_mem_dest(&cinfo, &sink.buffer, &sink.size);
    tc_jpeg_configure(&cinfo, width, height, channels, options);
    jpeg_start_compress(&cinfo, TRUE);
    if (options->exif_orientation > 0) tc_jpeg_write_exif(&cinfo, options->exif_orientation);
    if (options->icc != NULL && options->icc_len > 0) {
        jpeg_write_icc_profile(&cinfo, options->icc, (unsigned int)options->icc_len);
    }
    tc_jpeg_write_rows(&cinfo, pixels, channels, stride,
                       options->cmyk_input && channels == 4
                           && (options->color == TC_JPEG_ENCODE_CMYK || options->color == TC_JPEG_ENCODE_YCCK));
    jpeg_finish_compress(&cinfo);
    jpeg_destroy_compress(&cinfo);
    *out = sink.buffer;
    *out_len = (size_t)sink.size;
    return TC_OK;
}

static uint32_t tc_rd16(const uint8_t *p, int le) {
    return le ? (uint32_t)p[0] | (uint32_t)p[1] << 8 : (uint32_t)p[0] << 8 | (uint32_t)p[1];
}

static uint32_t tc_rd32(const uint8_t *p, int le) {
    return le ? tc_rd16(p, 1) | tc_rd16(p + 2, 1) << 16 : tc_rd16(p, 0) << 16 | tc_rd16(p + 2, 0);
}

int tc_exif_orientation(const uint8_t *tiff, size_t len) {
    enum { tag_orientation = 0x0112, type_short = 3, entry_size = 12 };
    int le;
    uint32_t ifd, count, i;
    size_t pos;

    if (tiff == NULL || len < 8) return 0;
    if (tiff[0] == 'I' && tiff[1] == 'I') le = 1;
    else if (tiff[0] == 'M' && tiff[1] == 'M') le = 0;
    else return 0;
    if (tc_rd16(tiff + 2, le) != 42) return 0;
    ifd = tc_rd32(tiff + 4, le);
    if (ifd > len || len - ifd < 2) return 0;
    count = tc_rd16(tiff + ifd, le);
    pos = (size_t)ifd + 2;
    for (i = 0; i < count; i++, pos += entry_size) {
        uint32_t value;
        if (len - pos < entry_size) return 0;
        if (tc_rd16(tiff + pos, le) != tag_orientation) continue;
        if (tc_rd16(tiff + pos + 2, le) != type_short || tc_rd32(tiff + pos + 4, le) < 1) return 0;
        value = tc_rd16(tiff + pos + 8, le);
        return value >= 1 && value <= 8 ? (int)value : 0;
    }
    return 0;
}
