// SPDX-License-Identifier: MIT
// cached_text: a text drawn from ONE shared font by every thread, each
// glyph looked up (or rendered) and copied at its pen position into a
// buffer of the thread's own (bench/cache_texts.h). One item is one glyph.
// Glyph indices are looked up before timing: no variant pays for a cmap.
//
// Variants:
//   ftpool_cache        per-thread backend with the glyph cache: acquire
//                       the font, ftpool_font_glyph + copy per glyph, give
//                       it back
//   ftpool_cache_mutex  the same on the shared-mutex backend (the font's
//                       one face, and so its cache use, behind its lock)
//   ftc_per_thread      FreeType's cache: an FT_Library, FTC_Manager and
//                       FTC_SBitCache per thread, max_bytes = the budget;
//                       FTC_SBitCache_Lookup + copy
//   ftc_mutex           ONE FTC_Manager and FTC_SBitCache for all threads
//                       behind one std::mutex, taken per glyph around the
//                       lookup and the copy (Skia's and cairo's way)
//   uncached            the shared font with no cache: acquire,
//                       FT_Load_Glyph(FT_LOAD_RENDER) + copy, give back
//   raw                 a private FT_Library and face per thread,
//                       FT_Load_Glyph(FT_LOAD_RENDER) + copy, no ftpool
// and, at fewer thread counts:
//   ftpool_cache_lookup, ftc_per_thread_lookup  the lookups alone, no copy
//   ftpool_cache_miss   ftpool_cache with a budget of 1 byte: every lookup
//                       misses (renders, and returns a glyph of its own;
//                       a quiescent point after each glyph drops it, so
//                       that a repeat renders again)
//   ftpool_cache_per_glyph  ftpool_cache with an acquire and give-back
//                       around each glyph, not each text: the cost of an
//                       acquire on a hit, for renderers with no bracket
//                       around a text run (MuPDF's fz_render_glyph)
//
// Budgets: 4 MiB for the English text (it fits), 128 KiB for the CJK one
// (it does not: the miss and eviction path under readers), the same for
// ftpool (glyph_cache_bytes, for the whole pool) and FTC (max_bytes, per
// manager). Every thread draws the text once before timing (warm caches).
#include "bench/cache_workloads.h"

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "bench/cache_texts.h"
#include "bench/setup_check.h"
#include "bench/timed.h"
#include "ftpool.h"
#include <benchmark/benchmark.h>
#include <ft2build.h>
#include FT_MODULE_H

namespace ftpool_bench {
namespace {

enum class CacheVariant {
  kFtpoolCache,
  kFtpoolCacheMutex,
  kFtcPerThread,
  kFtcMutex,
  kUncached,
  kRaw,
  kFtpoolCacheLookup,
  kFtcPerThreadLookup,
  kFtpoolCacheMiss,
  kFtpoolCachePerGlyph,
};

const char *Name(CacheVariant v) {
  switch (v) {
  case CacheVariant::kFtpoolCache:
    return "ftpool_cache";
  case CacheVariant::kFtpoolCacheMutex:
    return "ftpool_cache_mutex";
  case CacheVariant::kFtcPerThread:
    return "ftc_per_thread";
  case CacheVariant::kFtcMutex:
    return "ftc_mutex";
  case CacheVariant::kUncached:
    return "uncached";
  case CacheVariant::kRaw:
    return "raw";
  case CacheVariant::kFtpoolCacheLookup:
    return "ftpool_cache_lookup";
  case CacheVariant::kFtcPerThreadLookup:
    return "ftc_per_thread_lookup";
  case CacheVariant::kFtpoolCacheMiss:
    return "ftpool_cache_miss";
  case CacheVariant::kFtpoolCachePerGlyph:
    return "ftpool_cache_per_glyph";
  }
  return "?";
}

// A FreeType cache of the text's font: a library, a manager of max_bytes
// = the text's budget, and an sbit cache (see NewFtc for FreeType 2.12's
// uninitialised manager).
struct Ftc {
  FT_Library library = nullptr;
  FTC_Manager manager = nullptr;
  FTC_SBitCache sbits = nullptr;
  FTC_ImageTypeRec type{};

