#ifndef CTWEETCACHE_H
#define CTWEETCACHE_H
#include "tc_curl.h"
#include "tc_jpeg.h"
#include "tc_png.h"
#include "tc_fs.h"
#include "tc_checksum.h"
#include "tc_hamming.h"
#endif
