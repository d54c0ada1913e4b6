/*
 * libheif behind a small C API: see include/tc_heif.h for the contract.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <libheif/heif.h>
#include "tc_heif.h"
#include "tc_codec_private.h"

static tc_status tc_heif_status(struct heif_error error, char *msg) {
    tc_set_msg(msg, "%s", error.message != NULL && error.message[0] ? error.message : "unreadable HEIF data");
    switch (error.code) {
    case heif_error_Ok: return TC_OK;
    case heif_error_Memory_allocation_error: return TC_ERR_NOMEM;
    case heif_error_Unsupported_feature:
    case heif_error_Unsupported_filetype: return TC_ERR_UNSUPPORTED;
    case heif_error_Invalid_input: return error.subcode == heif_suberror_End_of_data ? TC_ERR_TRUNCATED : TC_ERR_CORRUPT;
    default: return TC_ERR_CORRUPT;
    }
}

/* The context and primary image handle of a file, or an error status. */
static tc_status tc_heif_open(const uint8_t *data, size_t len, struct heif_context **ctx,
                              struct heif_image_handle **handle, char *msg) {
    struct heif_error error;
    *ctx = NULL;
    *handle = NULL;
    if (data == NULL || len == 0 || len > INT_MAX) {
        tc_set_msg(msg, "no HEIF data, or more than 2 GB");
        return TC_ERR_ARGUMENT;
    }
    *ctx = heif_context_alloc();
    if (*ctx == NULL) return TC_ERR_NOMEM;
    /* Tiles are decoded on this thread: the callers already decode several images at once. */
    heif_context_set_max_decoding_threads(*ctx, 0);
    error = heif_context_read_from_memory_without_copy(*ctx, data, len, NULL);
    if (error.code == heif_error_Ok) error = heif_context_get_primary_image_handle(*ctx, handle);
    if (error.code != heif_error_Ok) {
        tc_status status = tc_heif_status(error, msg);
        heif_context_free(*ctx);
        *ctx = NULL;
        *handle = NULL;
        return status;
    }
    return TC_OK;
}

static void tc_heif_close(struct heif_context *ctx, struct heif_image_handle *handle) {
    if (handle != NULL) heif_image_handle_release(handle);
    if (ctx != NULL) heif_context_free(ctx);
}

int tc_heif_can_decode(int av1) {
    return heif_have_decoder_for_format(av1 ? heif_compression_AV1 : heif_compression_HEVC);
}

tc_status tc_heif_read_header(const uint8_t *data, size_t len, tc_heif_info *info, char *msg) {
    struct heif_context *ctx;
    struct heif_image_handle *handle;
    struct heif_color_profile_nclx *nclx = NULL;
    tc_status status;
    int width, height;
    if (info == NULL) return TC_ERR_ARGUMENT;
    memset(info, 0, sizeof *info);
    status = tc_heif_open(data, len, &ctx, &handle, msg);
    if (status != TC_OK) return status;
    width = heif_image_handle_get_width(handle);
    height = heif_image_handle_get_height(handle);
    if (width <= 0 || height <= 0) {
        tc_set_msg(msg, "HEIF image of %dx%d pixels", width, height);
        tc_heif_close(ctx, handle);
        return TC_ERR_CORRUPT;
    }
    info->width = (uint32_t)width;
    info->height = (uint32_t)height;
    info->has_alpha = heif_image_handle_has_alpha_channel(handle) ? 1 : 0;
    info->bit_depth = heif_image_handle_get_luma_bits_per_pixel(handle);
    {
        int n = len > INT_MAX ? INT_MAX : (int)len;
        heif_brand2 brand = heif_read_main_brand(data, n);
        info->av1 = brand == heif_fourcc_to_brand("avif") || brand == heif_fourcc_to_brand("avis")
            || heif_has_compatible_brand(data, n, "avif") == 1;
    }
    info->has_icc = heif_image_handle_get_raw_color_profile_size(handle) > 0;
    /* libheif 1.15 can hand back an allocated profile with an error (an unknown code
     * point): it is ours to free either way. */
    if (heif_image_handle_get_nclx_color_profile(handle, &nclx).code != heif_error_Ok && nclx != NULL) {
        heif_nclx_color_profile_free(nclx);
        nclx = NULL;
    }
    if (nclx != NULL) {
        info->has_nclx = 1;
        info->primaries = (int)nclx->color_primaries;
        info->transfer = (int)nclx->transfer_characteristics;
        info->matrix = (int)nclx->matrix_coefficients;
        info->full_range = nclx->full_range_flag ? 1 : 0;
        info->xy[0] = nclx->color_primary_white_x;
        info->xy[1] = nclx->color_primary_white_y;
        info->xy[2] = nclx->color_primary_red_x;
        info->xy[3] = nclx->color_primary_red_y;
        info->xy[4] = nclx->color_primary_green_x;
        info->xy[5] = nclx->color_primary_green_y;
        info->xy[6] = nclx->color_primary_blue_x;
        info->xy[7] = nclx->color_primary_blue_y;
        heif_nclx_color_profile_free(nclx);
    }
    tc_heif_close(ctx, handle);
    return TC_OK;
}

