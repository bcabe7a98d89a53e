// SPDX-License-Identifier: MIT
// Runs one workload single-threaded, n times, for counting instructions
// under callgrind (bench/instructions.sh): the difference between two values
// of n is the cost of n operations, free of setup and of machine noise.
// Usage: op_cost VARIANT WORKLOAD FONT N
//   WORKLOAD shared_font_render or font_acquire: VARIANT is one of the
//   shared font's (per_thread, shared_mutex, global_mutex, raw), FONT dejavu
//   WORKLOAD cached_text: VARIANT is one of its (bench/cache_workloads.cc),
//   FONT its text (english, cjk); N texts
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "bench/cache_workloads.h"
#include "bench/clients.h"
#include "bench/font_workloads.h"

using namespace ftpool_bench;

int main(int argc, char **argv) {
  if (argc != 5) {
    std::fprintf(stderr, "usage: %s VARIANT WORKLOAD FONT N\n", argv[0]);
    return 2;
  }
  const std::string variant = argv[1], workload = argv[2], font_name = argv[3];
  const long n = std::atol(argv[4]);
  if (workload == "cached_text")
    return RunCacheItems(argv[1], argv[3], n) ? 0 : 1;
  if (workload == "shared_font_render" || workload == "font_acquire") {
    CreatePools();
    return RunFontItems(argv[2], argv[1], n) ? 0 : 1;
  }
  const Variant *v = nullptr;
  for (const Variant &candidate : kVariants)
    if (variant == Name(candidate))
      v = &candidate;
  const Font *font = nullptr;
  for (const Font &f : Fonts())
    if (font_name == f.name)
      font = &f;
  if (!v || !font) {
    std::fprintf(stderr, "unknown variant or font\n");
    return 2;
  }
  CreatePools();
  auto client = MakeClient(*v);
  FT_Face face = client->OpenMemory(*font); // warms the library's caches
  if (!face)
    return 1;
  // Chosen before the loop, so the loop adds only an indirect call.
  using Op = bool (*)(Client &, const Font &, FT_Face);
  const struct {
    const char *name;
    Op op;
  } ops[] = {
      {"mem_open_close",
       [](Client &c, const Font &f, FT_Face) {
         FT_Face opened = c.OpenMemory(f);
         c.Close(opened);
         return opened != nullptr;
       }},
      {"file_open_close",
       [](Client &c, const Font &f, FT_Face) {
         FT_Face opened = c.OpenFile(f);
         c.Close(opened);
         return opened != nullptr;
       }},
      {"open_render_close",
       [](Client &c, const Font &f, FT_Face) {
         FT_Face opened = c.OpenFile(f);
         Render(opened);
         c.Close(opened);
         return opened != nullptr;
       }},
      {"render_only",
       [](Client &, const Font &, FT_Face open) {
         Render(open);
         return true;
       }},
      {"get_library",
       [](Client &c, const Font &, FT_Face) { return c.Library() != nullptr; }},
  };
  Op op = nullptr;
  for (const auto &candidate : ops)
    if (workload == candidate.name)
      op = candidate.op;
  if (!op) {
    std::fprintf(stderr, "unknown workload %s\n", workload.c_str());
    return 2;
  }
  for (long i = 0; i < n; ++i)
    if (!op(*client, *font, face))
      return 1;
  client->Close(face);
  return 0;
}
