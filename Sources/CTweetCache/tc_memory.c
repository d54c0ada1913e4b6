#include "tc_memory.h"
#include <malloc.h>

int tc_malloc_limit_arenas(int arenas) { return mallopt(M_ARENA_MAX, arenas); }

int tc_malloc_fix_mmap_threshold(int bytes) { return mallopt(M_MMAP_THRESHOLD, bytes); }

int tc_malloc_trim(void) { return malloc_trim(0); }
