#ifndef TC_SQLITE_H
#define TC_SQLITE_H

/// SQLite as the process configures it before its first database opens. In C because
/// `sqlite3_config` is variadic.

/// Whether SQLite counts its memory (`SQLITE_CONFIG_MEMSTATUS`): 0 in a process that
/// links this library, where a constructor turns it off before SQLite initializes.
/// With it on, every `sqlite3_malloc` and `sqlite3_free` takes one process-wide mutex,
/// and the catalog's writer and its words' thread allocate all the time: turned off,
/// `reindex` of a million posts took 32.6-34.2 s against 38.0 s, with 3 s less system
/// time. Nothing here reads the counts (`sqlite3_memory_used`, heap limits).
int tc_sqlite_counts_memory(void);

#endif
