/* SPDX-License-Identifier: MIT */
// An FT_Memory that counts what is outstanding, aborts on a double or foreign
// free and scribbles over freed blocks, so leaks, list corruption and uses
// after free show up as test failures. It can also fail one chosen
// allocation, to test what happens when memory runs out.
#ifndef FTPOOL_TEST_COUNTING_MEMORY_H
#define FTPOOL_TEST_COUNTING_MEMORY_H

#include <atomic>

#include <ft2build.h>
#include FT_FREETYPE_H
#include FT_SYSTEM_H

namespace ftpool_test {

class CountingMemory {
public:
  CountingMemory();
  CountingMemory(const CountingMemory &) = delete;
  CountingMemory &operator=(const CountingMemory &) = delete;

  FT_Memory get() { return &rec_; }
  long outstanding_bytes() const { return bytes_.load(); }
  long outstanding_blocks() const { return blocks_.load(); }
  // Allocation attempts (alloc and realloc), failed ones included.
  long allocations() const { return allocations_.load(); }
  // Makes the n-th attempt from now on fail (n >= 1); 0 fails none.
  void FailAllocation(long n) {
    fail_at_ = n == 0 ? 0 : allocations_.load() + n;
  }
  long failures() const { return failures_.load(); }
  // While paused, allocations are neither counted as attempts nor failed.
  void PauseFailures(bool paused) { paused_ = paused; }

private:
  static void *Alloc(FT_Memory memory, long size);
  static void Free(FT_Memory memory, void *block);
  static void *Realloc(FT_Memory memory, long cur_size, long new_size,
                       void *block);
  // Counts an attempt; false if this one is to fail.
  bool Attempt();

  FT_MemoryRec_ rec_;
  std::atomic<long> bytes_{0};
  std::atomic<long> blocks_{0};
  std::atomic<long> allocations_{0};
  std::atomic<long> fail_at_{0};
  std::atomic<long> failures_{0};
  std::atomic<bool> paused_{false};
};

} // namespace ftpool_test

#endif
