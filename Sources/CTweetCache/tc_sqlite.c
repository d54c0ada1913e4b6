#include "tc_sqlite.h"
#include <sqlite3.h>

static int counts_memory = 1;

// Before main, so before any target opens a database (the blob index or the catalog,
// whichever comes first); sqlite3_config is refused once SQLite has initialized.
__attribute__((constructor)) static void tc_sqlite_configure(void) {
    if (sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0) == SQLITE_OK) counts_memory = 0;
}

int tc_sqlite_counts_memory(void) { return counts_memory; }
