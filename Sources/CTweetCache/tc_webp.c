/*
 * libwebp behind a small C API: see include/tc_webp.h for the contract.
 */
#include <stdlib.h>
#include <string.h>
#include <webp/decode.h>
#include <webp/demux.h>
#include <webp/encode.h>
#include <webp/mux.h>
#include "tc_webp.h"
#include "tc_jpeg.h"
#include "tc_codec_private.h"

#if TC_WEBP_MAX_DIMENSION != WEBP_MAX_DIMENSION
#error "TC_WEBP_MAX_DIMENSION must match libwebp's WEBP_MAX_DIMENSION"
#endif

static tc_status tc_webp_status(VP8StatusCode code) {
    switch (code) {
    case VP8_STATUS_OK: return TC_OK;
    case VP8_STATUS_OUT_OF_MEMORY: return TC_ERR_NOMEM;
    case VP8_STATUS_INVALID_PARAM: return TC_ERR_ARGUMENT;
    case VP8_STATUS_UNSUPPORTED_FEATURE: return TC_ERR_UNSUPPORTED;
    case VP8_STATUS_NOT_ENOUGH_DATA: return TC_ERR_TRUNCATED;
    default: return TC_ERR_CORRUPT;
    }
}

static const char *tc_webp_reason(VP8StatusCode code) {
    switch (code) {
    case VP8_STATUS_OUT_OF_MEMORY: return "out of memory";
    case VP8_STATUS_INVALID_PARAM: return "invalid parameter";
    case VP8_STATUS_BITSTREAM_ERROR: return "bitstream error";
    case VP8_STATUS_UNSUPPORTED_FEATURE: return "unsupported feature";
    case VP8_STATUS_NOT_ENOUGH_DATA: return "the data ends before the image does";
    default: return "unreadable data";
    }
}

tc_status tc_webp_read_header(const uint8_t *data, size_t len, tc_webp_info *info, char *msg) {
    WebPBitstreamFeatures features;
    VP8StatusCode code;
    if (data == NULL || info == NULL) {
        tc_set_msg(msg, "no WebP data or no info to fill");
        return TC_ERR_ARGUMENT;
    }
    memset(info, 0, sizeof *info);
    code = WebPGetFeatures(data, len, &features);
    if (code != VP8_STATUS_OK) {
        tc_set_msg(msg, "WebP header: %s", tc_webp_reason(code));
        return tc_webp_status(code);
    }
    if (features.width <= 0 || features.height <= 0) {
        tc_set_msg(msg, "WebP of %dx%d pixels", features.width, features.height);
        return TC_ERR_CORRUPT;
    }
    info->width = (uint32_t)features.width;
    info->height = (uint32_t)features.height;
    info->has_alpha = features.has_alpha ? 1 : 0;
    info->animated = features.has_animation ? 1 : 0;
    info->lossless = features.format == 2 ? 1 : 0;
    info->frames = 1;
    info->orientation = 1;
    /* The container's chunk headers (not the image data): EXIF orientation, and an animation's
     * canvas and frame count. A simple VP8/VP8L file has neither; its demuxer says so. */
    {
        WebPData whole = { data, len };
        WebPDemuxer *demux = WebPDemux(&whole);
        WebPChunkIterator chunk;
        if (demux == NULL) {
            if (!info->animated) return TC_OK;
            tc_set_msg(msg, "WebP animation: unreadable container");
            return TC_ERR_CORRUPT;
        }
        if ((WebPDemuxGetI(demux, WEBP_FF_FORMAT_FLAGS) & EXIF_FLAG) && WebPDemuxGetChunk(demux, "EXIF", 1, &chunk)) {
            const uint8_t *tiff = chunk.chunk.bytes;
            size_t size = chunk.chunk.size;
            int o;
            /* The spec says the chunk is the TIFF structure; some writers keep JPEG's "Exif\0\0" in front. */
            if (size >= 6 && memcmp(tiff, "Exif\0\0", 6) == 0) {
                tiff += 6;
                size -= 6;
            }
            o = tc_exif_orientation(tiff, size);
            info->orientation = o == 0 ? 1 : o;
            WebPDemuxReleaseChunkIterator(&chunk);
        }
        if (info->animated) {
            info->frames = (int)WebPDemuxGetI(demux, WEBP_FF_FRAME_COUNT);
            info->width = WebPDemuxGetI(demux, WEBP_FF_CANVAS_WIDTH);
            info->height = WebPDemuxGetI(demux, WEBP_FF_CANVAS_HEIGHT);
        }
        WebPDemuxDelete(demux);
        if (info->frames < 1) {
            tc_set_msg(msg, "WebP animation without frames");
            return TC_ERR_CORRUPT;
        }
    }
    return TC_OK;
}

