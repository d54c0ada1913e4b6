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

tc_status tc_heif_decode(const uint8_t *data, size_t len, uint32_t width, uint32_t height, int out_channels,
                         uint8_t *out, size_t out_capacity, size_t stride, char *msg) {
    struct heif_context *ctx;
    struct heif_image_handle *handle;
    struct heif_decoding_options *options;
    struct heif_image *image = NULL;
    struct heif_error error;
    const uint8_t *plane;
    int plane_stride = 0;
    tc_status status;
    uint32_t y;
    if (out == NULL || (out_channels != 3 && out_channels != 4) || width == 0 || height == 0
        || !tc_rows_fit((size_t)width * (size_t)out_channels, height, stride, out_capacity)) {
        tc_set_msg(msg, "invalid HEIF decode arguments (%ux%u, %d channels, stride %zu)", width, height, out_channels, stride);
        return TC_ERR_ARGUMENT;
    }
    status = tc_heif_open(data, len, &ctx, &handle, msg);
    if (status != TC_OK) return status;
    if ((uint32_t)heif_image_handle_get_width(handle) != width || (uint32_t)heif_image_handle_get_height(handle) != height) {
        tc_set_msg(msg, "the HEIF image is not %ux%u", width, height);
        tc_heif_close(ctx, handle);
        return TC_ERR_ARGUMENT;
    }
    options = heif_decoding_options_alloc();
    if (options == NULL) {
        tc_heif_close(ctx, handle);
        return TC_ERR_NOMEM;
    }
    options->convert_hdr_to_8bit = 1;
    error = heif_decode_image(handle, &image, heif_colorspace_RGB,
                              out_channels == 4 ? heif_chroma_interleaved_RGBA : heif_chroma_interleaved_RGB, options);
    heif_decoding_options_free(options);
    if (error.code != heif_error_Ok || image == NULL) {
        status = tc_heif_status(error, msg);
        if (image != NULL) heif_image_release(image);
        tc_heif_close(ctx, handle);
        return status == TC_OK ? TC_ERR_CORRUPT : status;
    }
    plane = heif_image_get_plane_readonly(image, heif_channel_interleaved, &plane_stride);
    if (plane == NULL || heif_image_get_width(image, heif_channel_interleaved) != (int)width
        || heif_image_get_height(image, heif_channel_interleaved) != (int)height
        || heif_image_get_bits_per_pixel_range(image, heif_channel_interleaved) != 8
        || plane_stride < (int)(width * (uint32_t)out_channels)) {
        tc_set_msg(msg, "libheif returned an unexpected %dx%d plane", heif_image_get_width(image, heif_channel_interleaved),
                   heif_image_get_height(image, heif_channel_interleaved));
        heif_image_release(image);
        tc_heif_close(ctx, handle);
        return TC_ERR_CORRUPT;
    }
    for (y = 0; y < height; y++) {
        memcpy(out + (size_t)y * stride, plane + (size_t)y * (size_t)plane_stride, (size_t)width * (size_t)out_channels);
    }
    heif_image_release(image);
    tc_heif_close(ctx, handle);
    return TC_OK;
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
    struct heif_context *ctx;
    struct heif_encoder *encoder = NULL;
    struct heif_image *image = NULL;
    struct heif_error error;
    struct heif_writer writer;
    tc_heif_sink sink = { NULL, 0 };
    uint8_t *plane;
    int plane_stride = 0;
    uint32_t y;
    if (out == NULL || out_len == NULL) return TC_ERR_ARGUMENT;
    *out = NULL;
    *out_len = 0;
    if (pixels == NULL || (channels != 3 && channels != 4) || width == 0 || height == 0 || width > 16384
        || height > 16384 || stride < (size_t)width * (size_t)channels || quality < 0 || quality > 100) {
        tc_set_msg(msg, "invalid HEIF encode arguments");
        return TC_ERR_ARGUMENT;
    }
    ctx = heif_context_alloc();
    if (ctx == NULL) return TC_ERR_NOMEM;
    error = heif_context_get_encoder_for_format(ctx, av1 ? heif_compression_AV1 : heif_compression_HEVC, &encoder);
    if (error.code == heif_error_Ok) error = heif_encoder_set_lossy_quality(encoder, quality);
    if (error.code == heif_error_Ok) {
        error = heif_image_create((int)width, (int)height, heif_colorspace_RGB,
                                  channels == 4 ? heif_chroma_interleaved_RGBA : heif_chroma_interleaved_RGB, &image);
    }
    if (error.code == heif_error_Ok) error = heif_image_add_plane(image, heif_channel_interleaved, (int)width, (int)height, 8);
    if (error.code == heif_error_Ok) {
        plane = heif_image_get_plane(image, heif_channel_interleaved, &plane_stride);
        for (y = 0; plane != NULL && y < height; y++) {
            memcpy(plane + (size_t)y * (size_t)plane_stride, pixels + (size_t)y * stride, (size_t)width * (size_t)channels);
        }
        if (icc != NULL && icc_len > 0) error = heif_image_set_raw_color_profile(image, "prof", icc, icc_len);
    }
    if (error.code == heif_error_Ok) error = heif_context_encode_image(ctx, image, encoder, NULL, NULL);
    if (error.code == heif_error_Ok) {
        writer.writer_api_version = 1;
        writer.write = tc_heif_write_fn;
        error = heif_context_write(ctx, &writer, &sink);
    }
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
