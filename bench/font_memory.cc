// SPDX-License-Identifier: MIT
// What shared fonts cost in memory: 16 threads each render with 8 fonts
// (DejaVu Sans at 8 sizes), in three arrangements:
//   shared_sizes  per-thread instances; fonts differing only in size share
//                 one face per thread, each with its own FT_Size
//   own_faces     per-thread instances, every font on bytes of its own (a
//                 blob copy), so that no two share a face
//   one_face      the shared-mutex backend: one face per font for all
//                 threads (and a lock)
// Bytes are counted through the pool's FT_Memory: everything allocated
// after the threads have their libraries, less the fonts' bytes (blobs).
// The stats' font bytes are printed beside, as a check.
// Usage: font_memory   (prints a markdown table)
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <thread>
#include <vector>

#include "bench/clients.h"
#include "bench/counting_memory.h"
#include "ftpool.h"

namespace {

constexpr int kThreads = 16;
constexpr FT_UInt kSizes[] = {10, 12, 14, 16, 20, 24, 32, 48};

// The counting allocator (bench/counting_memory.h).
std::atomic<long> &live_bytes = ftpool_bench::CountingMemory::live_bytes;
FT_MemoryRec_ &counting = ftpool_bench::CountingMemory::record;

void Check(bool ok, const char *what) {
  if (!ok) {
    std::fprintf(stderr, "font_memory: %s failed\n", what);
    std::exit(1);
  }
}

struct Result {
  size_t faces, instances;
  long bytes;     // measured
  size_t counted; // the stats' font_instance_bytes
};

Result Measure(ftpool_backend backend, bool own_bytes,
               const std::vector<unsigned char> &sans) {
  ftpool_config config;
  ftpool_config_init(&config);
  config.backend = backend;
  config.memory = &counting;
  ftpool *pool;
  Check(ftpool_create(&config, &pool) == FTPOOL_OK, "ftpool_create");
  std::atomic<int> attached{0}, rendered{0};
  std::atomic<bool> ready{false}, measured{false};
  std::vector<ftpool_font *> fonts;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; t++)
    threads.emplace_back([&] {
      FT_Library library;
      Check(ftpool_library(pool, &library) == FTPOOL_OK, "ftpool_library");
      attached++;
      while (!ready)
        std::this_thread::yield();
      for (ftpool_font *font : fonts) {
        FT_Face face;
        Check(ftpool_font_acquire(font, &face) == FTPOOL_OK, "acquire");
        ftpool_bench::RenderAsIs(face);
        ftpool_font_give_back(font, face);
      }
      rendered++;
      while (!measured) // keep the context, and its instances, held
        std::this_thread::yield();
    });
  while (attached < kThreads)
    std::this_thread::yield();
  ftpool_blob *shared_blob = nullptr;
  Check(ftpool_blob_copy(pool, sans.data(), sans.size(), &shared_blob) ==
            FTPOOL_OK,
        "blob");
  const long before = live_bytes;
  for (FT_UInt px : kSizes) {
    ftpool_blob *blob = shared_blob;
    if (own_bytes)
      Check(ftpool_blob_copy(pool, sans.data(), sans.size(), &blob) ==
                FTPOOL_OK,
            "blob");
    ftpool_font_desc desc;
    ftpool_font_desc_init(&desc);
    desc.blob = blob;
    desc.pixel_height = px;
    ftpool_font *font;
    Check(ftpool_font_create(pool, &desc, &font) == FTPOOL_OK, "font");
    if (own_bytes)
      ftpool_blob_release(blob);
    fonts.push_back(font);
  }
  ready = true;
  while (rendered < kThreads)
    std::this_thread::yield();
  ftpool_stats s;
  ftpool_get_stats(pool, &s);
  long blob_bytes = own_bytes ? long(sans.size() * std::size(kSizes)) : 0;
  Result r{s.font_faces, s.font_instances, live_bytes - before - blob_bytes,
           s.font_instance_bytes};
  measured = true;
  for (std::thread &t : threads)
    t.join();
  for (ftpool_font *font : fonts)
    ftpool_font_release(font);
  ftpool_blob_release(shared_blob);
  ftpool_destroy(pool);
  return r;
}

} // namespace

int main() {
  std::ifstream in("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
                   std::ios::binary);
  const std::vector<unsigned char> sans(std::istreambuf_iterator<char>(in), {});
  Check(!sans.empty(), "reading DejaVu Sans");
  const struct {
    const char *name;
    ftpool_backend backend;
    bool own_bytes;
  } arrangements[] = {
      {"shared_sizes", FTPOOL_BACKEND_PER_THREAD, false},
      {"own_faces", FTPOOL_BACKEND_PER_THREAD, true},
      {"one_face", FTPOOL_BACKEND_SHARED_MUTEX, false},
  };
  std::printf("%d threads x %zu fonts (DejaVu Sans, %zu sizes), each font "
              "rendered once per thread (16 characters, hinted). Bytes "
              "allocated for the fonts after the threads had their "
              "libraries, font bytes (blobs) excluded; the creating thread "
              "holds one instance of each font too.\n\n",
              kThreads, std::size(kSizes), std::size(kSizes));
  std::printf("| arrangement | faces | instances | KiB | KiB per instance | "
              "counted KiB (stats) |\n| --- | --- | --- | --- | --- | --- "
              "|\n");
  for (const auto &a : arrangements) {
    Result r = Measure(a.backend, a.own_bytes, sans);
    std::printf("| %s | %zu | %zu | %.0f | %.1f | %.0f |\n", a.name, r.faces,
                r.instances, r.bytes / 1024.0,
                r.bytes / 1024.0 / double(r.instances), r.counted / 1024.0);
  }
  return 0;
}