tc_status tc_webp_read_icc(const uint8_t *data, size_t len, uint8_t **icc, size_t *icc_len, char *msg) {
    WebPData whole;
    WebPDemuxer *demux;
    WebPChunkIterator chunk;
    if (data == NULL || icc == NULL || icc_len == NULL) {
        tc_set_msg(msg, "no WebP data or no profile pointers");
        return TC_ERR_ARGUMENT;
    }
    *icc = NULL;
    *icc_len = 0;
    whole.bytes = data;
    whole.size = len;
    demux = WebPDemux(&whole);
    if (demux == NULL) return TC_OK; /* a simple (VP8/VP8L) file has no chunks; a broken one fails at decode */
    if ((WebPDemuxGetI(demux, WEBP_FF_FORMAT_FLAGS) & ICCP_FLAG) && WebPDemuxGetChunk(demux, "ICCP", 1, &chunk)) {
        if (chunk.chunk.size > 0) {
            *icc = (uint8_t *)malloc(chunk.chunk.size);
            if (*icc == NULL) {
                WebPDemuxReleaseChunkIterator(&chunk);
                WebPDemuxDelete(demux);
                return TC_ERR_NOMEM;
            }
            memcpy(*icc, chunk.chunk.bytes, chunk.chunk.size);
            *icc_len = chunk.chunk.size;
        }
        WebPDemuxReleaseChunkIterator(&chunk);
    }
    WebPDemuxDelete(demux);
    return TC_OK;
}

/* The first frame of an animation, composed on its canvas, into `out`. */
static tc_status tc_webp_first_frame(const uint8_t *data, size_t len, uint32_t width, uint32_t height, int out_channels,
                                     uint8_t *out, size_t stride, char *msg) {
    WebPData whole = { data, len };
    WebPAnimDecoderOptions options;
    WebPAnimDecoder *decoder;
    WebPAnimInfo anim;
    uint8_t *frame = NULL;
    int timestamp = 0;
    uint32_t x, y;
    if (!WebPAnimDecoderOptionsInit(&options)) return TC_ERR_ARGUMENT;
    options.color_mode = MODE_RGBA;
    options.use_threads = 0;
    decoder = WebPAnimDecoderNew(&whole, &options);
    if (decoder == NULL) {
        tc_set_msg(msg, "WebP animation: unreadable frames");
        return TC_ERR_CORRUPT;
    }
    if (!WebPAnimDecoderGetInfo(decoder, &anim) || anim.canvas_width != width || anim.canvas_height != height) {
        WebPAnimDecoderDelete(decoder);
        tc_set_msg(msg, "WebP animation: the canvas is not %ux%u", width, height);
        return TC_ERR_CORRUPT;
    }
    if (!WebPAnimDecoderGetNext(decoder, &frame, &timestamp) || frame == NULL) {
        WebPAnimDecoderDelete(decoder);
        tc_set_msg(msg, "WebP animation: the first frame does not decode");
        return TC_ERR_CORRUPT;
    }
    for (y = 0; y < height; y++) {
        const uint8_t *src = frame + (size_t)y * width * 4;
        uint8_t *dst = out + (size_t)y * stride;
        if (out_channels == 4) {
            memcpy(dst, src, (size_t)width * 4);
        } else {
            for (x = 0; x < width; x++) {
                dst[3 * x] = src[4 * x];
                dst[3 * x + 1] = src[4 * x + 1];
                dst[3 * x + 2] = src[4 * x + 2];
            }
        }
    }
    WebPAnimDecoderDelete(decoder);
    return TC_OK;
}

