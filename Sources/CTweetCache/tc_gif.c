/*
 * giflib behind a small C API: see include/tc_gif.h for the contract.
 */
#include <stdlib.h>
#include <string.h>
#include <gif_lib.h>
#include "tc_gif.h"
#include "tc_codec_private.h"

typedef struct tc_gif_reader {
    const uint8_t *data;
    size_t len;
    size_t pos;
    int hit_eof;
} tc_gif_reader;

static int tc_gif_read_fn(GifFileType *gif, GifByteType *dst, int n) {
    tc_gif_reader *r = (tc_gif_reader *)gif->UserData;
    size_t available = r->len - r->pos;
    size_t want = n > 0 ? (size_t)n : 0;
    if (want > available) {
        r->hit_eof = 1;
        want = available;
    }
    memcpy(dst, r->data + r->pos, want);
    r->pos += want;
    return (int)want;
}

static tc_status tc_gif_fail(const tc_gif_reader *r, int code, char *msg) {
    const char *text = GifErrorString(code);
    tc_set_msg(msg, "%s", text != NULL ? text : "unreadable GIF");
    if (r->hit_eof || code == D_GIF_ERR_EOF_TOO_SOON) return TC_ERR_TRUNCATED;
    if (code == D_GIF_ERR_NOT_ENOUGH_MEM) return TC_ERR_NOMEM;
    return TC_ERR_CORRUPT;
}

/* What the records before the first image say; fills gif->Image for it. */
typedef struct tc_gif_first {
    int transparent; /* -1: none */
} tc_gif_first;

/* Reads records up to and including the first image descriptor. */
static int tc_gif_to_first_image(GifFileType *gif, tc_gif_first *first) {
    GifRecordType type;
    first->transparent = -1;
    for (;;) {
        if (DGifGetRecordType(gif, &type) == GIF_ERROR) return GIF_ERROR;
        if (type == IMAGE_DESC_RECORD_TYPE) return DGifGetImageDesc(gif);
        if (type == TERMINATE_RECORD_TYPE) {
            gif->Error = D_GIF_ERR_NO_IMAG_DSCR;
            return GIF_ERROR;
        }
        if (type == EXTENSION_RECORD_TYPE) {
            int code;
            GifByteType *ext = NULL;
            if (DGifGetExtension(gif, &code, &ext) == GIF_ERROR) return GIF_ERROR;
            if (code == GRAPHICS_EXT_FUNC_CODE && ext != NULL && ext[0] >= 4) {
                GraphicsControlBlock gcb;
                if (DGifExtensionToGCB(ext[0], ext + 1, &gcb) == GIF_OK) first->transparent = gcb.TransparentColor;
            }
            while (ext != NULL) {
                if (DGifGetExtensionNext(gif, &ext) == GIF_ERROR) return GIF_ERROR;
            }
        }
    }
}

/* Skips an image's compressed data without decoding it. */
static int tc_gif_skip_image(GifFileType *gif) {
    int code_size;
    GifByteType *block = NULL;
    if (DGifGetCode(gif, &code_size, &block) == GIF_ERROR) return GIF_ERROR;
    while (block != NULL) {
        if (DGifGetCodeNext(gif, &block) == GIF_ERROR) return GIF_ERROR;
    }
    return GIF_OK;
}

