/* SPDX-License-Identifier: MIT */
// The timing every benchmark of ftpool_bench shares.
//
// Google benchmark's own Threads() averages each thread's time from the
// start barrier to its own last iteration; with more threads than cores,
// early finishers make that average shorter than the wall time and the rate
// too high. A fixed number of operations split among threads has the
// opposite flaw: the iteration ends with the last-scheduled thread, and the
// shorter the work, the more that tail weighs. So each benchmark iteration
// starts its own threads, lets them all run operations for a fixed time
// (40 ms times FTPOOL_BENCH_SCALE, default 3), stops them, and counts the
// operations done against the wall time from the start signal to the last
// thread's last operation (manual time): a descheduled thread just does
// fewer, and the tail is one operation per thread.
#ifndef FTPOOL_BENCH_TIMED_H
#define FTPOOL_BENCH_TIMED_H

#include <algorithm>
#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <benchmark/benchmark.h>

namespace ftpool_bench {

// The length of each timed run, in units of 40 ms (FTPOOL_BENCH_SCALE).
inline int scale = 3;

// Runs state.range(0) threads per iteration. make(t) runs on thread t
// before the timing and returns its state (a std::unique_ptr, null if the
// setup failed); op(*thread_state, i) is one operation, false if it failed.
// The state is destroyed on its thread after the timing.
template <typename Make, typename Op>
void RunTimed(benchmark::State &state, Make make, Op op) {
  using Clock = std::chrono::steady_clock;
  const int threads = static_cast<int>(state.range(0));
  const auto duration = std::chrono::milliseconds(40) * scale;
  std::atomic<bool> failed{false};
  int64_t items = 0;
  for (auto _ : state) {
    std::atomic<int> ready{0};
    std::atomic<bool> go{false}, stop{false};
    std::vector<Clock::time_point> done(threads);
    std::vector<int64_t> counts(threads);
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t) {
      pool.emplace_back([&, t] {
        auto mine = make(t);
        if (!mine)
          failed = true;
        ready++;
        while (!go.load(std::memory_order_acquire))
          std::this_thread::yield();
        int64_t i = 0;
        for (; mine && !stop.load(std::memory_order_relaxed) && !failed; ++i)
          if (!op(*mine, i))
            failed = true;
        done[t] = Clock::now();
        counts[t] = i;
      });
    }
    while (ready.load() < threads)
      std::this_thread::yield();
    Clock::time_point start = Clock::now();
    go.store(true, std::memory_order_release);
    std::this_thread::sleep_for(duration);
    stop = true;
    for (std::thread &t : pool)
      t.join();
    Clock::time_point last = *std::max_element(done.begin(), done.end());
    state.SetIterationTime(std::chrono::duration<double>(last - start).count());
    for (int64_t c : counts)
      items += c;
  }
  if (failed)
    state.SkipWithError("an operation failed (could not open the font?)");
  state.SetItemsProcessed(items);
}

// Registers name/threads:N with manual time, calling run(state, args...).
template <typename... Args>
void RegisterTimed(const std::string &name, int threads,
                   void (*run)(benchmark::State &, Args...), Args... args) {
  benchmark::RegisterBenchmark(name.c_str(), run, args...)
      ->Arg(threads)
      ->ArgName("threads")
      ->UseManualTime();
}

} // namespace ftpool_bench

#endif
