#ifndef LITERECORD_BENCH_SQLITE_SHIM_H
#define LITERECORD_BENCH_SQLITE_SHIM_H

#include <sqlite3.h>

// SQLITE_TRANSIENT is a function-pointer cast Swift cannot import.
static inline sqlite3_destructor_type bench_sqlite_transient(void) {
    return SQLITE_TRANSIENT;
}

// Callgrind counts only the timed part of a run when started with
// `--collect-atstart=no`: the stopwatch toggles collection. Outside valgrind
// these are a few no-op instructions; without valgrind's headers, nothing.
#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
static inline void bench_profile_toggle(void) { CALLGRIND_TOGGLE_COLLECT; }
#else
static inline void bench_profile_toggle(void) {}
#endif

// Heap bytes in use (glibc's mallinfo2: small blocks plus mmapped ones) and
// the usable size of one block, for the bytes-per-object breakdown.
#if defined(__linux__)
#include <malloc.h>
static inline size_t bench_heap_in_use(void) {
    struct mallinfo2 info = mallinfo2();
    return info.uordblks + info.hblkhd;
}
static inline size_t bench_block_size(const void *pointer) { return malloc_usable_size((void *)pointer); }
#else
static inline size_t bench_heap_in_use(void) { return 0; }
static inline size_t bench_block_size(const void *pointer) { (void)pointer; return 0; }
#endif

#endif