/* Counts the frames after the current one by walking records (data skipped, not decoded). */
static int tc_gif_count_rest(GifFileType *gif) {
    int frames = 1;
    GifRecordType type;
    if (tc_gif_skip_image(gif) == GIF_ERROR) return frames;
    while (frames < TC_GIF_MAX_COUNTED_FRAMES && DGifGetRecordType(gif, &type) != GIF_ERROR) {
        if (type == TERMINATE_RECORD_TYPE) break;
        if (type == IMAGE_DESC_RECORD_TYPE) {
            /* DGifGetImageDesc grows SavedImages each call: skip the descriptor by hand instead. */
            GifByteType desc[9];
            if (tc_gif_read_fn(gif, desc, 9) != 9) break;
            if (desc[8] & 0x80) {
                size_t table = (size_t)3 << ((desc[8] & 7) + 1);
                tc_gif_reader *r = (tc_gif_reader *)gif->UserData;
                if (table > r->len - r->pos) break;
                r->pos += table;
            }
            frames++;
            {
                GifByteType lzw;
                size_t block;
                tc_gif_reader *r = (tc_gif_reader *)gif->UserData;
                if (tc_gif_read_fn(gif, &lzw, 1) != 1) break;
                /* data sub-blocks: a length byte, then that many bytes, until a zero length */
                for (;;) {
                    if (r->pos >= r->len) return frames;
                    block = r->data[r->pos++];
                    if (block == 0) break;
                    if (block > r->len - r->pos) return frames;
                    r->pos += block;
                }
            }
        } else if (type == EXTENSION_RECORD_TYPE) {
            int code;
            GifByteType *ext = NULL;
            if (DGifGetExtension(gif, &code, &ext) == GIF_ERROR) break;
            while (ext != NULL) {
                if (DGifGetExtensionNext(gif, &ext) == GIF_ERROR) return frames;
            }
        }
    }
    return frames;
}

static GifFileType *tc_gif_open(tc_gif_reader *r, const uint8_t *data, size_t len, int *error) {
    memset(r, 0, sizeof *r);
    r->data = data;
    r->len = len;
    return DGifOpen(r, tc_gif_read_fn, error);
}

/*
 * A frame's rows are LZW-decoded even where they fall outside the canvas, so its size
 * bounds the work: a 65535 x 65535 frame over a small canvas would be a CPU bomb that
 * the canvas's pixel limit never sees. Frames a little larger than their canvas exist
 * (and are clipped); more than 4x its area (plus 64K pixels for tiny canvases) is refused.
 */
static int tc_gif_frame_ok(const GifFileType *gif, char *msg) {
    size_t frame = (size_t)gif->Image.Width * (size_t)gif->Image.Height;
    size_t canvas = (size_t)gif->SWidth * (size_t)gif->SHeight;
    if (frame <= 4 * canvas + 65536) return 1;
    tc_set_msg(msg, "GIF frame of %dx%d is far larger than its %dx%d canvas",
               gif->Image.Width, gif->Image.Height, gif->SWidth, gif->SHeight);
    return 0;
}

static int tc_gif_covers(const GifFileType *gif) {
    const GifImageDesc *d = &gif->Image;
    return d->Left == 0 && d->Top == 0 && d->Width >= gif->SWidth && d->Height >= gif->SHeight;
}

/* Opens `data` and reads up to the first frame's descriptor, checked; on TC_OK the caller closes *out. */
static tc_status tc_gif_open_first(tc_gif_reader *reader, const uint8_t *data, size_t len, GifFileType **out,
                                   tc_gif_first *first, char *msg) {
    int error = 0;
    GifFileType *gif = tc_gif_open(reader, data, len, &error);
    *out = NULL;
    if (gif == NULL) return tc_gif_fail(reader, error, msg);
    if (gif->SWidth <= 0 || gif->SHeight <= 0) {
        tc_set_msg(msg, "GIF with a %dx%d screen", gif->SWidth, gif->SHeight);
        DGifCloseFile(gif, &error);
        return TC_ERR_CORRUPT;
    }
    if (tc_gif_to_first_image(gif, first) == GIF_ERROR) {
        tc_status status = tc_gif_fail(reader, gif->Error, msg);
        DGifCloseFile(gif, &error);
        return status;
    }
    if (!tc_gif_frame_ok(gif, msg)) {
        DGifCloseFile(gif, &error);
        return TC_ERR_CORRUPT;
    }
    *out = gif;
    return TC_OK;
}

