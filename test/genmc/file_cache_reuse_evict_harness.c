/* SPDX-License-Identifier: MIT */
/*
 * An eviction of a blob whose header was reused under the evicting thread
 * (lib/file_cache.c's evict_over_budget, on the unmodified lib/blob.c and
 * lib/chunked.c; docs/design.md, "Blobs and the file cache": "Taking a
 * reference without a lock"), with a budget of one file (each is one
 * byte). The pool cached file ds at version 1, in header H, then the file
 * changed. Thread 1 opens ds twice, closing it each time, the file
 * changing again in between: the first open replaces H's blob with
 * version 2, and H is freed; the second replaces that with version 3,
 * loaded into H, popped from the free list. So ds's entry holds H again,
 * with another blob (ABA). Then (a relaxed flag: later in time, with
 * nothing ordering thread 1's writes before its reads) thread 0 opens file
 * lp, which puts the cache over budget: its eviction may still read H's
 * old blob from ds's entry; its CAS then takes H's new blob from the
 * entry, whose size and reference it must see.
 * The blobs' fields and bytes are plain: reading the new blob's size
 * without the order of the CAS that took it from the entry races with
 * thread 1's publication of it. Asserted: each open returns the file's
 * bytes, of a version at least the one it saw; at the end the byte counts
 * are what the cache holds, and every blob not cached is freed.
 *
 * Checks: file_cache.c
 * GenMC options: --disable-estimation
 */
#define REUSE_SECOND_FILE "lp"
#define REUSE_BUCKETS 2
#include "test/genmc/file_cache_reuse_harness.c"
