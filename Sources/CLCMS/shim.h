#ifndef CLCMS_SHIM_H
#define CLCMS_SHIM_H
#include <stddef.h>
#include <lcms2.h>
#endif