tc_status tc_gif_read_header(const uint8_t *data, size_t len, tc_gif_info *info, char *msg) {
    tc_gif_reader reader;
    tc_gif_first first;
    GifFileType *gif;
    tc_status status;
    int error = 0;
    if (data == NULL || info == NULL) {
        tc_set_msg(msg, "no GIF data or no info to fill");
        return TC_ERR_ARGUMENT;
    }
    memset(info, 0, sizeof *info);
    status = tc_gif_open_first(&reader, data, len, &gif, &first, msg);
    if (status != TC_OK) return status;
    info->width = (uint32_t)gif->SWidth;
    info->height = (uint32_t)gif->SHeight;
    info->interlaced = gif->Image.Interlace ? 1 : 0;
    info->has_alpha = first.transparent >= 0 || !tc_gif_covers(gif);
    info->frames = tc_gif_count_rest(gif);
    DGifCloseFile(gif, &error);
    return TC_OK;
}

tc_status tc_gif_decode(const uint8_t *data, size_t len, int out_channels,
                        uint8_t *out, size_t out_capacity, size_t stride, char *msg) {
    static const int starts[4] = { 0, 4, 2, 1 }, steps[4] = { 8, 8, 4, 2 };
    tc_gif_reader reader;
    tc_gif_first first;
    GifFileType *gif;
    const ColorMapObject *map;
    GifPixelType *line = NULL;
    tc_status status;
    int error = 0, pass, row, x, width, height, left, top;
    uint32_t y;
    if (data == NULL || out == NULL || (out_channels != 3 && out_channels != 4)) {
        tc_set_msg(msg, "invalid GIF decode arguments (%d channels)", out_channels);
        return TC_ERR_ARGUMENT;
    }
    status = tc_gif_open_first(&reader, data, len, &gif, &first, msg);
    if (status != TC_OK) return status;
    if (!tc_rows_fit((size_t)gif->SWidth * (size_t)out_channels, (size_t)gif->SHeight, stride, out_capacity)) {
        tc_set_msg(msg, "a %dx%d GIF does not fit the %zu-byte buffer (stride %zu)", gif->SWidth, gif->SHeight, out_capacity, stride);
        DGifCloseFile(gif, &error);
        return TC_ERR_LIMIT;
    }
    map = gif->Image.ColorMap != NULL ? gif->Image.ColorMap : gif->SColorMap;
    if (map == NULL) {
        tc_set_msg(msg, "GIF frame without a colour table");
        DGifCloseFile(gif, &error);
        return TC_ERR_CORRUPT;
    }
    /* A transparent canvas (opaque black when the caller asked for RGB, i.e. the header said no alpha). */
    for (y = 0; y < (uint32_t)gif->SHeight; y++) memset(out + (size_t)y * stride, 0, (size_t)gif->SWidth * (size_t)out_channels);
    width = gif->Image.Width;
    height = gif->Image.Height;
    left = gif->Image.Left;
    top = gif->Image.Top;
    if (width <= 0 || height <= 0) {
        DGifCloseFile(gif, &error);
        tc_set_msg(msg, "GIF frame of %dx%d pixels", width, height);
        return TC_ERR_CORRUPT;
    }
    line = (GifPixelType *)malloc((size_t)width);
    if (line == NULL) {
        DGifCloseFile(gif, &error);
        return TC_ERR_NOMEM;
    }
    for (pass = gif->Image.Interlace ? 0 : 3; pass < 4; pass++) {
        int start = gif->Image.Interlace ? starts[pass] : 0, step = gif->Image.Interlace ? steps[pass] : 1;
        for (row = start; row < height; row += step) {
            int cy = top + row;
            if (DGifGetLine(gif, line, width) == GIF_ERROR) {
                tc_status status = tc_gif_fail(&reader, gif->Error, msg);
                free(line);
                DGifCloseFile(gif, &error);
                return status;
            }
            if (cy < 0 || cy >= gif->SHeight) continue;
            for (x = 0; x < width; x++) {
                int cx = left + x, index = line[x];
                uint8_t *dst;
                if (cx < 0 || cx >= gif->SWidth) continue;
                dst = out + (size_t)cy * stride + (size_t)cx * (size_t)out_channels;
                if (index == first.transparent) continue;
                if (index < map->ColorCount) {
                    dst[0] = map->Colors[index].Red;
                    dst[1] = map->Colors[index].Green;
                    dst[2] = map->Colors[index].Blue;
                }
                if (out_channels == 4) dst[3] = 255;
            }
        }
    }
    free(line);
    DGifCloseFile(gif, &error);
    return TC_OK;
}

