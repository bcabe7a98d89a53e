// SPDX-License-Identifier: MIT
// ftpool against the alternatives, side by side in one binary and one run.
//
// Variants:
//   per_thread    ftpool's per-thread backend
//   shared_mutex  ftpool's shared-mutex backend (the design Pillow shipped)
//   raw           the limit: a private FT_Library per thread, no pool at all
//   naive         FT_Init_FreeType / FT_Done_FreeType around every operation
//
// Workloads (items are faces, or renders, or library look-ups):
//   mem_open_close     open a face from memory, close it
//   file_open_close    open a face from a path, close it
//   open_render_close  open from a path, 24 px, render 16 characters, close
//   render_only        render 16 characters on a face opened before timing
//   cross_close        open, hand the face to a shared slot, close the one
//                      found there (mostly another thread's)
//   thread_churn       start a thread that opens and closes one face, join it
//   get_library        get the calling thread's FT_Library
//
// Run through scripts/compare.sh, which prints the comparison table.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iterator>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <benchmark/benchmark.h>

#include "bench/cache_workloads.h"
#include "bench/clients.h"
#include "bench/font_workloads.h"
#include "bench/timed.h"

namespace ftpool_bench {

namespace {

struct Worker {
  std::unique_ptr<Client> client;
  const Font &font;
  int index;
  FT_Face face; // opened before timing, with Prepared::kFace
  ~Worker() {
    if (face)
      client->Close(face);
  }
};

enum class Prepared { kNothing, kFace };

template <typename Op>
void RunOnThreads(benchmark::State &state, Variant v, const Font *font, Op op,
                  Prepared prepared = Prepared::kNothing) {
  RunTimed(
      state,
      [&](int t) {
        auto w = std::unique_ptr<Worker>(
            new Worker{MakeClient(v), *font, t, nullptr});
        if (prepared == Prepared::kFace &&
            !(w->face = w->client->OpenMemory(*font)))
          w.reset();
        return w;
      },
      op);
}

bool OpenAndClose(Worker &w, bool from_file) {
  FT_Face face =
      from_file ? w.client->OpenFile(w.font) : w.client->OpenMemory(w.font);
  if (face)
    w.client->Close(face);
  return face != nullptr;
}

void MemOpenClose(benchmark::State &state, Variant v, const Font *f) {
  RunOnThreads(state, v, f,
               [](Worker &w, int64_t) { return OpenAndClose(w, false); });
}

void FileOpenClose(benchmark::State &state, Variant v, const Font *f) {
  RunOnThreads(state, v, f,
               [](Worker &w, int64_t) { return OpenAndClose(w, true); });
}

void OpenRenderClose(benchmark::State &state, Variant v, const Font *f) {
  RunOnThreads(state, v, f, [](Worker &w, int64_t) {
    FT_Face face = w.client->OpenFile(w.font);
    if (!face)
      return false;
    Render(face);
    w.client->Close(face);
    return true;
  });
}

void RenderOnly(benchmark::State &state, Variant v, const Font *f) {
  RunOnThreads(
      state, v, f,
      [](Worker &w, int64_t) {
        Render(w.face);
        return true;
      },
      Prepared::kFace);
}

// Faces cross between threads through these slots; what a run leaves is
// closed by the next run of the same variant (pools live for the process).
constexpr int kSlots = 64;
std::atomic<FT_Face> cross_slots[std::size(kVariants)][kSlots];

void CrossClose(benchmark::State &state, Variant v, const Font *f) {
  std::atomic<FT_Face> *slots = cross_slots[static_cast<int>(v)];
  RunOnThreads(state, v, f, [slots](Worker &w, int64_t i) {
    FT_Face face = w.client->OpenMemory(w.font);
    if (!face)
      return false;
    unsigned slot = static_cast<unsigned>(w.index * 7919 + i * 31) % kSlots;
    if (FT_Face old = slots[slot].exchange(face))
      w.client->Close(old);
    return true;
  });
}

void ThreadChurn(benchmark::State &state, Variant v, const Font *f) {
  RunOnThreads(state, v, f, [v](Worker &w, int64_t) {
    bool ok = false;
    std::thread([&] {
      std::unique_ptr<Client> client = MakeClient(v);
      FT_Face face = client->OpenMemory(w.font);
      ok = face != nullptr;
      if (face)
        client->Close(face);
    }).join();
    return ok;
  });
}

void GetLibrary(benchmark::State &state, Variant v, const Font *f) {
  RunOnThreads(state, v, f, [](Worker &w, int64_t) {
    benchmark::DoNotOptimize(w.client->Library());
    return true;
  });
}

using Workload = void (*)(benchmark::State &, Variant, const Font *);

struct WorkloadSpec {
  const char *name;
  Workload run;
  bool every_font;
  bool has_raw;    // raw per-thread libraries cannot close across threads
  bool uses_files; // the variant without blobs differs only here
};

void RegisterAll() {
  const WorkloadSpec workloads[] = {
      {"mem_open_close", MemOpenClose, true, true, false},
      {"file_open_close", FileOpenClose, true, true, true},
      {"open_render_close", OpenRenderClose, true, true, true},
      {"render_only", RenderOnly, false, true, false},
      {"cross_close", CrossClose, false, false, false},
      {"thread_churn", ThreadChurn, false, true, false},
      {"get_library", GetLibrary, false, true, false},
  };
  for (const WorkloadSpec &w : workloads) {
    for (const Font &font : Fonts()) {
      if (!w.every_font && &font != &Fonts().front())
        continue;
      for (int threads : {1, 2, 4, 8, 16})
        for (Variant v : kVariants) {
          if ((v == Variant::kRaw && !w.has_raw) ||
              (v == Variant::kSharedMutexNoBlobs && !w.uses_files))
            continue;
          RegisterTimed(std::string(w.name) + "/" + font.name + "/" + Name(v),
                        threads, w.run, v, &font);
        }
    }
  }
}

} // namespace

} // namespace ftpool_bench

int main(int argc, char **argv) {
  using namespace ftpool_bench;
  if (Fonts().empty()) {
    std::fprintf(stderr, "no fonts found; run scripts/setup.sh\n");
    return 1;
  }
  if (const char *s = std::getenv("FTPOOL_BENCH_SCALE"))
    scale = std::max(1, std::atoi(s));
  CreatePools();
  RegisterAll();
  RegisterFontWorkloads();
  RegisterCacheWorkloads();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv))
    return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