tc_status tc_heif_read_icc(const uint8_t *data, size_t len, uint8_t **icc, size_t *icc_len, char *msg) {
    struct heif_context *ctx;
    struct heif_image_handle *handle;
    tc_status status;
    size_t size;
    if (icc == NULL || icc_len == NULL) return TC_ERR_ARGUMENT;
    *icc = NULL;
    *icc_len = 0;
    status = tc_heif_open(data, len, &ctx, &handle, msg);
    if (status != TC_OK) return status;
    size = heif_image_handle_get_raw_color_profile_size(handle);
    if (size > 0) {
        *icc = (uint8_t *)malloc(size);
        if (*icc == NULL) {
            tc_heif_close(ctx, handle);
            return TC_ERR_NOMEM;
        }
        if (heif_image_handle_get_raw_color_profile(handle, *icc).code != heif_error_Ok) {
            free(*icc);
            *icc = NULL;
        } else {
            *icc_len = size;
        }
    }
    tc_heif_close(ctx, handle);
    return TC_OK;
}

/*
 * Decodes into `out`: 8-bit RGB(A) (sample_bytes 1) or native-depth samples in
 * 16-bit little-endian words (sample_bytes 2). With `raw`, libheif's own
 * transformations (irot, imir, clap) are skipped, and width x height must be
 * the untransformed size.
 */