tc_status tc_webp_decode(const uint8_t *data, size_t len, uint32_t width, uint32_t height, int out_channels,
                         uint8_t *out, size_t out_capacity, size_t stride, char *msg) {
    WebPDecoderConfig config;
    VP8StatusCode code;
    if (data == NULL || out == NULL || (out_channels != 3 && out_channels != 4) || width == 0 || height == 0
        || !tc_rows_fit((size_t)width * (size_t)out_channels, height, stride, out_capacity)) {
        tc_set_msg(msg, "invalid WebP decode arguments (%ux%u, %d channels, stride %zu)", width, height, out_channels, stride);
        return TC_ERR_ARGUMENT;
    }
    if (!WebPInitDecoderConfig(&config)) return TC_ERR_ARGUMENT;
    code = WebPGetFeatures(data, len, &config.input);
    if (code != VP8_STATUS_OK) {
        tc_set_msg(msg, "WebP header: %s", tc_webp_reason(code));
        return tc_webp_status(code);
    }
    if (config.input.has_animation) return tc_webp_first_frame(data, len, width, height, out_channels, out, stride, msg);
    if ((uint32_t)config.input.width != width || (uint32_t)config.input.height != height) {
        if (width > (uint32_t)config.input.width || height > (uint32_t)config.input.height) {
            tc_set_msg(msg, "WebP scaling only shrinks (%dx%d to %ux%u)", config.input.width, config.input.height, width, height);
            return TC_ERR_ARGUMENT;
        }
        config.options.use_scaling = 1;
        config.options.scaled_width = (int)width;
        config.options.scaled_height = (int)height;
    }
    config.output.colorspace = out_channels == 4 ? MODE_RGBA : MODE_RGB;
    config.output.is_external_memory = 1;
    config.output.u.RGBA.rgba = out;
    config.output.u.RGBA.stride = (int)stride;
    config.output.u.RGBA.size = out_capacity;
    code = WebPDecode(data, len, &config);
    WebPFreeDecBuffer(&config.output);
    if (code != VP8_STATUS_OK) {
        tc_set_msg(msg, "%s", tc_webp_reason(code));
        return tc_webp_status(code);
    }
    return TC_OK;
}

/* Wraps a bitstream with ICCP and EXIF chunks (VP8X container) through libwebpmux. */
static tc_status tc_webp_add_chunks(uint8_t **bytes, size_t *size, const uint8_t *icc, size_t icc_len,
                                    int orientation, char *msg) {
    /* A big-endian TIFF header and one IFD0 entry, Orientation (SHORT), as tc_jpeg writes Exif. */
    const uint8_t tiff[] = { 'M', 'M', 0, 42, 0, 0, 0, 8, 0, 1, 0x01, 0x12, 0, 3, 0, 0, 0, 1, 0,
                             (uint8_t)orientation, 0, 0, 0, 0, 0, 0 };
    WebPMux *mux;
    WebPData image = { *bytes, *size }, profile = { icc, icc_len }, exif = { tiff, sizeof tiff };
    WebPData assembled = { NULL, 0 };
    mux = WebPMuxNew();
    if (mux == NULL) return TC_ERR_NOMEM;
    if (WebPMuxSetImage(mux, &image, 1) != WEBP_MUX_OK
        || (icc != NULL && icc_len > 0 && WebPMuxSetChunk(mux, "ICCP", &profile, 1) != WEBP_MUX_OK)
        || (orientation > 0 && WebPMuxSetChunk(mux, "EXIF", &exif, 1) != WEBP_MUX_OK)
        || WebPMuxAssemble(mux, &assembled) != WEBP_MUX_OK) {
        WebPMuxDelete(mux);
        tc_set_msg(msg, "could not add the ICC profile or Exif to the WebP");
        return TC_ERR_ARGUMENT;
    }
    WebPMuxDelete(mux);
    free(*bytes);
    *bytes = (uint8_t *)malloc(assembled.size);
    if (*bytes == NULL) {
        WebPDataClear(&assembled);
        return TC_ERR_NOMEM;
    }
    memcpy(*bytes, assembled.bytes, assembled.size);
    *size = assembled.size;
    WebPDataClear(&assembled);
    return TC_OK;
}

