// SPDX-License-Identifier: MIT
// What caching glyphs costs in memory: 16 threads each draw the English
// paragraph and the CJK one of bench/cache_texts.h (every glyph looked up
// once), with the same 4 MiB budget in two arrangements:
//   ftpool_cache    one pool (per-thread backend), ONE glyph cache of
//                   glyph_cache_bytes = 4 MiB for all threads
//   ftc_per_thread  16 FT_Library + FTC_Manager (max_bytes = 4 MiB) +
//                   FTC_SBitCache, one per thread
// Bytes are counted through one counting FT_Memory: the pool's
// config.memory, and each FTC library's (FT_New_Library +
// FT_Add_Default_Modules). Two steps are measured: the faces (each thread
// makes its instance of both fonts, or looks up both sizes in its manager,
// and renders every glyph once on that face with FT_Load_Glyph, so that
// what FreeType keeps per face for rendering is counted here), then the
// caches (each thread looks up every glyph of both texts). The font files
// are not counted (FTC opens them from memory read before; the pool's
// blobs are taken off).
// Usage: cache_memory   (prints a markdown table)
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <thread>
#include <vector>

#include <ft2build.h>
#include FT_MODULE_H

#include "bench/cache_texts.h"
#include "bench/counting_memory.h"
#include "ftpool.h"

namespace {

using ftpool_bench::CacheText;
using ftpool_bench::CacheTexts;

constexpr int kThreads = 16;
constexpr size_t kBudget = FTPOOL_DEFAULT_GLYPH_CACHE_BYTES; // 4 MiB

// The counting allocator (bench/counting_memory.h).
std::atomic<long> &live_bytes = ftpool_bench::CountingMemory::live_bytes;
FT_MemoryRec_ &counting = ftpool_bench::CountingMemory::record;

void Check(bool ok, const char *what) {
  if (!ok) {
    std::fprintf(stderr, "cache_memory: %s failed\n", what);
    std::exit(1);
  }
}

// Renders every glyph of the text once on the face: what FreeType keeps
// for a face that renders at its size (the glyph slot, the hinter's state)
// is counted with the faces, not with the caches.
void RenderOnFace(FT_Face face, const CacheText &text) {
  for (FT_UInt index : text.glyphs)
    Check(FT_Load_Glyph(face, index, FT_LOAD_DEFAULT | FT_LOAD_RENDER) == 0,
          "FT_Load_Glyph");
}

struct Result {
  long faces;          // bytes after every thread has its faces
  long glyphs;         // bytes the drawing added
  long stats = -1;     // ftpool: glyph_bytes_cached + glyph_bytes_awaiting
  size_t entries = 0;  // ftpool: glyph_entries
  long blob_bytes = 0; // ftpool: the font files, taken off
};

// Runs kThreads threads through three steps: attach() (the thread's
// library), faces(), glyphs(); measures after the first, second and third
// with every thread still alive, and returns the two differences.
Result Steps(std::function<void(int)> attach, std::function<void(int)> faces,
             std::function<void(int)> glyphs,
             std::function<long()> not_counted) {
  std::atomic<int> step_done[3] = {{0}, {0}, {0}};
  std::atomic<int> go{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; t++)
    threads.emplace_back([&, t] {
      const std::function<void(int)> *steps[] = {&attach, &faces, &glyphs};
      for (int step = 0; step < 3; step++) {
        while (go < step)
          std::this_thread::yield();
        (*steps[step])(t);
        step_done[step]++;
      }
      while (go < 3) // keep the context, and its instances, held
        std::this_thread::yield();
    });
  long at[3];
  for (int step = 0; step < 3; step++) {
    go = step;
    while (step_done[step] < kThreads)
      std::this_thread::yield();
    at[step] = live_bytes - not_counted();
  }
  Result r{at[1] - at[0], at[2] - at[1]};
  go = 3;
  for (std::thread &t : threads)
    t.join();
  return r;
}

Result MeasureFtpool() {
  ftpool_config config;
  ftpool_config_init(&config);
  config.memory = &counting;
  config.glyph_cache_bytes = kBudget;
  ftpool *pool;
  Check(ftpool_create(&config, &pool) == FTPOOL_OK, "ftpool_create");
  std::vector<ftpool_font *> fonts;
  for (const CacheText &text : CacheTexts()) {
    ftpool_font_desc desc;
    ftpool_font_desc_init(&desc);
    desc.path = text.path;
    desc.pixel_height = ftpool_bench::kCachePixels;
    ftpool_font *font;
    Check(ftpool_font_create(pool, &desc, &font) == FTPOOL_OK, "a font");
    fonts.push_back(font);
  }
  auto blob_bytes = [pool] {
    ftpool_stats s;
    ftpool_get_stats(pool, &s);
    return long(s.blob_bytes_live);
  };
  Result r = Steps(
      [pool](int) {
        FT_Library library;
        Check(ftpool_library(pool, &library) == FTPOOL_OK, "ftpool_library");
      },
      [&](int) {
        for (size_t i = 0; i < fonts.size(); i++) {
          FT_Face face;
          Check(ftpool_font_acquire(fonts[i], &face) == FTPOOL_OK, "acquire");
          RenderOnFace(face, CacheTexts()[i]);
          ftpool_font_give_back(fonts[i], face);
        }
      },
      [&](int) {
        for (size_t i = 0; i < fonts.size(); i++) {
          FT_Face face;
          Check(ftpool_font_acquire(fonts[i], &face) == FTPOOL_OK, "acquire");
          for (FT_UInt index : CacheTexts()[i].glyphs) {
            const ftpool_glyph *g;
            Check(ftpool_font_glyph(fonts[i], face, index, FT_LOAD_DEFAULT,
                                    &g) == FTPOOL_OK,
                  "ftpool_font_glyph");
          }
          ftpool_font_give_back(fonts[i], face);
        }
      },
      blob_bytes);
  ftpool_stats s;
  ftpool_get_stats(pool, &s);
  r.stats = long(s.glyph_bytes_cached + s.glyph_bytes_awaiting);
  r.entries = s.glyph_entries;
  r.blob_bytes = long(s.blob_bytes_live);
  for (ftpool_font *font : fonts)
    ftpool_font_release(font);
  ftpool_destroy(pool);
  return r;
}

FTC_ImageTypeRec TypeOf(const CacheText &text) {
  FTC_ImageTypeRec type{};
  type.face_id = const_cast<CacheText *>(&text);
  type.height = ftpool_bench::kCachePixels;
  type.flags = FT_LOAD_DEFAULT;
  return type;
}

Result MeasureFtc() {
  struct Mine {
    FT_Library library = nullptr;
    FTC_Manager manager = nullptr;
    FTC_SBitCache sbits = nullptr;
  };
  std::vector<Mine> mine(kThreads);
  Result r = Steps(
      [&](int t) {
        Check(FT_New_Library(&counting, &mine[t].library) == 0,
              "FT_New_Library");
        FT_Add_Default_Modules(mine[t].library);
        FT_Set_Default_Properties(mine[t].library);
      },
      [&](int t) {
        Check(ftpool_bench::NewFtc(mine[t].library, kBudget, &mine[t].manager,
                                   &mine[t].sbits) == 0,
              "FTC_Manager_New");
        for (const CacheText &text : CacheTexts()) {
          FTC_ScalerRec scaler{};
          scaler.face_id = const_cast<CacheText *>(&text);
          scaler.height = ftpool_bench::kCachePixels;
          scaler.pixel = 1;
          FT_Size size;
          Check(FTC_Manager_LookupSize(mine[t].manager, &scaler, &size) == 0,
                "FTC_Manager_LookupSize");
          RenderOnFace(size->face, text);
        }
      },
      [&](int t) {
        for (const CacheText &text : CacheTexts()) {
          FTC_ImageTypeRec type = TypeOf(text);
          for (FT_UInt index : text.glyphs) {
            FTC_SBit sbit;
            Check(FTC_SBitCache_Lookup(mine[t].sbits, &type, index, &sbit,
                                       nullptr) == 0,
                  "FTC_SBitCache_Lookup");
          }
        }
      },
      [] { return 0L; });
  for (Mine &m : mine) {
    FTC_Manager_Done(m.manager);
    FT_Done_Library(m.library);
  }
  return r;
}

} // namespace

