// An FT_Memory that counts what is outstanding, aborts on a double or foreign
// free and scribbles over freed blocks, so leaks, list corruption and uses
// after free show up as test failures.
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
  long allocations() const { return allocations_.load(); }

private:
  static void *Alloc(FT_Memory memory, long size);
  static void Free(FT_Memory memory, void *block);
  static void *Realloc(FT_Memory memory, long cur_size, long new_size,
                       void *block);

  FT_MemoryRec_ rec_;
  std::atomic<long> bytes_{0};
  std::atomic<long> blocks_{0};
  std::atomic<long> allocations_{0};
};

} // namespace ftpool_test

#endif