static tc_status tc_heif_decode_into(const uint8_t *data, size_t len, uint32_t width, uint32_t height, int out_channels,
                                     int sample_bytes, int raw, uint8_t *out, size_t out_capacity, size_t stride,
                                     uint32_t *got_width, uint32_t *got_height, tc_heif_light *light, char *msg) {
    struct heif_context *ctx;
    struct heif_image_handle *handle;
    struct heif_decoding_options *options;
    struct heif_image *image = NULL;
    struct heif_error error;
    enum heif_chroma chroma;
    const uint8_t *plane;
    int plane_stride = 0, bits, depth;
    tc_status status;
    uint32_t y;
    size_t row_bytes = (size_t)width * (size_t)out_channels * (size_t)sample_bytes;
    if (out == NULL || (out_channels != 3 && out_channels != 4) || width == 0 || height == 0
        || (sample_bytes != 1 && sample_bytes != 2) || !tc_rows_fit(row_bytes, height, stride, out_capacity)) {
        tc_set_msg(msg, "invalid HEIF decode arguments (%ux%u, %d channels, stride %zu)", width, height, out_channels, stride);
        return TC_ERR_ARGUMENT;
    }
    if (light != NULL) memset(light, 0, sizeof *light);
    status = tc_heif_open(data, len, &ctx, &handle, msg);
    if (status != TC_OK) return status;
    if (!raw && ((uint32_t)heif_image_handle_get_width(handle) != width || (uint32_t)heif_image_handle_get_height(handle) != height)) {
        tc_set_msg(msg, "the HEIF image is not %ux%u", width, height);
        tc_heif_close(ctx, handle);
        return TC_ERR_ARGUMENT;
    }
    options = heif_decoding_options_alloc();
    if (options == NULL) {
        tc_heif_close(ctx, handle);
        return TC_ERR_NOMEM;
    }
    options->convert_hdr_to_8bit = sample_bytes == 1;
    options->ignore_transformations = raw ? 1 : 0;
    depth = heif_image_handle_get_luma_bits_per_pixel(handle);
    if (sample_bytes == 2 && depth > 8) {
        chroma = out_channels == 4 ? heif_chroma_interleaved_RRGGBBAA_LE : heif_chroma_interleaved_RRGGBB_LE;
    } else {
        chroma = out_channels == 4 ? heif_chroma_interleaved_RGBA : heif_chroma_interleaved_RGB;
    }
    error = heif_decode_image(handle, &image, heif_colorspace_RGB, chroma, options);
    heif_decoding_options_free(options);
    if (error.code != heif_error_Ok || image == NULL) {
        status = tc_heif_status(error, msg);
        if (image != NULL) heif_image_release(image);
        tc_heif_close(ctx, handle);
        return status == TC_OK ? TC_ERR_CORRUPT : status;
    }
    plane = heif_image_get_plane_readonly(image, heif_channel_interleaved, &plane_stride);
    bits = heif_image_get_bits_per_pixel_range(image, heif_channel_interleaved);
    if (raw && plane != NULL && heif_image_get_width(image, heif_channel_interleaved) == (int)height
        && heif_image_get_height(image, heif_channel_interleaved) == (int)width) {
        /* Coded sideways of what the ispe says (libheif 1.15 writes a turned image's ispe turned):
         * the same pixels, rows of the plane's width, packed. */
        uint32_t turned = width;
        width = height;
        height = turned;
        row_bytes = (size_t)width * (size_t)out_channels * (size_t)sample_bytes;
        stride = row_bytes;
    }
    if (got_width != NULL) *got_width = width;
    if (got_height != NULL) *got_height = height;
    if (plane == NULL || heif_image_get_width(image, heif_channel_interleaved) != (int)width
        || heif_image_get_height(image, heif_channel_interleaved) != (int)height
        || (sample_bytes == 1 ? bits != 8 : (bits < 8 || bits > 16))
        || plane_stride < (int)((size_t)width * (size_t)out_channels * (bits > 8 ? 2u : 1u))) {
        tc_set_msg(msg, "libheif returned an unexpected %dx%d plane", heif_image_get_width(image, heif_channel_interleaved),
                   heif_image_get_height(image, heif_channel_interleaved));
        heif_image_release(image);
        tc_heif_close(ctx, handle);
        return TC_ERR_LAYOUT;
    }
    if (light != NULL) {
        light->bit_depth = bits;
        if (heif_image_has_content_light_level(image)) {
            struct heif_content_light_level cll;
            heif_image_get_content_light_level(image, &cll);
            light->max_content_light_level = cll.max_content_light_level;
        }
        if (heif_image_has_mastering_display_colour_volume(image)) {
            struct heif_mastering_display_colour_volume raw_volume;
            struct heif_decoded_mastering_display_colour_volume volume;
            heif_image_get_mastering_display_colour_volume(image, &raw_volume);
            if (heif_mastering_display_colour_volume_decode(&raw_volume, &volume).code == heif_error_Ok) {
                light->max_mastering_luminance = volume.max_display_mastering_luminance;
            }
        }
    }
    for (y = 0; y < height; y++) {
        const uint8_t *src = plane + (size_t)y * (size_t)plane_stride;
        uint8_t *dst = out + (size_t)y * stride;
        if (sample_bytes == 2 && bits == 8) {
            /* An 8-bit image asked for in words: widen, so callers see one layout. */
            size_t i, n = (size_t)width * (size_t)out_channels;
            for (i = 0; i < n; i++) {
                dst[2 * i] = src[i];
                dst[2 * i + 1] = 0;
            }
        } else {
            memcpy(dst, src, row_bytes);
        }
    }
    heif_image_release(image);
    tc_heif_close(ctx, handle);
    return TC_OK;
}

