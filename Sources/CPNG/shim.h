#ifndef CPNG_SHIM_H
#define CPNG_SHIM_H
#include <stddef.h>
#include <stdio.h>
#include <png.h>
#endif
