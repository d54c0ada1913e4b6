/*
 * Little CMS 2 behind a small C API: see include/tc_color.h for the contract.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <lcms2.h>
#include "tc_color.h"
#include "tc_codec_private.h"

/* Profiles larger than this are refused before parsing: real ones are under 1 MB (CMYK LUTs). */
#define TC_ICC_MAX_BYTES (8u * 1024u * 1024u)

struct tc_color_transform {
    cmsContext context;       /* owns the transform's memory: deleted last */
    cmsHTRANSFORM transform;
    int in_bytes;
    int out_channels;
    int fill_alpha;           /* RGBA output from input without alpha: lcms leaves alpha alone */
    char scratch[TC_MSG_CAP]; /* the context's log callback writes the first error here */
};

/* The first lcms error of one operation, written where the context's user data points. */
static void tc_color_log(cmsContext context, cmsUInt32Number code, const char *text) {
    char *msg = (char *)cmsGetContextUserData(context);
    (void)code;
    if (msg != NULL && msg[0] == 0) snprintf(msg, TC_MSG_CAP, "%s", text != NULL ? text : "Little CMS error");
}

static cmsContext tc_color_context(char *scratch) {
    cmsContext context = cmsCreateContext(NULL, scratch);
    if (context != NULL) cmsSetLogErrorHandlerTHR(context, tc_color_log);
    return context;
}
int tc_color_input_bytes(tc_color_input input) {
    switch (input) {
    case TC_COLOR_RGB8: return 3;
    case TC_COLOR_RGBA8: return 4;
    case TC_COLOR_RGB16_BE: return 6;
    case TC_COLOR_RGBA16_BE: return 8;
    case TC_COLOR_CMYK8: return 4;
    case TC_COLOR_CMYK8_INVERTED: return 4;
    default: return 0;
    }
}

static cmsUInt32Number tc_color_input_format(tc_color_input input) {
    switch (input) {
    case TC_COLOR_RGB8: return TYPE_RGB_8;
    case TC_COLOR_RGBA8: return TYPE_RGBA_8;
    case TC_COLOR_RGB16_BE: return TYPE_RGB_16_SE;
    case TC_COLOR_RGBA16_BE: return TYPE_RGBA_16_SE;
    case TC_COLOR_CMYK8: return TYPE_CMYK_8;
    case TC_COLOR_CMYK8_INVERTED: return TYPE_CMYK_8_REV;
    default: return 0;
    }
}

static int tc_color_input_is_cmyk(tc_color_input input) {
    return input == TC_COLOR_CMYK8 || input == TC_COLOR_CMYK8_INVERTED;
}

static tc_color_space tc_space_of(cmsColorSpaceSignature space) {
    switch (space) {
    case cmsSigRgbData: return TC_SPACE_RGB;
    case cmsSigCmykData: return TC_SPACE_CMYK;
    case cmsSigGrayData: return TC_SPACE_GRAY;
    default: return TC_SPACE_OTHER;
    }
}

/*
 * The profile's own size (header bytes 0-3) checked against the bytes there are:
 * a profile claiming more than it has was cut short or lies, and lcms2 would
 * read it anyway. Trailing padding (declared < len) is common and allowed; the
 * declared size is what gets parsed.
 */
static int tc_icc_size_ok(const uint8_t *icc, size_t len, size_t *declared, char *msg) {
    uint32_t size = (uint32_t)icc[0] << 24 | (uint32_t)icc[1] << 16 | (uint32_t)icc[2] << 8 | icc[3];
    if (size < 132 || size > len) {
        tc_set_msg(msg, "the ICC profile says it is %u bytes, %zu are there", size, len);
        return 0;
    }
    *declared = size;
    return 1;
}

static int tc_class_ok(cmsProfileClassSignature c) {
    return c == cmsSigInputClass || c == cmsSigDisplayClass || c == cmsSigOutputClass || c == cmsSigColorSpaceClass;
}