tc_status tc_heif_decode(const uint8_t *data, size_t len, uint32_t width, uint32_t height, int out_channels, int raw,
                         uint8_t *out, size_t out_capacity, size_t stride, uint32_t *got_width, uint32_t *got_height,
                         char *msg) {
    return tc_heif_decode_into(data, len, width, height, out_channels, 1, raw, out, out_capacity, stride,
                               got_width, got_height, NULL, msg);
}

tc_status tc_heif_decode16(const uint8_t *data, size_t len, uint32_t width, uint32_t height, int out_channels, int raw,
                           uint16_t *out, size_t out_capacity, size_t stride, uint32_t *got_width, uint32_t *got_height,
                           tc_heif_light *light, char *msg) {
    return tc_heif_decode_into(data, len, width, height, out_channels, 2, raw, (uint8_t *)out, out_capacity, stride,
                               got_width, got_height, light, msg);
}

typedef struct tc_heif_sink {
    uint8_t *buffer;
    size_t size;
} tc_heif_sink;

static struct heif_error tc_heif_write_fn(struct heif_context *ctx, const void *data, size_t size, void *user) {
    tc_heif_sink *sink = (tc_heif_sink *)user;
    struct heif_error ok = { heif_error_Ok, heif_suberror_Unspecified, "" };
    struct heif_error fail = { heif_error_Memory_allocation_error, heif_suberror_Unspecified, "out of memory" };
    uint8_t *grown;
    (void)ctx;
    grown = (uint8_t *)realloc(sink->buffer, sink->size + size);
    if (grown == NULL) return fail;
    memcpy(grown + sink->size, data, size);
    sink->buffer = grown;
    sink->size += size;
    return ok;
}

tc_status tc_heif_encode(const uint8_t *pixels, uint32_t width, uint32_t height, int channels, size_t stride,
                         int av1, int quality, const uint8_t *icc, size_t icc_len,
                         uint8_t **out, size_t *out_len, char *msg) {
    tc_heif_encode_options options;
    memset(&options, 0, sizeof options);
    options.bit_depth = 8;
    options.orientation = 1;
    return tc_heif_encode_ex(pixels, width, height, channels, stride, av1, quality, icc, icc_len, &options,
                             out, out_len, msg);
}

