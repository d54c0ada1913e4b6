#ifndef TC_COLOR_H
#define TC_COLOR_H
/*
 * Colour management through Little CMS 2: a decoded image's pixels, described
 * by an embedded ICC profile or by PNG/HEIF colour chunks, converted to sRGB.
 *
 * lcms2 reports errors through a log callback and NULL returns, never longjmp;
 * each transform gets its own lcms context so the callback writes into the
 * caller's message buffer without global state. Transforms are created with
 * cmsFLAGS_NOCACHE, which makes tc_color_apply safe from several threads at
 * once on the same transform (lcms2's one-pixel cache is the only shared state).
 * See tc_codec.h for status codes and the `msg` convention.
 */
#include "tc_codec.h"

/* How the pixels handed to tc_color_apply are laid out. */
typedef enum tc_color_input {
    TC_COLOR_RGB8 = 0,            /* 3 bytes per pixel */
    TC_COLOR_RGBA8 = 1,           /* 4 bytes; alpha copied through */
    TC_COLOR_RGB16_BE = 2,        /* 6 bytes, big-endian samples as PNG stores them */
    TC_COLOR_RGBA16_BE = 3,       /* 8 bytes, big-endian; alpha scaled to 8 bits */
    TC_COLOR_CMYK8 = 4,           /* 4 bytes of ink amounts (0 = no ink) */
    TC_COLOR_CMYK8_INVERTED = 5   /* 4 bytes of 255 - ink, as Adobe's APP14 files store them */
} tc_color_input;

/* The colour space an ICC profile describes, as far as TweetCache cares. */
typedef enum tc_color_space {
    TC_SPACE_OTHER = 0,  /* Lab, XYZ, n-colour, ...: not used for an image's pixels here */
    TC_SPACE_RGB = 1,
    TC_SPACE_CMYK = 2,
    TC_SPACE_GRAY = 3
} tc_color_space;

typedef struct tc_icc_info {
    tc_color_space space;
    int device_class_ok;  /* 1 for input, display, output or colour-space profiles (not links, not abstract) */
    char description[64]; /* the profile's own name (desc tag), ASCII, may be empty */
} tc_icc_info;

/* Parses a profile (header, tag table and description) without building a transform. */
tc_status tc_icc_inspect(const uint8_t *icc, size_t len, tc_icc_info *info, char *msg);

/* An immutable conversion to 8-bit sRGB (relative colorimetric, as libvips does by default). */
typedef struct tc_color_transform tc_color_transform;

/*
 * A transform from an ICC profile whose colour space must match `input`
 * (RGB for the RGB layouts, CMYK for the CMYK ones), else TC_ERR_UNSUPPORTED.
 * out_channels is 3 (RGB) or 4 (RGBA: alpha copied from RGBA input, opaque otherwise).
 */
tc_status tc_color_create_icc(const uint8_t *icc, size_t len, tc_color_input input, int out_channels,
                              tc_color_transform **out, char *msg);

/*
 * A transform from chromaticities and a tone curve, for PNG gAMA + cHRM and
 * HEIF/AVIF nclx boxes. `xy` holds white x, y then red, green, blue x, y.
 * `srgb_curve` 1 uses sRGB's piecewise curve; 0 a pure power `decode_gamma`
 * (2.2 for a PNG gAMA of 0.45455).
 */
tc_status tc_color_create_rgb(const double xy[8], int srgb_curve, double decode_gamma,
                              tc_color_input input, int out_channels,
                              tc_color_transform **out, char *msg);

/* Converts `pixels` pixels; `in` and `out` may be the same buffer when the layouts have equal size. */
void tc_color_apply(const tc_color_transform *transform, const void *in, uint8_t *out, size_t pixels);

/* Bytes per input pixel for a layout, and for a transform's input (0 for NULL). */
int tc_color_input_bytes(tc_color_input input);
int tc_color_transform_input_bytes(const tc_color_transform *transform);

/*
 * An ICC profile (v4 matrix/TRC) for chromaticities and a tone curve as in
 * tc_color_create_rgb, serialised: for fixtures and colour test sets.
 * *out is malloc'd (free with tc_codec_free).
 */
tc_status tc_icc_make_rgb(const double xy[8], int srgb_curve, double decode_gamma, const char *description,
                          uint8_t **out, size_t *out_len, char *msg);

void tc_color_free(tc_color_transform *transform);

#endif
