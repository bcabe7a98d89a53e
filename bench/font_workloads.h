/* SPDX-License-Identifier: MIT */
// Shared fonts against the other ways of sharing one font between threads;
// registered into ftpool_bench next to the face workloads.
#ifndef FTPOOL_BENCH_FONT_WORKLOADS_H
#define FTPOOL_BENCH_FONT_WORKLOADS_H

namespace ftpool_bench {

// After CreatePools.
void RegisterFontWorkloads();

// For bench/op_cost: n items of shared_font_render or font_acquire on the
// calling thread, the shared font's variant named as in the benchmarks.
// Returns false for an unknown name or a failed item.
bool RunFontItems(const char *workload, const char *variant, long n);

} // namespace ftpool_bench

#endif
