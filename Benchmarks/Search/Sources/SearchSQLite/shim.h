#ifndef LITERECORD_SEARCH_SQLITE_SHIM_H
#define LITERECORD_SEARCH_SQLITE_SHIM_H

#include <sqlite3.h>

// SQLITE_TRANSIENT is a function-pointer cast Swift cannot import.
static inline sqlite3_destructor_type search_sqlite_transient(void) {
    return SQLITE_TRANSIENT;
}

#endif
