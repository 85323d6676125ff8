#ifndef LITERECORD_CSQLITE_SHIM_H
#define LITERECORD_CSQLITE_SHIM_H

#include <sqlite3.h>

// SQLITE_TRANSIENT is a macro over a function-pointer cast that Swift cannot
// import; expose it as a typed constant so the SQLite layer can ask SQLite to
// copy bound text and blobs.
static inline sqlite3_destructor_type literecord_sqlite_transient(void) {
    return SQLITE_TRANSIENT;
}

// sqlite3_db_config is variadic; Swift cannot call variadic C functions.
static inline int literecord_db_config_int(sqlite3 *db, int op, int value, int *result) {
    return sqlite3_db_config(db, op, value, result);
}

#endif
