/* SPDX-License-Identifier: MIT */
// The glyph cache against FreeType's cache and against no cache
// (cached_text); registered into ftpool_bench next to the other workloads.
#ifndef FTPOOL_BENCH_CACHE_WORKLOADS_H
#define FTPOOL_BENCH_CACHE_WORKLOADS_H

namespace ftpool_bench {

// Creates the workload's pools and FreeType caches, and registers it.
void RegisterCacheWorkloads();

// For bench/op_cost: n items (texts) of cached_text's variant on the
// calling thread, after one to warm up. Returns false for an unknown name
// or a failed item.
bool RunCacheItems(const char *variant, const char *text, long n);

} // namespace ftpool_bench

#endif
