#ifndef TWEETCACHE_FUZZ_DRIVER_H
#define TWEETCACHE_FUZZ_DRIVER_H
#include <stddef.h>
#include <stdint.h>

/// libFuzzer's driver (libclang_rt.fuzzer), for binaries whose `main` is their own:
/// SwiftPM links an executable target's `main` to `<module>_main`, so libFuzzer's
/// `main` is never used and each fuzz target starts the driver itself.
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));

#endif
