#include "tc_memory.h"
#include <malloc.h>

int tc_malloc_limit_arenas(int arenas) { return mallopt(M_ARENA_MAX, arenas); }

int tc_malloc_trim(void) { return malloc_trim(0); }