  explicit Ftc(const CacheText &t) {
    CheckSetup(NewFtcLibrary(&library) == 0 &&
                   NewFtc(library, t.budget, &manager, &sbits) == 0,
               "an FTC_Manager");
    type.face_id = const_cast<CacheText *>(&t);
    type.width = 0; // as FT_Set_Pixel_Sizes(face, 0, 24)
    type.height = kCachePixels;
    type.flags = FT_LOAD_DEFAULT; // the sbit cache adds FT_LOAD_RENDER
  }
  ~Ftc() {
    FTC_Manager_Done(manager);
    FT_Done_Library(library); // NewFtcLibrary's, not FT_Init_FreeType's
  }
};

// What every thread shares for one text: three pools (per-thread, shared
// mutex, and per-thread with a 1-byte budget for the miss variant) with
// the text's font in each, and the one FreeType cache of ftc_mutex. Made
// at registration, never freed.
struct Shared {
  CacheText *text;
  ftpool_font *cache = nullptr, *cache_mutex = nullptr, *miss = nullptr;
  ftpool *cache_pool = nullptr, *cache_mutex_pool = nullptr,
         *miss_pool = nullptr;
  std::unique_ptr<Ftc> ftc;
  std::mutex ftc_mutex;
};

ftpool_font *MakeFont(const CacheText &t, ftpool_backend backend, size_t budget,
                      ftpool **made) {
  ftpool_config config;
  ftpool_config_init(&config);
  config.backend = backend;
  config.glyph_cache_bytes = budget;
  ftpool *&pool = *made;
  CheckSetup(ftpool_create(&config, &pool) == FTPOOL_OK, "ftpool_create");
  ftpool_font_desc desc;
  ftpool_font_desc_init(&desc);
  desc.path = t.path;
  desc.pixel_height = kCachePixels;
  ftpool_font *font = nullptr;
  CheckSetup(ftpool_font_create(pool, &desc, &font) == FTPOOL_OK, "a font");
  return font; // the pool lives on with it
}

// One thread's drawing, in its variant's way.
class Reader {
public:
  Reader(CacheVariant v, Shared &s) : v_(v), s_(s), text_(*s.text) {
    if (v_ == CacheVariant::kRaw)
      CheckSetup(
          FT_Init_FreeType(&library_) == 0 &&
              FT_New_Memory_Face(library_, text_.bytes.data(),
                                 static_cast<FT_Long>(text_.bytes.size()), 0,
                                 &face_) == 0 &&
              FT_Set_Pixel_Sizes(face_, 0, kCachePixels) == 0,
          "a private face");
    if (v_ == CacheVariant::kFtcPerThread ||
        v_ == CacheVariant::kFtcPerThreadLookup)
      ftc_ = std::make_unique<Ftc>(text_);
  }
  ~Reader() {
    if (library_)
      FT_Done_FreeType(library_);
  }