tc_status tc_heif_encode_ex(const uint8_t *pixels, uint32_t width, uint32_t height, int channels, size_t stride,
                            int av1, int quality, const uint8_t *icc, size_t icc_len,
                            const tc_heif_encode_options *extra, uint8_t **out, size_t *out_len, char *msg) {
    struct heif_context *ctx;
    struct heif_encoder *encoder = NULL;
    struct heif_image *image = NULL;
    struct heif_encoding_options *encoding = NULL;
    struct heif_color_profile_nclx *nclx = NULL;
    struct heif_error error;
    struct heif_writer writer;
    tc_heif_sink sink = { NULL, 0 };
    uint8_t *plane;
    int plane_stride = 0, depth;
    size_t sample_bytes;
    uint32_t y;
    if (out == NULL || out_len == NULL || extra == NULL) return TC_ERR_ARGUMENT;
    *out = NULL;
    *out_len = 0;
    depth = extra->bit_depth;
    sample_bytes = depth > 8 ? 2 : 1;
    if (pixels == NULL || (channels != 3 && channels != 4) || width == 0 || height == 0 || width > 16384
        || height > 16384 || stride < (size_t)width * (size_t)channels * sample_bytes || quality < 0 || quality > 100
        || (depth != 8 && depth != 10 && depth != 12) || extra->orientation < 1 || extra->orientation > 8) {
        tc_set_msg(msg, "invalid HEIF encode arguments");
        return TC_ERR_ARGUMENT;
    }
    if (av1 && depth == 10) {
        /* libaom, as libheif 1.15 drives it, aborts on an assertion for 10-bit RGB input. */
        tc_set_msg(msg, "10-bit AVIF cannot be written here; write 12-bit");
        return TC_ERR_UNSUPPORTED;
    }
    ctx = heif_context_alloc();
    if (ctx == NULL) return TC_ERR_NOMEM;
    error = heif_context_get_encoder_for_format(ctx, av1 ? heif_compression_AV1 : heif_compression_HEVC, &encoder);
    if (error.code == heif_error_Ok) error = heif_encoder_set_lossy_quality(encoder, quality);
    if (error.code == heif_error_Ok) {
        enum heif_chroma chroma = depth > 8
            ? (channels == 4 ? heif_chroma_interleaved_RRGGBBAA_LE : heif_chroma_interleaved_RRGGBB_LE)
            : (channels == 4 ? heif_chroma_interleaved_RGBA : heif_chroma_interleaved_RGB);
        error = heif_image_create((int)width, (int)height, heif_colorspace_RGB, chroma, &image);
    }
    if (error.code == heif_error_Ok) error = heif_image_add_plane(image, heif_channel_interleaved, (int)width, (int)height, depth);
    if (error.code == heif_error_Ok) {
        plane = heif_image_get_plane(image, heif_channel_interleaved, &plane_stride);
        for (y = 0; plane != NULL && y < height; y++) {
            memcpy(plane + (size_t)y * (size_t)plane_stride, pixels + (size_t)y * stride,
                   (size_t)width * (size_t)channels * sample_bytes);
        }
        if (icc != NULL && icc_len > 0) error = heif_image_set_raw_color_profile(image, "prof", icc, icc_len);
    }
    if (error.code == heif_error_Ok && extra->nclx_primaries > 0) {
        nclx = heif_nclx_color_profile_alloc();
        if (nclx == NULL) {
            error.code = heif_error_Memory_allocation_error;
        } else {
            nclx->color_primaries = (enum heif_color_primaries)extra->nclx_primaries;
            nclx->transfer_characteristics = (enum heif_transfer_characteristics)extra->nclx_transfer;
            nclx->matrix_coefficients = (enum heif_matrix_coefficients)extra->nclx_matrix;
            nclx->full_range_flag = 1;
            error = heif_image_set_nclx_color_profile(image, nclx);
        }
    }
    if (error.code == heif_error_Ok && extra->max_content_light_level > 0) {
        struct heif_content_light_level cll = { (uint16_t)extra->max_content_light_level, 0 };
        heif_image_set_content_light_level(image, &cll);
    }
    if (error.code == heif_error_Ok) {
        encoding = heif_encoding_options_alloc();
        if (encoding == NULL) error.code = heif_error_Memory_allocation_error;
    }
    if (error.code == heif_error_Ok) {
        if (encoding->version >= 4) encoding->output_nclx_profile = nclx;
        if (encoding->version >= 5) encoding->image_orientation = (enum heif_orientation)extra->orientation;
        else if (extra->orientation != 1) {
            error.code = heif_error_Unsupported_feature;
            error.message = "this libheif cannot write an orientation";
        }
    }
    if (error.code == heif_error_Ok) error = heif_context_encode_image(ctx, image, encoder, encoding, NULL);
    if (error.code == heif_error_Ok) {
        writer.writer_api_version = 1;
        writer.write = tc_heif_write_fn;
        error = heif_context_write(ctx, &writer, &sink);
    }
    if (encoding != NULL) heif_encoding_options_free(encoding);
    if (nclx != NULL) heif_nclx_color_profile_free(nclx);
    if (image != NULL) heif_image_release(image);
    if (encoder != NULL) heif_encoder_release(encoder);
    heif_context_free(ctx);
    if (error.code != heif_error_Ok) {
        free(sink.buffer);
        tc_set_msg(msg, "HEIF encoding failed: %s", error.message != NULL ? error.message : "unknown error");
        return TC_ERR_UNSUPPORTED;
    }
    *out = sink.buffer;
    *out_len = sink.size;
    return TC_OK;
}