tc_status tc_icc_inspect(const uint8_t *icc, size_t len, tc_icc_info *info, char *msg) {
    char scratch[TC_MSG_CAP] = { 0 };
    cmsContext context;
    cmsHPROFILE profile;
    if (icc == NULL || info == NULL || len < 132) {
        tc_set_msg(msg, "an ICC profile needs at least a 128-byte header and a tag count (got %zu bytes)", len);
        return TC_ERR_CORRUPT;
    }
    memset(info, 0, sizeof *info);
    if (!tc_icc_size_ok(icc, len, &len, msg)) return TC_ERR_CORRUPT;
    if (len > TC_ICC_MAX_BYTES) {
        tc_set_msg(msg, "ICC profile of %zu bytes is larger than %u", len, TC_ICC_MAX_BYTES);
        return TC_ERR_LIMIT;
    }
    context = tc_color_context(scratch);
    if (context == NULL) return TC_ERR_NOMEM;
    profile = cmsOpenProfileFromMemTHR(context, icc, (cmsUInt32Number)len);
    if (profile == NULL) {
        tc_set_msg(msg, "unreadable ICC profile: %s", scratch[0] ? scratch : "bad header or tag table");
        cmsDeleteContext(context);
        return TC_ERR_CORRUPT;
    }
    info->space = tc_space_of(cmsGetColorSpace(profile));
    info->device_class_ok = tc_class_ok(cmsGetDeviceClass(profile));
    cmsGetProfileInfoASCII(profile, cmsInfoDescription, "en", "US", info->description, sizeof info->description);
    cmsCloseProfile(profile);
    cmsDeleteContext(context);
    return TC_OK;
}

/* A new transform shell with its own lcms context; NULL when out of memory. */
static tc_color_transform *tc_color_new(void) {
    tc_color_transform *t = (tc_color_transform *)calloc(1, sizeof *t);
    if (t == NULL) return NULL;
    t->context = tc_color_context(t->scratch);
    if (t->context == NULL) {
        free(t);
        return NULL;
    }
    return t;
}

void tc_color_free(tc_color_transform *t) {
    if (t == NULL) return;
    if (t->transform != NULL) cmsDeleteTransform(t->transform);
    if (t->context != NULL) cmsDeleteContext(t->context);
    free(t);
}

/* Builds the transform from `source` (closed here) into `t`; frees `t` on failure. */
static tc_status tc_color_finish(tc_color_transform *t, cmsHPROFILE source, tc_color_input input, int out_channels,
                                 tc_color_transform **out, char *msg) {
    cmsHPROFILE srgb = cmsCreate_sRGBProfileTHR(t->context);
    cmsUInt32Number flags = cmsFLAGS_NOCACHE;
    int input_alpha = input == TC_COLOR_RGBA8 || input == TC_COLOR_RGBA16_BE;
    if (out_channels == 4 && input_alpha) flags |= cmsFLAGS_COPY_ALPHA;
    if (srgb != NULL) {
        t->transform = cmsCreateTransformTHR(t->context, source, tc_color_input_format(input), srgb,
                                             out_channels == 4 ? TYPE_RGBA_8 : TYPE_RGB_8,
                                             INTENT_RELATIVE_COLORIMETRIC, flags);
        cmsCloseProfile(srgb);
    }
    cmsCloseProfile(source);
    if (t->transform == NULL) {
        tc_set_msg(msg, "no transform from this profile to sRGB: %s", t->scratch[0] ? t->scratch : "Little CMS refused it");
        tc_color_free(t);
        return TC_ERR_UNSUPPORTED;
    }
    t->in_bytes = tc_color_input_bytes(input);
    t->out_channels = out_channels;
    t->fill_alpha = out_channels == 4 && !input_alpha;
    *out = t;
    return TC_OK;
}

static int tc_color_args_ok(tc_color_input input, int out_channels, tc_color_transform **out, char *msg) {
    if (out == NULL || tc_color_input_bytes(input) == 0 || (out_channels != 3 && out_channels != 4)) {
        tc_set_msg(msg, "invalid colour transform arguments (layout %d, %d channels)", (int)input, out_channels);
        return 0;
    }
    *out = NULL;
    return 1;
}

