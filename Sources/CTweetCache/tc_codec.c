#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include "tc_codec_private.h"

void tc_codec_free(void *buffer) { free(buffer); }

void tc_set_msg(char *msg, const char *format, ...) {
    va_list args;
    if (msg == NULL) return;
    va_start(args, format);
    vsnprintf(msg, TC_MSG_CAP, format, args);
    va_end(args);
}
