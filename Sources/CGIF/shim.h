#ifndef CGIF_SHIM_H
#define CGIF_SHIM_H
#include <stddef.h>
#include <gif_lib.h>
#endif