static const char *tc_space_name(tc_color_space space) {
    switch (space) {
    case TC_SPACE_RGB: return "RGB";
    case TC_SPACE_CMYK: return "CMYK";
    case TC_SPACE_GRAY: return "grey";
    default: return "non-image (Lab, XYZ or n-colour)";
    }
}

tc_status tc_color_create_icc(const uint8_t *icc, size_t len, tc_color_input input, int out_channels,
                              tc_color_transform **out, char *msg) {
    tc_color_transform *t;
    cmsHPROFILE profile;
    tc_color_space space, wanted;
    if (!tc_color_args_ok(input, out_channels, out, msg)) return TC_ERR_ARGUMENT;
    if (icc == NULL || len < 132 || len > TC_ICC_MAX_BYTES) {
        tc_set_msg(msg, "an ICC profile of %zu bytes is too short or too long", len);
        return TC_ERR_CORRUPT;
    }
    if (!tc_icc_size_ok(icc, len, &len, msg)) return TC_ERR_CORRUPT;
    t = tc_color_new();
    if (t == NULL) return TC_ERR_NOMEM;
    profile = cmsOpenProfileFromMemTHR(t->context, icc, (cmsUInt32Number)len);
    if (profile == NULL) {
        tc_set_msg(msg, "unreadable ICC profile: %s", t->scratch[0] ? t->scratch : "bad header or tag table");
        tc_color_free(t);
        return TC_ERR_CORRUPT;
    }
    space = tc_space_of(cmsGetColorSpace(profile));
    wanted = tc_color_input_is_cmyk(input) ? TC_SPACE_CMYK : TC_SPACE_RGB;
    if (!tc_class_ok(cmsGetDeviceClass(profile)) || space != wanted) {
        tc_set_msg(msg, "the ICC profile describes %s data, the image is %s", tc_space_name(space), tc_space_name(wanted));
        cmsCloseProfile(profile);
        tc_color_free(t);
        return TC_ERR_UNSUPPORTED;
    }
    return tc_color_finish(t, profile, input, out_channels, out, msg);
}

/* Checks chromaticities and gamma; 0 with a message when they cannot describe an RGB space. */
static int tc_rgb_args_ok(const double xy[8], int srgb_curve, double decode_gamma, char *msg) {
    int i;
    if (xy == NULL) {
        tc_set_msg(msg, "no chromaticities");
        return 0;
    }
    for (i = 0; i < 8; i++) {
        if (!(xy[i] > 0.0 && xy[i] < 1.0)) {
            tc_set_msg(msg, "chromaticity %g is outside (0, 1)", xy[i]);
            return 0;
        }
    }
    if (!srgb_curve && !(decode_gamma >= 0.2 && decode_gamma <= 5.0)) {
        tc_set_msg(msg, "gamma %g is outside 0.2-5", decode_gamma);
        return 0;
    }
    return 1;
}

/* An RGB matrix/TRC profile in `context`, or NULL (the reason in the context's log). */
static cmsHPROFILE tc_rgb_profile(cmsContext context, const double xy[8], int srgb_curve, double decode_gamma) {
    cmsCIExyY white;
    cmsCIExyYTRIPLE primaries;
    cmsToneCurve *curve;
    cmsToneCurve *curves[3];
    cmsHPROFILE profile;
    white.x = xy[0]; white.y = xy[1]; white.Y = 1.0;
    primaries.Red.x = xy[2]; primaries.Red.y = xy[3]; primaries.Red.Y = 1.0;
    primaries.Green.x = xy[4]; primaries.Green.y = xy[5]; primaries.Green.Y = 1.0;
    primaries.Blue.x = xy[6]; primaries.Blue.y = xy[7]; primaries.Blue.Y = 1.0;
    if (srgb_curve) {
        const cmsFloat64Number params[5] = { 2.4, 1.0 / 1.055, 0.055 / 1.055, 1.0 / 12.92, 0.04045 };
        curve = cmsBuildParametricToneCurve(context, 4, params);
    } else {
        curve = cmsBuildGamma(context, decode_gamma);
    }
    if (curve == NULL) return NULL;
    curves[0] = curves[1] = curves[2] = curve;
    profile = cmsCreateRGBProfileTHR(context, &white, &primaries, curves);
    cmsFreeToneCurve(curve);
    return profile;
}

