/* SPDX-License-Identifier: MIT */
// The glyph cache's benchmarks (bench/cache_workloads.cc, cache_memory.cc):
// the two texts, their glyph indices, and the thread-private canvas every
// variant copies its glyphs into.
#ifndef FTPOOL_BENCH_CACHE_TEXTS_H
#define FTPOOL_BENCH_CACHE_TEXTS_H

#include <cstddef>
#include <vector>

#include "ftpool.h"
#include FT_CACHE_H

namespace ftpool_bench {

constexpr FT_UInt kCachePixels = 24;

struct CacheText {
  const char *name;                 // "english", "cjk"
  const char *path;                 // the font (face 0)
  const char *utf8;                 // the text
  size_t budget;                    // glyph_cache_bytes and FTC's max_bytes
  std::vector<FT_UInt> glyphs;      // one per character, FT_Get_Char_Index
  std::vector<unsigned char> bytes; // the font file, for FT_New_Memory_Face
  size_t distinct;                  // distinct glyph indices
};

// English (DejaVu Sans, 302 characters, 42 distinct glyphs) with a budget
// of 4 MiB, and CJK (Noto Sans CJK face 0, 420 characters, 402 distinct
// glyphs) with 128 KiB, which its glyphs overflow. Glyph indices are looked
// up once, here; empty if a font is missing.
std::vector<CacheText> &CacheTexts();

// FreeType's cache, as the benchmarks use it. FreeType 2.12.1 (Debian
// bookworm's) allocates a new FTC_Manager without zeroing it and leaves
// fields of it unset (valgrind: "depends on uninitialised value(s)" in
// FTC_SBitCache_Lookup, from FTC_Manager_New's allocation): on a used heap
// the manager finds itself over budget and drops each node as it adds it,
// so that every lookup renders. NewFtc makes the manager and its sbit
// cache with ftc_zeroing set on the calling thread; a library that holds
// a manager must allocate through an FT_Memory that zeroes its blocks
// while it is set, such as FtcMemory(). The faces are the CacheText's font
// from memory (its FTC_FaceID is the CacheText); max_bytes is the budget.
extern thread_local bool ftc_zeroing;
FT_Memory FtcMemory(); // malloc, and calloc while ftc_zeroing is set
FT_Error NewFtc(FT_Library library, size_t max_bytes, FTC_Manager *manager,
                FTC_SBitCache *sbits);
// A library of FtcMemory() with FreeType's modules, as FT_Init_FreeType
// makes one.
FT_Error NewFtcLibrary(FT_Library *library);

// A text's glyphs drawn left to right at 24 px into an 8-bit buffer of the
// calling thread's, wrapping lines; rows outside are clipped.
class Canvas {
public:
  static constexpr int kWidth = 1024, kLineHeight = 32, kLines = 8;
  static constexpr int kBaseline = 26, kHeight = kLineHeight * kLines;

  Canvas() : pixels_(size_t(kWidth) * kHeight) {}
  void Start() { pen_ = 0, line_ = 0; }
  // Copies a bitmap (its rows of `width` bytes, `pitch` apart) whose origin
  // is at (left, top) from the pen, then advances the pen by `advance`
  // (26.6 pixels).
  void Blit(const unsigned char *buffer, int rows, int width, int pitch,
            int left, int top, long advance);
  // Moves the pen only.
  void Advance(long advance) { pen_ += advance; }
  const unsigned char *pixels() const { return pixels_.data(); }

private:
  std::vector<unsigned char> pixels_;
  long pen_ = 0; // 26.6
  int line_ = 0;
};

} // namespace ftpool_bench

#endif
