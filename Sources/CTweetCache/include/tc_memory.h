#ifndef TC_MEMORY_H
#define TC_MEMORY_H

/// glibc's allocator, which Swift's runtime uses on Linux, tuned for a process whose
/// peak memory is a promise (`fetch` of a million posts in flat memory). In C because
/// `mallopt` and `malloc_trim` are in `<malloc.h>`, which Swift's Glibc module leaves out.

/// At most `arenas` malloc arenas (`M_ARENA_MAX`; glibc's default is eight per core):
/// each thread that allocates gets one until the limit, and memory freed in one arena
/// serves only that arena again, so many arenas hold many partly empty heaps. Call
/// before the threads start. Returns 1 when glibc took it.
int tc_malloc_limit_arenas(int arenas);

/// Hands memory malloc holds free back to the kernel (`malloc_trim(0)`: the top of
/// each heap and whole free pages inside them). Returns 1 when some was released.
int tc_malloc_trim(void);

#endif
