#ifndef TC_CODEC_H
#define TC_CODEC_H
/*
 * Conventions shared by the setjmp-guarded image codecs (tc_jpeg.h, tc_png.h).
 *
 * libjpeg and libpng report fatal errors by longjmp, which Swift frames cannot
 * survive. So every codec entry point is one C function that owns its setjmp,
 * keeps every library call it guards inside itself, and turns a longjmp into a
 * tc_status. On failure the caller's `msg` buffer (TC_MSG_CAP bytes, may be NULL)
 * receives a NUL-terminated reason written for a human.
 */
#include <stddef.h>
#include <stdint.h>

/* Size of the caller-provided message buffer every codec call accepts. */
#define TC_MSG_CAP 200

typedef enum tc_status {
    TC_OK = 0,
    TC_ERR_ARGUMENT = 1,    /* impossible size, buffer or option from the caller */
    TC_ERR_TRUNCATED = 2,   /* the data ends before the image does */
    TC_ERR_CORRUPT = 3,     /* not a valid image of this format */
    TC_ERR_UNSUPPORTED = 4, /* valid, but uses a feature this build cannot decode */
    TC_ERR_LIMIT = 5,       /* larger than the caller's buffer or limits */
    TC_ERR_NOMEM = 6,       /* an allocation failed */
    TC_ERR_LAYOUT = 7       /* the library returned pixels of another size or layout than it promised */
} tc_status;

/* Frees a buffer returned by an encoder (tc_jpeg_encode, tc_png_encode*). */
void tc_codec_free(void *buffer);

#endif
