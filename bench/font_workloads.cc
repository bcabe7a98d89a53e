// SPDX-License-Identifier: MIT
// Shared fonts: one font object rendered from many threads.
//
// Variants:
//   per_thread    ftpool's per-thread backend: each thread renders on its
//                 own instance of the font, found with no lock
//   shared_mutex  ftpool's shared-mutex backend: the font's one face behind
//                 a lock of its own (the design of Pillow 11's FreeTypeFont)
//   global_mutex  one face behind one process-wide mutex around all glyph
//                 work (Skia's f_t_mutex)
//   raw           the limit: a private face per thread, opened before timing
//
// Workloads (an item is a render of "Sphinx of quartz", 16 characters at
// 24 px, or an acquire, or a font's life):
//   shared_font_render  acquire the one shared font, render, give it back
//   font_acquire        acquire and give back, no render: the cost of
//                       finding a warm instance (compare get_library)
//   font_churn          create a font from a path, render, release it: a
//                       Python ImageFont.truetype() + draw + del
#include "bench/font_workloads.h"

#include <memory>
#include <mutex>
#include <string>

#include "bench/clients.h"
#include "bench/setup_check.h"
#include "bench/timed.h"
#include "ftpool.h"

namespace ftpool_bench {
namespace {

enum class FontVariant { kPerThread, kSharedMutex, kGlobalMutex, kRaw };
constexpr FontVariant kFontVariants[] = {
    FontVariant::kPerThread, FontVariant::kSharedMutex,
    FontVariant::kGlobalMutex, FontVariant::kRaw};

const char *Name(FontVariant v) {
  switch (v) {
  case FontVariant::kPerThread:
    return "per_thread";
  case FontVariant::kSharedMutex:
    return "shared_mutex";
  case FontVariant::kGlobalMutex:
    return "global_mutex";
  case FontVariant::kRaw:
    return "raw";
  }
  return "?";
}

constexpr FT_UInt kPixels = 24;

ftpool *PoolOf(FontVariant v) {
  return PoolOf(v == FontVariant::kPerThread ? Variant::kPerThread
                                             : Variant::kSharedMutex);
}

ftpool_font *MakeFont(ftpool *pool, const Font &font) {
  ftpool_font_desc desc;
  ftpool_font_desc_init(&desc);
  desc.path = font.path;
  desc.pixel_height = kPixels;
  ftpool_font *made = nullptr;
  ftpool_font_create(pool, &desc, &made);
  return made;
}

// The one font every thread shares, per pool variant, made on first use;
// and the global-mutex variant's one face. Never freed.
ftpool_font *SharedFont(FontVariant v) {
  static ftpool_font *fonts[2] = {
      MakeFont(PoolOf(FontVariant::kPerThread), Fonts().front()),
      MakeFont(PoolOf(FontVariant::kSharedMutex), Fonts().front())};
  return fonts[v == FontVariant::kPerThread ? 0 : 1];
}

std::mutex global_mutex;
FT_Face GlobalFace() {
  static FT_Face face = [] {
    FT_Library library;
    FT_Face f = nullptr;
    CheckSetup(FT_Init_FreeType(&library) == 0 &&
                   FT_New_Face(library, Fonts().front().path, 0, &f) == 0 &&
                   FT_Set_Pixel_Sizes(f, 0, kPixels) == 0,
               "the global-mutex face");
    return f;
  }();
  return face;
}

// One thread's way to get the shared font's face and give it back.
class Sharer {
public:
  Sharer(FontVariant v, const Font &font) : v_(v) {
    if (v_ == FontVariant::kRaw) {
      CheckSetup(FT_Init_FreeType(&library_) == 0 &&
                     FT_New_Memory_Face(library_, font.bytes.data(),
                                        static_cast<FT_Long>(font.bytes.size()),
                                        0, &own_) == 0 &&
                     FT_Set_Pixel_Sizes(own_, 0, kPixels) == 0,
                 "a private face");
    } else if (v_ != FontVariant::kGlobalMutex) {
      FT_Face face = Acquire(); // the thread's instance, before timing
      CheckSetup(face != nullptr, "the first acquire");
      GiveBack(face);
    }
  }
  ~Sharer() {
    if (library_)
      FT_Done_FreeType(library_);
  }
  FT_Face Acquire() {
    switch (v_) {
    case FontVariant::kPerThread:
    case FontVariant::kSharedMutex: {
      FT_Face face = nullptr;
      ftpool_font_acquire(SharedFont(v_), &face);
      return face;
    }
    case FontVariant::kGlobalMutex:
      global_mutex.lock();
      return GlobalFace();
    case FontVariant::kRaw:
      return own_;
    }
    return nullptr;
  }
  void GiveBack(FT_Face face) {
    if (v_ == FontVariant::kGlobalMutex)
      global_mutex.unlock();
    else if (v_ != FontVariant::kRaw)
      ftpool_font_give_back(SharedFont(v_), face);
  }

private:
  FontVariant v_;
  FT_Library library_ = nullptr;
  FT_Face own_ = nullptr;
};

void SharedFontRender(benchmark::State &state, FontVariant v,
                      const Font *font) {
  RunTimed(
      state, [&](int) { return std::make_unique<Sharer>(v, *font); },
      [](Sharer &s, int64_t) {
        FT_Face face = s.Acquire();
        if (!face)
          return false;
        RenderAsIs(face);
        s.GiveBack(face);
        return true;
      });
}

void FontAcquire(benchmark::State &state, FontVariant v, const Font *font) {
  RunTimed(
      state, [&](int) { return std::make_unique<Sharer>(v, *font); },
      [](Sharer &s, int64_t) {
        FT_Face face = s.Acquire();
        benchmark::DoNotOptimize(face);
        s.GiveBack(face);
        return face != nullptr;
      });
}

// A thread that makes, uses and drops fonts of its own.
struct Churner {
  FontVariant v;
  const Font &font;
  FT_Library library = nullptr; // raw
  ~Churner() {
    if (library)
      FT_Done_FreeType(library);
  }
};

bool ChurnOnce(Churner &c) {
  if (c.v == FontVariant::kRaw) {
    FT_Face face;
    if (FT_New_Face(c.library, c.font.path, 0, &face))
      return false;
    FT_Set_Pixel_Sizes(face, 0, kPixels);
    RenderAsIs(face);
    FT_Done_Face(face);
    return true;
  }
  ftpool_font *font = MakeFont(PoolOf(c.v), c.font);
  FT_Face face;
  if (!font || ftpool_font_acquire(font, &face) != FTPOOL_OK)
    return false;
  RenderAsIs(face);
  ftpool_font_give_back(font, face);
  ftpool_font_release(font);
  return true;
}

void FontChurn(benchmark::State &state, FontVariant v, const Font *font) {
  RunTimed(
      state,
      [&](int) {
        auto c = std::unique_ptr<Churner>(new Churner{v, *font});
        if (v == FontVariant::kRaw)
          CheckSetup(FT_Init_FreeType(&c->library) == 0, "FT_Init_FreeType");
        else
          CheckSetup(ChurnOnce(*c), "a first font"); // the thread's context
        return c;
      },
      [](Churner &c, int64_t) { return ChurnOnce(c); });
}

} // namespace

bool RunFontItems(const char *workload, const char *variant, long n) {
  const std::string w = workload;
  const bool render = w == "shared_font_render";
  if (!render && w != "font_acquire")
    return false;
  for (FontVariant v : kFontVariants) {
    if (std::string(Name(v)) != variant)
      continue;
    Sharer sharer(v, Fonts().front());
    for (long i = 0; i < n; i++) {
      FT_Face face = sharer.Acquire();
      if (!face)
        return false;
      if (render)
        RenderAsIs(face);
      benchmark::DoNotOptimize(face);
      sharer.GiveBack(face);
    }
    return true;
  }
  return false;
}

void RegisterFontWorkloads() {
  using Run = void (*)(benchmark::State &, FontVariant, const Font *);
  const struct {
    const char *name;
    Run run;
    bool every_font;
    bool has_global_mutex;
    bool has_raw;
  } workloads[] = {
      {"shared_font_render", SharedFontRender, false, true, true},
      {"font_acquire", FontAcquire, false, false, false},
      {"font_churn", FontChurn, true, false, true},
  };
  for (const auto &w : workloads)
    for (const Font &font : Fonts()) {
      if (!w.every_font && &font != &Fonts().front())
        continue;
      for (int threads : {1, 2, 4, 8, 16})
        for (FontVariant v : kFontVariants) {
          if ((v == FontVariant::kGlobalMutex && !w.has_global_mutex) ||
              (v == FontVariant::kRaw && !w.has_raw))
            continue;
          RegisterTimed(std::string(w.name) + "/" + font.name + "/" + Name(v),
                        threads, w.run, v, &font);
        }
    }
}

} // namespace ftpool_bench
