#ifndef TC_CHECKSUM_H
#define TC_CHECKSUM_H
#include <stddef.h>
#include <stdint.h>

/// CRC-32 (ISO-HDLC, the one of zlib, PNG and gzip) of `length` bytes, continuing
/// from `crc` (0 to start). zlib's own implementation: it is the library libpng
/// already links, and it computes several bytes per step.
uint32_t tc_crc32(uint32_t crc, const void *data, size_t length);

#endif
