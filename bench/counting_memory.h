// SPDX-License-Identifier: MIT
// An FT_Memory over malloc that counts the bytes live, for the memory
// benchmarks (font_memory, cache_memory): each block carries its size in a
// header. zeroing, when set, makes new blocks zero-filled (see NewFtc in
// bench/cache_texts.h for why the FTC benchmarks need it).
#ifndef FTPOOL_BENCH_COUNTING_MEMORY_H
#define FTPOOL_BENCH_COUNTING_MEMORY_H

#include <atomic>
#include <cstdlib>
#include <cstring>

#include <ft2build.h>
#include FT_FREETYPE_H
#include FT_SYSTEM_H

namespace ftpool_bench {

struct CountingMemory {
  static inline std::atomic<long> live_bytes{0};
  static inline bool (*zeroing)() = nullptr;

  struct alignas(16) Header {
    long size;
  };
  static void *Alloc(FT_Memory, long size) {
    auto *h = static_cast<Header *>(std::malloc(sizeof(Header) + size));
    if (!h)
      return nullptr;
    h->size = size;
    if (zeroing && zeroing())
      std::memset(h + 1, 0, size_t(size));
    live_bytes += size;
    return h + 1;
  }
  static void Free(FT_Memory, void *block) {
    Header *h = static_cast<Header *>(block) - 1;
    live_bytes -= h->size;
    std::free(h);
  }
  static void *Realloc(FT_Memory, long, long size, void *block) {
    Header *h = static_cast<Header *>(block) - 1;
    long old = h->size;
    auto *moved = static_cast<Header *>(std::realloc(h, sizeof(Header) + size));
    if (!moved)
      return nullptr;
    moved->size = size;
    live_bytes += size - old;
    return moved + 1;
  }
  static inline FT_MemoryRec_ record = {nullptr, Alloc, Free, Realloc};
};

} // namespace ftpool_bench

#endif
