#ifndef CZSTD_SHIM_H
#define CZSTD_SHIM_H
#include <stddef.h>
#include <zstd.h>
#endif
