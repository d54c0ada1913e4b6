#ifndef CTWEETCACHE_H
#define CTWEETCACHE_H
#include "tc_curl.h"
#include "tc_jpeg.h"
#include "tc_png.h"
#include "tc_color.h"
#include "tc_webp.h"
#include "tc_gif.h"
#include "tc_heif.h"
#include "tc_fs.h"
#include "tc_checksum.h"
#include "tc_hamming.h"
#include "tc_json.h"
#include "tc_memory.h"
#include "tc_sqlite.h"
#endif
