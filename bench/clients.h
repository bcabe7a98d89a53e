/* SPDX-License-Identifier: MIT */
// What every benchmark shares: the fonts, the four variants, and a per-thread
// client that opens and closes faces the way its variant does.
#ifndef FTPOOL_BENCH_CLIENTS_H
#define FTPOOL_BENCH_CLIENTS_H

#include <memory>
#include <vector>

#include "ftpool.h"

namespace ftpool_bench {

struct Font {
  const char *name;
  const char *path;
  std::vector<unsigned char> bytes;
};

// DejaVu Sans, and Noto Sans CJK where installed.
std::vector<Font> &Fonts();

// kSharedMutexNoBlobs is the shared-mutex backend with its file cache off:
// every open by path is FreeType's (the picture before blobs).
enum class Variant {
  kPerThread,
  kSharedMutex,
  kSharedMutexNoBlobs,
  kRaw,
  kNaive
};
constexpr Variant kVariants[] = {Variant::kPerThread, Variant::kSharedMutex,
                                 Variant::kSharedMutexNoBlobs, Variant::kRaw,
                                 Variant::kNaive};

const char *Name(Variant v);

// Creates the two pools the pool variants use; call once before any client.
void CreatePools();

// One thread's way of opening and closing faces; make one per thread.
class Client {
public:
  virtual ~Client() = default;
  virtual FT_Face OpenMemory(const Font &f) = 0;
  virtual FT_Face OpenFile(const Font &f) = 0;
  virtual void Close(FT_Face face) = 0;
  virtual FT_Library Library() = 0;
};

std::unique_ptr<Client> MakeClient(Variant v);

// The pool of a pool variant (after CreatePools).
ftpool *PoolOf(Variant v);

// Sets 24 px and renders the 16 characters "Sphinx of quartz".
void Render(FT_Face face);

// Renders them at the face's size.
void RenderAsIs(FT_Face face);

} // namespace ftpool_bench

#endif