  // One text; false if a lookup or a render failed.
  bool Draw() {
    canvas_.Start();
    switch (v_) {
    case CacheVariant::kFtpoolCache:
      return DrawCached(s_.cache, true);
    case CacheVariant::kFtpoolCacheMutex:
      return DrawCached(s_.cache_mutex, true);
    case CacheVariant::kFtpoolCacheLookup:
      return DrawCached(s_.cache, false);
    case CacheVariant::kFtpoolCacheMiss:
      return DrawCached(s_.miss, true, s_.miss_pool);
    case CacheVariant::kFtpoolCachePerGlyph:
      for (FT_UInt index : text_.glyphs)
        if (!DrawCachedGlyph(s_.cache, index))
          return false;
      return true;
    case CacheVariant::kFtcPerThread:
      return DrawFtc(*ftc_, nullptr, true);
    case CacheVariant::kFtcPerThreadLookup:
      return DrawFtc(*ftc_, nullptr, false);
    case CacheVariant::kFtcMutex:
      return DrawFtc(*s_.ftc, &s_.ftc_mutex, true);
    case CacheVariant::kUncached: {
      FT_Face face;
      if (ftpool_font_acquire(s_.cache, &face) != FTPOOL_OK)
        return false;
      bool ok = DrawRendered(face);
      ftpool_font_give_back(s_.cache, face);
      return ok;
    }
    case CacheVariant::kRaw:
      return DrawRendered(face_);
    }
    return false;
  }

private:
  // With quiesce, a quiescent point after each glyph.
  bool DrawCached(ftpool_font *font, bool copy, ftpool *quiesce = nullptr) {
    FT_Face face;
    if (ftpool_font_acquire(font, &face) != FTPOOL_OK)
      return false;
    bool ok = true;
    for (FT_UInt index : text_.glyphs) {
      const ftpool_glyph *g;
      if (ftpool_font_glyph(font, face, index, FT_LOAD_DEFAULT, &g) !=
          FTPOOL_OK) {
        ok = false;
        break;
      }
      if (copy)
        canvas_.Blit(g->bitmap.buffer, int(g->bitmap.rows),
                     int(g->bitmap.width), g->bitmap.pitch, g->left, g->top,
                     g->advance.x);
      else
        canvas_.Advance(g->advance.x);
      if (quiesce)
        ftpool_quiescent(quiesce);
    }
    ftpool_font_give_back(font, face);
    return ok;
  }

  // One glyph in its own acquire: a renderer whose glyph calls have no
  // bracket around a text run (MuPDF's fz_render_glyph).
  bool DrawCachedGlyph(ftpool_font *font, FT_UInt index) {
    FT_Face face;
    const ftpool_glyph *g;
    if (ftpool_font_acquire(font, &face) != FTPOOL_OK)
      return false;
    bool ok =
        ftpool_font_glyph(font, face, index, FT_LOAD_DEFAULT, &g) == FTPOOL_OK;
    if (ok)
      canvas_.Blit(g->bitmap.buffer, int(g->bitmap.rows), int(g->bitmap.width),
                   g->bitmap.pitch, g->left, g->top, g->advance.x);
    ftpool_font_give_back(font, face);
    return ok;
  }

  bool DrawFtc(Ftc &ftc, std::mutex *mutex, bool copy) {
    for (FT_UInt index : text_.glyphs) {
      std::unique_lock<std::mutex> lock;
      if (mutex)
        lock = std::unique_lock<std::mutex>(*mutex);
      FTC_SBit sbit;
      if (FTC_SBitCache_Lookup(ftc.sbits, &ftc.type, index, &sbit, nullptr))
        return false;
      if (copy)
        canvas_.Blit(sbit->buffer, sbit->height, sbit->width, sbit->pitch,
                     sbit->left, sbit->top, sbit->xadvance * 64L);
      else
        canvas_.Advance(sbit->xadvance * 64L);
    }
    return true;
  }

  bool DrawRendered(FT_Face face) {
    for (FT_UInt index : text_.glyphs) {
      if (FT_Load_Glyph(face, index, FT_LOAD_DEFAULT | FT_LOAD_RENDER))
        return false;
      const FT_GlyphSlot slot = face->glyph;
      canvas_.Blit(slot->bitmap.buffer, int(slot->bitmap.rows),
                   int(slot->bitmap.width), slot->bitmap.pitch,
                   slot->bitmap_left, slot->bitmap_top, slot->advance.x);
    }
    return true;
  }