int main() {
  // See NewFtc: FTC's managers need their blocks zeroed.
  ftpool_bench::CountingMemory::zeroing = [] {
    return ftpool_bench::ftc_zeroing;
  };
  Check(CacheTexts().size() == 2, "reading both fonts");
  size_t glyphs = 0, distinct = 0;
  for (const CacheText &t : CacheTexts())
    glyphs += t.glyphs.size(), distinct += t.distinct;
  std::printf(
      "%d threads, each drawing the English paragraph (DejaVu Sans) "
      "and the CJK one (Noto Sans CJK) at 24 px: %zu lookups, %zu "
      "distinct glyphs per thread; budget %zu KiB for the pool's one "
      "cache and for each thread's FTC_Manager. Bytes allocated "
      "through a counting FT_Memory, font files excluded; \"caches\" "
      "is what the lookups added once every thread had its faces and had "
      "rendered each glyph once on them (the caches).\n\n",
      kThreads, glyphs, distinct, kBudget >> 10);
  const Result pool = MeasureFtpool();
  const Result ftc = MeasureFtc();
  std::printf("| arrangement | caches KiB | faces KiB | total KiB | glyph "
              "stats KiB | entries |\n| --- | --- | --- | --- | --- | --- "
              "|\n");
  std::printf("| ftpool_cache (one cache) | %.0f | %.0f | %.0f | %.0f | %zu "
              "|\n",
              pool.glyphs / 1024.0, pool.faces / 1024.0,
              (pool.glyphs + pool.faces) / 1024.0, pool.stats / 1024.0,
              pool.entries);
  std::printf("| ftc_per_thread (%d caches) | %.0f | %.0f | %.0f | - | - |\n",
              kThreads, ftc.glyphs / 1024.0, ftc.faces / 1024.0,
              (ftc.glyphs + ftc.faces) / 1024.0);
  const double glyph_ratio = double(pool.glyphs) / double(ftc.glyphs);
  const double total_ratio =
      double(pool.glyphs + pool.faces) / double(ftc.glyphs + ftc.faces);
  std::printf("\nftpool_cache / ftc_per_thread: caches %.3f (1/%.1f), total "
              "%.3f (1/%.1f)\n",
              glyph_ratio, 1 / glyph_ratio, total_ratio, 1 / total_ratio);
  std::printf("- [%s] cache memory for %d threads <= 1/8 of FTC per thread: "
              "%.3f\n",
              glyph_ratio <= 0.125 ? "met" : "MISSED", kThreads, glyph_ratio);
  return 0;
}
