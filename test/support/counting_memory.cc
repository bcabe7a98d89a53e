// SPDX-License-Identifier: MIT
#include "test/support/counting_memory.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace ftpool_test {
namespace {

constexpr uint64_t kLive = 0x6674706f6f6c4c56; // "ftpoolLV"
constexpr uint64_t kFreed = 0x6674706f6f6c4644;

struct alignas(16) Header {
  uint64_t magic;
  long size;
};

Header *HeaderOf(void *block) {
  Header *h = static_cast<Header *>(block) - 1;
  if (h->magic != kLive) {
    std::fprintf(stderr, "CountingMemory: %s of %p\n",
                 h->magic == kFreed ? "double free" : "free of a foreign block",
                 block);
    std::abort();
  }
  return h;
}

CountingMemory *Self(FT_Memory memory) {
  return static_cast<CountingMemory *>(memory->user);
}

} // namespace

CountingMemory::CountingMemory() : rec_{this, Alloc, Free, Realloc} {}

bool CountingMemory::Attempt() {
  if (paused_.load() || ++allocations_ != fail_at_.load())
    return true;
  failures_ += 1;
  return false;
}

void *CountingMemory::Alloc(FT_Memory memory, long size) {
  CountingMemory *self = Self(memory);
  if (!self->Attempt())
    return nullptr;
  auto *h = static_cast<Header *>(std::malloc(sizeof(Header) + size));
  if (!h)
    return nullptr;
  h->magic = kLive;
  h->size = size;
  self->bytes_ += size;
  self->blocks_ += 1;
  return h + 1;
}

void CountingMemory::Free(FT_Memory memory, void *block) {
  CountingMemory *self = Self(memory);
  Header *h = HeaderOf(block);
  self->bytes_ -= h->size;
  self->blocks_ -= 1;
  // Scribbled, so that a use after free inside FreeType (which sanitizers
  // do not instrument) reads garbage and fails loudly.
  std::memset(block, 0xDD, static_cast<size_t>(h->size));
  h->magic = kFreed;
  std::free(h);
}

void *CountingMemory::Realloc(FT_Memory memory, long, long new_size,
                              void *block) {
  CountingMemory *self = Self(memory);
  Header *h = HeaderOf(block);
  if (!self->Attempt())
    return nullptr;
  long old_size = h->size;
  auto *moved =
      static_cast<Header *>(std::realloc(h, sizeof(Header) + new_size));
  if (!moved)
    return nullptr;
  moved->size = new_size;
  self->bytes_ += new_size - old_size;
  return moved + 1;
}

} // namespace ftpool_test
