// SPDX-License-Identifier: MIT
#include "bench/clients.h"

#include <fstream>
#include <iterator>

#include "bench/setup_check.h"

namespace ftpool_bench {
namespace {

const char kText[] = "Sphinx of quartz"; // 16 characters

ftpool *pools[3]; // indexed by Variant; never freed

} // namespace

ftpool *PoolOf(Variant v) { return pools[static_cast<int>(v)]; }

namespace {

class PoolClient : public Client {
public:
  explicit PoolClient(ftpool *pool) : pool_(pool) {
    FT_Library library; // the thread's first call, outside the timing
    CheckSetup(ftpool_library(pool_, &library) == FTPOOL_OK, "ftpool_library");
  }
  FT_Face OpenMemory(const Font &f) override {
    FT_Face face = nullptr;
    ftpool_open_memory(pool_, f.bytes.data(), f.bytes.size(), 0, &face);
    return face;
  }
  FT_Face OpenFile(const Font &f) override {
    FT_Face face = nullptr;
    ftpool_open_file(pool_, f.path, 0, &face);
    return face;
  }
  void Close(FT_Face face) override { ftpool_close(pool_, face); }
  FT_Library Library() override {
    FT_Library library = nullptr;
    ftpool_library(pool_, &library);
    return library;
  }

private:
  ftpool *pool_;
};

thread_local FT_Library raw_library;

class RawClient : public Client {
public:
  RawClient() { CheckSetup(FT_Init_FreeType(&raw_library) == 0, "FT_Init"); }
  ~RawClient() override { FT_Done_FreeType(raw_library); }
  FT_Face OpenMemory(const Font &f) override {
    FT_Face face = nullptr;
    FT_New_Memory_Face(raw_library, f.bytes.data(),
                       static_cast<FT_Long>(f.bytes.size()), 0, &face);
    return face;
  }
  FT_Face OpenFile(const Font &f) override {
    FT_Face face = nullptr;
    FT_New_Face(raw_library, f.path, 0, &face);
    return face;
  }
  void Close(FT_Face face) override { FT_Done_Face(face); }
  FT_Library Library() override { return raw_library; }
};

// Every face gets a library of its own, kept in face->generic.data.
class NaiveClient : public Client {
public:
  FT_Face OpenMemory(const Font &f) override {
    FT_Library library;
    if (FT_Init_FreeType(&library))
      return nullptr;
    FT_Face face = nullptr;
    FT_New_Memory_Face(library, f.bytes.data(),
                       static_cast<FT_Long>(f.bytes.size()), 0, &face);
    return Keep(library, face);
  }
  FT_Face OpenFile(const Font &f) override {
    FT_Library library;
    if (FT_Init_FreeType(&library))
      return nullptr;
    FT_Face face = nullptr;
    FT_New_Face(library, f.path, 0, &face);
    return Keep(library, face);
  }
  void Close(FT_Face face) override {
    FT_Library library = static_cast<FT_Library>(face->generic.data);
    FT_Done_Face(face);
    FT_Done_FreeType(library);
  }
  FT_Library Library() override {
    FT_Library library;
    FT_Init_FreeType(&library);
    FT_Done_FreeType(library);
    return library;
  }

private:
  static FT_Face Keep(FT_Library library, FT_Face face) {
    if (!face) {
      FT_Done_FreeType(library);
      return nullptr;
    }
    face->generic.data = library;
    return face;
  }
};

} // namespace

std::vector<Font> &Fonts() {
  static std::vector<Font> fonts = [] {
    std::vector<Font> found;
    const Font candidates[] = {
        {"dejavu", "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf", {}},
        {"noto_cjk",
         "/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc",
         {}},
    };
    for (const Font &c : candidates) {
      std::ifstream in(c.path, std::ios::binary);
      if (!in)
        continue;
      Font f = c;
      f.bytes.assign(std::istreambuf_iterator<char>(in), {});
      found.push_back(std::move(f));
    }
    return found;
  }();
  return fonts;
}

const char *Name(Variant v) {
  switch (v) {
  case Variant::kPerThread:
    return "per_thread";
  case Variant::kSharedMutex:
    return "shared_mutex";
  case Variant::kSharedMutexNoBlobs:
    return "shared_mutex_noblob";
  case Variant::kRaw:
    return "raw";
  case Variant::kNaive:
    return "naive";
  }
  return "?";
}

void CreatePools() {
  ftpool_config config;
  ftpool_config_init(&config);
  config.backend = FTPOOL_BACKEND_PER_THREAD;
  CheckSetup(ftpool_create(&config, &pools[0]) == FTPOOL_OK, "per-thread pool");
  config.backend = FTPOOL_BACKEND_SHARED_MUTEX;
  CheckSetup(ftpool_create(&config, &pools[1]) == FTPOOL_OK,
             "shared-mutex pool");
  config.file_cache_bytes = 0;
  CheckSetup(ftpool_create(&config, &pools[2]) == FTPOOL_OK,
             "pool without blobs");
}

std::unique_ptr<Client> MakeClient(Variant v) {
  switch (v) {
  case Variant::kPerThread:
  case Variant::kSharedMutex:
  case Variant::kSharedMutexNoBlobs:
    return std::make_unique<PoolClient>(PoolOf(v));
  case Variant::kRaw:
    return std::make_unique<RawClient>();
  case Variant::kNaive:
    return std::make_unique<NaiveClient>();
  }
  return nullptr;
}

void Render(FT_Face face) {
  FT_Set_Pixel_Sizes(face, 0, 24);
  RenderAsIs(face);
}

void RenderAsIs(FT_Face face) {
  for (const char *p = kText; *p; ++p)
    FT_Load_Char(face, static_cast<unsigned char>(*p), FT_LOAD_RENDER);
}

} // namespace ftpool_bench