tc_status tc_webp_encode(const uint8_t *pixels, uint32_t width, uint32_t height, int channels, size_t stride,
                         const tc_webp_encode_options *o, uint8_t **out, size_t *out_len, char *msg) {
    uint8_t *encoded = NULL;
    size_t size;
    tc_status status;
    if (out == NULL || out_len == NULL) return TC_ERR_ARGUMENT;
    *out = NULL;
    *out_len = 0;
    if (pixels == NULL || o == NULL || (channels != 3 && channels != 4) || width == 0 || height == 0
        || width > WEBP_MAX_DIMENSION || height > WEBP_MAX_DIMENSION || stride < (size_t)width * (size_t)channels
        || stride > 0x7FFFFFFF || !(o->quality >= 0 && o->quality <= 100)) {
        tc_set_msg(msg, "invalid WebP encode arguments (%ux%u, %d channels; WebP allows up to %d pixels a side)",
                   width, height, channels, WEBP_MAX_DIMENSION);
        return TC_ERR_ARGUMENT;
    }
    if (o->lossless) {
        size = channels == 4 ? WebPEncodeLosslessRGBA(pixels, (int)width, (int)height, (int)stride, &encoded)
                             : WebPEncodeLosslessRGB(pixels, (int)width, (int)height, (int)stride, &encoded);
    } else {
        size = channels == 4 ? WebPEncodeRGBA(pixels, (int)width, (int)height, (int)stride, o->quality, &encoded)
                             : WebPEncodeRGB(pixels, (int)width, (int)height, (int)stride, o->quality, &encoded);
    }
    if (size == 0 || encoded == NULL) {
        WebPFree(encoded);
        tc_set_msg(msg, "WebP encoding failed");
        return TC_ERR_NOMEM;
    }
    /* Hand back memory that tc_codec_free (free) may release, whatever allocator libwebp uses. */
    *out = (uint8_t *)malloc(size);
    if (*out == NULL) {
        WebPFree(encoded);
        return TC_ERR_NOMEM;
    }
    memcpy(*out, encoded, size);
    WebPFree(encoded);
    *out_len = size;
    if ((o->icc != NULL && o->icc_len > 0) || (o->exif_orientation > 0 && o->exif_orientation <= 8)) {
        status = tc_webp_add_chunks(out, out_len, o->icc, o->icc_len,
                                    o->exif_orientation > 0 && o->exif_orientation <= 8 ? o->exif_orientation : 0, msg);
        if (status != TC_OK) {
            free(*out);
            *out = NULL;
            *out_len = 0;
            return status;
        }
    }
    return TC_OK;
}

tc_status tc_webp_encode_animation(const uint8_t *rgba, uint32_t width, uint32_t height, int frames,
                                   int frame_ms, int lossless, uint8_t **out, size_t *out_len, char *msg) {
    WebPAnimEncoderOptions anim_options;
    WebPAnimEncoder *encoder;
    WebPConfig config;
    WebPPicture picture;
    WebPData assembled = { NULL, 0 };
    int i, timestamp = 0, ok = 1;
    if (out == NULL || out_len == NULL) return TC_ERR_ARGUMENT;
    *out = NULL;
    *out_len = 0;
    if (rgba == NULL || frames < 1 || width == 0 || height == 0 || width > WEBP_MAX_DIMENSION
        || height > WEBP_MAX_DIMENSION || frame_ms < 1) {
        tc_set_msg(msg, "invalid WebP animation arguments");
        return TC_ERR_ARGUMENT;
    }
    if (!WebPAnimEncoderOptionsInit(&anim_options) || !WebPConfigInit(&config) || !WebPPictureInit(&picture)) {
        return TC_ERR_ARGUMENT;
    }
    config.lossless = lossless ? 1 : 0;
    encoder = WebPAnimEncoderNew((int)width, (int)height, &anim_options);
    if (encoder == NULL) return TC_ERR_NOMEM;
    picture.width = (int)width;
    picture.height = (int)height;
    picture.use_argb = 1;
    for (i = 0; i < frames && ok; i++) {
        ok = WebPPictureImportRGBA(&picture, rgba + (size_t)i * width * height * 4, (int)width * 4)
            && WebPAnimEncoderAdd(encoder, &picture, timestamp, &config);
        timestamp += frame_ms;
    }
    ok = ok && WebPAnimEncoderAdd(encoder, NULL, timestamp, NULL) && WebPAnimEncoderAssemble(encoder, &assembled);
    WebPPictureFree(&picture);
    WebPAnimEncoderDelete(encoder);
    if (!ok) {
        WebPDataClear(&assembled);
        tc_set_msg(msg, "WebP animation encoding failed");
        return TC_ERR_ARGUMENT;
    }
    *out = (uint8_t *)malloc(assembled.size);
    if (*out == NULL) {
        WebPDataClear(&assembled);
        return TC_ERR_NOMEM;
    }
    memcpy(*out, assembled.bytes, assembled.size);
    *out_len = assembled.size;
    WebPDataClear(&assembled);
    return TC_OK;
}