  CacheVariant v_;
  Shared &s_;
  const CacheText &text_;
  Canvas canvas_;
  FT_Library library_ = nullptr; // raw
  FT_Face face_ = nullptr;
  std::unique_ptr<Ftc> ftc_; // ftc_per_thread
};

ftpool *CachePool(CacheVariant v, Shared &s) {
  switch (v) {
  case CacheVariant::kFtpoolCache:
  case CacheVariant::kFtpoolCacheLookup:
  case CacheVariant::kFtpoolCachePerGlyph:
    return s.cache_pool;
  case CacheVariant::kFtpoolCacheMutex:
    return s.cache_mutex_pool;
  case CacheVariant::kFtpoolCacheMiss:
    return s.miss_pool;
  default:
    return nullptr;
  }
}

void CachedText(benchmark::State &state, CacheVariant v, Shared *s) {
  ftpool_stats before{}, after{};
  ftpool *pool = CachePool(v, *s);
  if (pool)
    ftpool_get_stats(pool, &before);
  RunTimed(
      state,
      [&](int) {
        auto r = std::make_unique<Reader>(v, *s);
        if (!r->Draw()) // warm: the instance, the face, the caches
          r.reset();
        return r;
      },
      [](Reader &r, int64_t) { return r.Draw(); });
  // RunTimed counts texts; the rate is of glyphs.
  state.SetItemsProcessed(state.items_processed() *
                          int64_t(s->text->glyphs.size()));
  if (pool) { // the share of lookups that hit, warm-up included
    ftpool_get_stats(pool, &after);
    double hits = double(after.glyph_hits - before.glyph_hits);
    double all = hits + double(after.glyph_misses - before.glyph_misses);
    state.counters["hit_rate"] = all > 0 ? hits / all : 0;
  }
}

// What every thread shares for one text, made on first use, never freed.
Shared *SharedFor(CacheText &t) {
  static std::vector<std::unique_ptr<Shared>> made;
  for (auto &s : made)
    if (s->text == &t)
      return s.get();
  auto s = std::make_unique<Shared>();
  s->text = &t;
  s->cache = MakeFont(t, FTPOOL_BACKEND_PER_THREAD, t.budget, &s->cache_pool);
  s->cache_mutex =
      MakeFont(t, FTPOOL_BACKEND_SHARED_MUTEX, t.budget, &s->cache_mutex_pool);
  s->miss = MakeFont(t, FTPOOL_BACKEND_PER_THREAD, 1, &s->miss_pool);
  s->ftc = std::make_unique<Ftc>(t);
  made.push_back(std::move(s));
  return made.back().get();
}

constexpr CacheVariant kAllVariants[] = {
    CacheVariant::kFtpoolCache,       CacheVariant::kFtpoolCacheMutex,
    CacheVariant::kFtcPerThread,      CacheVariant::kFtcMutex,
    CacheVariant::kUncached,          CacheVariant::kRaw,
    CacheVariant::kFtpoolCacheLookup, CacheVariant::kFtcPerThreadLookup,
    CacheVariant::kFtpoolCacheMiss,   CacheVariant::kFtpoolCachePerGlyph};

} // namespace

void RegisterCacheWorkloads() {
  for (CacheText &t : CacheTexts()) {
    Shared *s = SharedFor(t);
    const std::string prefix = std::string("cached_text/") + t.name + "/";
    for (int threads : {1, 2, 4, 8, 16})
      for (CacheVariant v : kAllVariants) {
        // The lookups alone at one thread, the miss path at 1 and 2.
        if ((v == CacheVariant::kFtpoolCacheLookup ||
             v == CacheVariant::kFtcPerThreadLookup) &&
            threads > 1)
          continue;
        if ((v == CacheVariant::kFtpoolCacheMiss ||
             v == CacheVariant::kFtpoolCachePerGlyph) &&
            threads > 2)
          continue;
        RegisterTimed(prefix + Name(v), threads, CachedText, v, s);
      }
  }
}

bool RunCacheItems(const char *variant, const char *text, long n) {
  for (CacheText &t : CacheTexts())
    for (CacheVariant v : kAllVariants) {
      if (std::string(t.name) != text || std::string(Name(v)) != variant)
        continue;
      Reader reader(v, *SharedFor(t));
      for (long i = -1; i < n; i++) // -1: the warm-up
        if (!reader.Draw())
          return false;
      return true;
    }
  return false;
}

} // namespace ftpool_bench