typedef struct tc_gif_writer {
    uint8_t *buffer;
    size_t size;
    size_t capacity;
} tc_gif_writer;

static int tc_gif_write_fn(GifFileType *gif, const GifByteType *src, int n) {
    tc_gif_writer *w = (tc_gif_writer *)gif->UserData;
    if (n <= 0) return 0;
    if ((size_t)n > w->capacity - w->size) {
        size_t cap = w->capacity ? w->capacity : 4096;
        uint8_t *grown;
        while (cap - w->size < (size_t)n) cap *= 2;
        grown = (uint8_t *)realloc(w->buffer, cap);
        if (grown == NULL) return 0;
        w->buffer = grown;
        w->capacity = cap;
    }
    memcpy(w->buffer + w->size, src, (size_t)n);
    w->size += (size_t)n;
    return n;
}

tc_status tc_gif_encode(const uint8_t *indices, uint32_t width, uint32_t height,
                        const uint8_t *palette, int palette_count, int transparent, int interlaced, int frames,
                        uint8_t **out, size_t *out_len, char *msg) {
    static const int starts[4] = { 0, 4, 2, 1 }, steps[4] = { 8, 8, 4, 2 };
    tc_gif_writer writer = { NULL, 0, 0 };
    GifColorType colors[256];
    ColorMapObject *map;
    GifFileType *gif;
    int error = 0, i, ok, frame;
    if (out == NULL || out_len == NULL) return TC_ERR_ARGUMENT;
    *out = NULL;
    *out_len = 0;
    if (indices == NULL || palette == NULL || width == 0 || height == 0 || width > 65535 || height > 65535
        || palette_count < 2 || palette_count > 256 || (palette_count & (palette_count - 1)) != 0
        || transparent >= palette_count || frames < 1) {
        tc_set_msg(msg, "invalid GIF encode arguments");
        return TC_ERR_ARGUMENT;
    }
    for (i = 0; i < palette_count; i++) {
        colors[i].Red = palette[3 * i];
        colors[i].Green = palette[3 * i + 1];
        colors[i].Blue = palette[3 * i + 2];
    }
    map = GifMakeMapObject(palette_count, colors);
    if (map == NULL) return TC_ERR_NOMEM;
    gif = EGifOpen(&writer, tc_gif_write_fn, &error);
    if (gif == NULL) {
        GifFreeMapObject(map);
        return TC_ERR_NOMEM;
    }
    EGifSetGifVersion(gif, true);
    ok = EGifPutScreenDesc(gif, (int)width, (int)height, 8, 0, map) != GIF_ERROR;
    for (frame = 0; ok && frame < frames; frame++) {
        GifByteType gce[4] = { (GifByteType)(transparent >= 0 ? 1 : 0), 10, 0, (GifByteType)(transparent >= 0 ? transparent : 0) };
        int pass;
        ok = EGifPutExtension(gif, GRAPHICS_EXT_FUNC_CODE, 4, gce) != GIF_ERROR
            && EGifPutImageDesc(gif, 0, 0, (int)width, (int)height, interlaced ? true : false, NULL) != GIF_ERROR;
        for (pass = interlaced ? 0 : 3; ok && pass < 4; pass++) {
            uint32_t row;
            uint32_t start = interlaced ? (uint32_t)starts[pass] : 0, step = interlaced ? (uint32_t)steps[pass] : 1;
            for (row = start; ok && row < height; row += step) {
                ok = EGifPutLine(gif, (GifPixelType *)(uintptr_t)(indices + (size_t)row * width), (int)width) != GIF_ERROR;
            }
        }
    }
    if (EGifCloseFile(gif, &error) == GIF_ERROR) ok = 0;
    GifFreeMapObject(map);
    if (!ok) {
        free(writer.buffer);
        tc_set_msg(msg, "GIF encoding failed");
        return TC_ERR_NOMEM;
    }
    *out = writer.buffer;
    *out_len = writer.size;
    return TC_OK;
}