tc_status tc_color_create_rgb(const double xy[8], int srgb_curve, double decode_gamma,
                              tc_color_input input, int out_channels,
                              tc_color_transform **out, char *msg) {
    tc_color_transform *t;
    cmsHPROFILE profile;
    if (!tc_color_args_ok(input, out_channels, out, msg)) return TC_ERR_ARGUMENT;
    if (tc_color_input_is_cmyk(input)) {
        tc_set_msg(msg, "chromaticities describe RGB data only");
        return TC_ERR_ARGUMENT;
    }
    if (!tc_rgb_args_ok(xy, srgb_curve, decode_gamma, msg)) return TC_ERR_CORRUPT;
    t = tc_color_new();
    if (t == NULL) return TC_ERR_NOMEM;
    profile = tc_rgb_profile(t->context, xy, srgb_curve, decode_gamma);
    if (profile == NULL) {
        tc_set_msg(msg, "these chromaticities make no RGB space: %s", t->scratch[0] ? t->scratch : "singular matrix");
        tc_color_free(t);
        return TC_ERR_CORRUPT;
    }
    return tc_color_finish(t, profile, input, out_channels, out, msg);
}

tc_status tc_icc_make_rgb(const double xy[8], int srgb_curve, double decode_gamma, const char *description,
                          uint8_t **out, size_t *out_len, char *msg) {
    char scratch[TC_MSG_CAP] = { 0 };
    cmsContext context;
    cmsHPROFILE profile;
    cmsUInt32Number size = 0;
    cmsMLU *mlu;
    if (out == NULL || out_len == NULL) return TC_ERR_ARGUMENT;
    *out = NULL;
    *out_len = 0;
    if (!tc_rgb_args_ok(xy, srgb_curve, decode_gamma, msg)) return TC_ERR_ARGUMENT;
    context = tc_color_context(scratch);
    if (context == NULL) return TC_ERR_NOMEM;
    profile = tc_rgb_profile(context, xy, srgb_curve, decode_gamma);
    if (profile == NULL) {
        tc_set_msg(msg, "these chromaticities make no RGB space: %s", scratch[0] ? scratch : "singular matrix");
        cmsDeleteContext(context);
        return TC_ERR_ARGUMENT;
    }
    mlu = cmsMLUalloc(context, 1);
    if (mlu != NULL && description != NULL) {
        cmsMLUsetASCII(mlu, "en", "US", description);
        cmsWriteTag(profile, cmsSigProfileDescriptionTag, mlu);
    }
    if (mlu != NULL) cmsMLUfree(mlu);
    if (cmsSaveProfileToMem(profile, NULL, &size) && size > 0) {
        *out = (uint8_t *)malloc(size);
        if (*out != NULL && cmsSaveProfileToMem(profile, *out, &size)) {
            *out_len = size;
        } else {
            free(*out);
            *out = NULL;
        }
    }
    cmsCloseProfile(profile);
    cmsDeleteContext(context);
    if (*out == NULL) {
        tc_set_msg(msg, "could not serialise the profile");
        return TC_ERR_NOMEM;
    }
    return TC_OK;
}

int tc_color_transform_input_bytes(const tc_color_transform *t) {
    return t != NULL ? t->in_bytes : 0;
}

void tc_color_apply(const tc_color_transform *t, const void *in, uint8_t *out, size_t pixels) {
    const uint8_t *src = (const uint8_t *)in;
    if (t == NULL || in == NULL || out == NULL || pixels == 0) return;
    /* cmsDoTransform counts pixels in 32 bits: go in chunks. */
    while (pixels > 0) {
        cmsUInt32Number n = pixels > 0x10000000u ? 0x10000000u : (cmsUInt32Number)pixels;
        cmsDoTransform(t->transform, src, out, n);
        if (t->fill_alpha) {
            cmsUInt32Number i;
            for (i = 0; i < n; i++) out[(size_t)i * 4 + 3] = 255;
        }
        src += (size_t)n * (size_t)t->in_bytes;
        out += (size_t)n * (size_t)t->out_channels;
        pixels -= n;
    }
}
