#include "tc_checksum.h"
#include <zlib.h>

uint32_t tc_crc32(uint32_t crc, const void *data, size_t length) {
    /* crc32_z takes a size_t length, so no chunking for buffers over 4 GiB. */
    return (uint32_t)crc32_z((uLong)crc, (const Bytef *)data, (z_size_t)length);
}
