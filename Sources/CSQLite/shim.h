#ifndef LITERECORD_CSQLITE_SHIM_H
#define LITERECORD_CSQLITE_SHIM_H

#include <sqlite3.h>
#include <stdint.h>
#include <string.h>

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

// A collation whose comparisons of two plain-ASCII strings never leave C.
//
// Swift orders and equates ASCII text byte by byte, so for the Swift-string
// collations two ASCII strings compare with memcmp here; anything else goes
// to `fallback` (Swift code) with `context`. An ORDER BY over a few thousand
// names makes tens of thousands of comparisons, and a call into Swift for
// each cost more than the rest of the query.
typedef int (*literecord_compare_function)(void *context, int, const void *, int, const void *);
typedef void (*literecord_destroy_function)(void *context);

struct literecord_collation {
    literecord_compare_function fallback;
    literecord_destroy_function destroy;
    void *context;
};

static inline int literecord_is_ascii(const unsigned char *bytes, int count) {
    // Eight bytes at a time: one OR per word, one test of the high bits.
    uint64_t seen = 0;
    int index = 0;
    for (; index + 8 <= count; index += 8) {
        uint64_t word;
        memcpy(&word, bytes + index, sizeof word);
        seen |= word;
    }
    for (; index < count; index++) seen |= bytes[index];
    return (seen & 0x8080808080808080ULL) == 0;
}

static int literecord_ascii_first_compare(void *argument, int leftCount, const void *left, int rightCount,
                                          const void *right) {
    struct literecord_collation *collation = argument;
    if (literecord_is_ascii(left, leftCount) && literecord_is_ascii(right, rightCount)) {
        int common = leftCount < rightCount ? leftCount : rightCount;
        int order = common > 0 ? memcmp(left, right, (size_t)common) : 0;
        if (order != 0) return order < 0 ? -1 : 1;
        return leftCount == rightCount ? 0 : (leftCount < rightCount ? -1 : 1);
    }
    return collation->fallback(collation->context, leftCount, left, rightCount, right);
}

static void literecord_collation_destroy(void *argument) {
    struct literecord_collation *collation = argument;
    collation->destroy(collation->context);
    sqlite3_free(collation);
}

// Registers `name` with the ASCII fast path in front of `fallback`. SQLite
// calls `destroy(context)` when the collation is replaced or the connection
// closes; when registering fails it does not, and the caller keeps `context`.
static inline int literecord_create_ascii_first_collation(sqlite3 *db, const char *name,
                                                          literecord_compare_function fallback,
                                                          literecord_destroy_function destroy, void *context) {
    struct literecord_collation *collation = sqlite3_malloc(sizeof *collation);
    if (collation == NULL) return SQLITE_NOMEM;
    collation->fallback = fallback;
    collation->destroy = destroy;
    collation->context = context;
    int result = sqlite3_create_collation_v2(db, name, SQLITE_UTF8, collation, literecord_ascii_first_compare,
                                             literecord_collation_destroy);
    if (result != SQLITE_OK) sqlite3_free(collation);
    return result;
}

#endif
