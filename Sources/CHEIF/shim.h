#ifndef CHEIF_SHIM_H
#define CHEIF_SHIM_H
#include <stddef.h>
#include <stdint.h>
#include <libheif/heif.h>
#endif
