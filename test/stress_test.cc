// SPDX-License-Identifier: MIT
// Many threads opening, rendering and closing faces, a third of the closes
// made by another thread, threads exiting while their faces live on; on both
// backends, and, as the negative control, on one unprotected FT_Library
// shared by all threads, which the same checks must catch.
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include <ft2build.h>
#include FT_MODULE_H

#include "ftpool.h"
#include "test/support/child_process.h"
#include "test/support/counting_memory.h"
#include "test/support/fonts.h"
#include "test/support/tsan_report.h"

namespace ftpool_test {
namespace {

const char kText[] = "Hg&";

struct Font {
  const char *path;
  std::vector<unsigned char> bytes;
  uint64_t digest; // rendered single-threaded, before the stress
};

// What a face travels with when it is handed to another thread to close.
struct Handed {
  FT_Face face;
  const Font *font;
  int opener;
};

// How the stress opens and closes faces: through a pool, or not.
class Opener {
public:
  virtual ~Opener() = default;
  virtual FT_Face Open(const Font &font, bool from_memory) = 0;
  virtual void Close(FT_Face face) = 0;
  // Tears everything down; returns false if a count does not add up.
  virtual bool Finish(size_t opened) = 0;
};

class PoolOpener : public Opener {
public:
  explicit PoolOpener(ftpool_backend backend) {
    ftpool_config config;
    ftpool_config_init(&config);
    config.backend = backend;
    config.memory = memory_.get();
    if (ftpool_create(&config, &pool_) != FTPOOL_OK)
      std::abort();
  }
  FT_Face Open(const Font &font, bool from_memory) override {
    FT_Face face = nullptr;
    ftpool_status s = from_memory
                          ? ftpool_open_memory(pool_, font.bytes.data(),
                                               font.bytes.size(), 0, &face)
                          : ftpool_open_file(pool_, font.path, 0, &face);
    return s == FTPOOL_OK ? face : nullptr;
  }
  void Close(FT_Face face) override {
    if (ftpool_close(pool_, face) != FTPOOL_OK)
      std::abort();
  }
  bool Finish(size_t opened) override {
    ftpool_stats s;
    ftpool_get_stats(pool_, &s);
    ftpool_destroy(pool_);
    bool ok = s.faces_opened == opened && s.faces_closed == opened &&
              s.faces_open == 0 && s.closes_deferred == s.closes_drained &&
              memory_.outstanding_bytes() == 0;
    std::fprintf(stderr,
                 "opened %zu, pool counted %zu opened, %zu closed, %zu "
                 "deferred, %zu drained, %zu adopted, %zu contexts, %zu "
                 "recycled; %ld bytes outstanding after destroy\n",
                 opened, s.faces_opened, s.faces_closed, s.closes_deferred,
                 s.closes_drained, s.contexts_adopted, s.contexts,
                 s.contexts_recycled, memory_.outstanding_bytes());
    return ok;
  }

private:
  CountingMemory memory_;
  ftpool *pool_ = nullptr;
};

// The bug the pool exists to prevent: every thread opens and closes on one
// FT_Library with no lock.
class UnprotectedSharedOpener : public Opener {
public:
  UnprotectedSharedOpener() {
    if (FT_New_Library(memory_.get(), &library_))
      std::abort();
    FT_Add_Default_Modules(library_);
  }
  FT_Face Open(const Font &font, bool from_memory) override {
    FT_Face face = nullptr;
    FT_Error e = from_memory
                     ? FT_New_Memory_Face(
                           library_, font.bytes.data(),
                           static_cast<FT_Long>(font.bytes.size()), 0, &face)
                     : FT_New_Face(library_, font.path, 0, &face);
    return e ? nullptr : face;
  }
  void Close(FT_Face face) override { FT_Done_Face(face); }
  bool Finish(size_t) override {
    FT_Done_Library(library_);
    return memory_.outstanding_bytes() == 0;
  }

private:
  CountingMemory memory_;
  FT_Library library_ = nullptr;
};

struct StressSize {
  int threads;
  int rounds;
  int cycles;  // per thread per round
  int seconds; // if > 0, rounds go on until this much time has passed
};

// FTPOOL_STRESS_SECONDS makes a soak run of it (scripts/soak.sh).
StressSize SizeFromEnvironment() {
  StressSize size{16, 4, 600, 0};
  if (const char *rounds = std::getenv("FTPOOL_STRESS_ROUNDS"))
    size.rounds = std::atoi(rounds);
  if (const char *seconds = std::getenv("FTPOOL_STRESS_SECONDS"))
    size.seconds = std::atoi(seconds);
  return size;
}

struct StressResult {
  size_t opened = 0;
  size_t closed = 0;
  size_t closed_by_other_thread = 0;
  size_t failed_opens = 0;
  size_t wrong_renders = 0;
  bool counts_add_up = false;
  int rounds = 0;
};

std::vector<Font> LoadFonts() {
  std::vector<Font> fonts;
  FT_Library library;
  FT_Init_FreeType(&library);
  for (const char *path : {kSans, kSerif, kMono}) {
    Font font{path, ReadFile(path), 0};
    FT_Face face;
    if (FT_New_Face(library, path, 0, &face) == 0) {
      font.digest = RenderDigest(face, kText);
      FT_Done_Face(face);
    }
    fonts.push_back(std::move(font));
  }
  FT_Done_FreeType(library);
  return fonts;
}

StressResult RunStress(Opener &opener, StressSize size) {
  const std::vector<Font> fonts = LoadFonts();
  constexpr int kSlots = 64;
  // Faces handed between threads; they survive from round to round, so many
  // are closed after the thread that opened them has exited.
  std::vector<std::atomic<Handed *>> slots(kSlots);
  std::atomic<size_t> opened{0}, closed{0}, by_other{0}, failed{0}, wrong{0};

  auto close_handed = [&](Handed *h, int closer) {
    if (RenderDigest(h->face, kText) != h->font->digest)
      wrong++;
    opener.Close(h->face);
    closed++;
    if (h->opener != closer)
      by_other++;
    delete h;
  };

  int next_id = 0;
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::seconds(size.seconds);
  int round = 0;
  for (; size.seconds > 0 ? std::chrono::steady_clock::now() < deadline
                          : round < size.rounds;
       ++round) {
    std::vector<std::thread> threads;
    for (int t = 0; t < size.threads; ++t) {
      int id = next_id++;
      threads.emplace_back([&, id] {
        unsigned seed = 2654435761u * (id + 1);
        for (int i = 0; i < size.cycles; ++i) {
          seed = seed * 1103515245u + 12345u;
          const Font &font = fonts[(id + i) % fonts.size()];
          FT_Face face = opener.Open(font, i % 2 == 0);
          if (!face) {
            failed++;
            continue;
          }
          opened++;
          if (RenderDigest(face, kText) != font.digest)
            wrong++;
          if (i % 3 == 0) {
            // acq_rel: the slot hands the face, and our use of it, over.
            Handed *old = slots[(seed >> 8) % kSlots].exchange(
                new Handed{face, &font, id}, std::memory_order_acq_rel);
            if (old)
              close_handed(old, id);
          } else {
            opener.Close(face);
            closed++;
          }
        }
      });
    }
    for (std::thread &t : threads)
      t.join();
  }
  for (auto &slot : slots)
    if (Handed *h = slot.exchange(nullptr))
      close_handed(h, -1);

  StressResult r;
  r.opened = opened;
  r.closed = closed;
  r.closed_by_other_thread = by_other;
  r.failed_opens = failed;
  r.wrong_renders = wrong;
  r.counts_add_up = opener.Finish(r.opened);
  r.rounds = round;
  return r;
}

bool Clean(const StressResult &r, size_t expected_opens) {
  return r.opened == expected_opens && r.closed == r.opened &&
         r.failed_opens == 0 && r.wrong_renders == 0 && r.counts_add_up;
}

void CheckStress(ftpool_backend backend) {
  StressSize size = SizeFromEnvironment();
  PoolOpener opener(backend);
  StressResult r = RunStress(opener, size);
  const size_t expected = size_t(size.threads) * r.rounds * size.cycles;
  EXPECT_EQ(r.opened, expected);
  EXPECT_EQ(r.failed_opens, 0u);
  EXPECT_EQ(r.closed, r.opened);
  EXPECT_EQ(r.wrong_renders, 0u);
  EXPECT_TRUE(r.counts_add_up);
  // A third of the faces are handed on; nearly all land in another thread.
  EXPECT_GE(r.closed_by_other_thread * 4, r.closed);
  std::printf("%zu faces opened, rendered and closed by %d threads in %d "
              "rounds; %zu closed by another thread\n",
              r.opened, size.threads, r.rounds, r.closed_by_other_thread);
}

TEST(StressTest, PerThread) { CheckStress(FTPOOL_BACKEND_PER_THREAD); }

TEST(StressTest, SharedMutex) { CheckStress(FTPOOL_BACKEND_SHARED_MUTEX); }

int UnprotectedStressChild() {
  StressSize size = SizeFromEnvironment();
  UnprotectedSharedOpener opener;
  StressResult r = RunStress(opener, size);
  bool clean = Clean(r, size_t(size.threads) * size.rounds * size.cycles);
  std::printf("unprotected run: %zu opened, %zu closed, %zu failed opens, "
              "%zu wrong renders, counts %s\n",
              r.opened, r.closed, r.failed_opens, r.wrong_renders,
              r.counts_add_up ? "add up" : "do not add up");
  return clean ? 0 : 1;
}

const bool registered =
    RegisterChildMode("unprotected-stress", &UnprotectedStressChild);

#ifdef __SANITIZE_THREAD__
// The negative control: without ftpool, the same stress must be caught.
// Under --config=tsan FreeType itself is instrumented
// (scripts/freetype_tsan.sh), so TSan must report the race where it
// happens, inside FreeType, on every run: not only its effects, by luck.
TEST(StressTest, CatchesAnUnprotectedSharedLibrary) {
  ChildResult child = RunSelf("unprotected-stress", 120);
  std::string race = FreeTypeRaceSummary(child.output);
  EXPECT_NE(race, "") << "no ThreadSanitizer data race inside FreeType; "
                      << child.Describe();
  std::printf("caught: %s\n", race.c_str());
}
#else
// The negative control: without ftpool, the same stress must be caught, by a
// crash, a sanitizer report, a corrupted count or a leak. A few attempts,
// since a race is a matter of chance.
TEST(StressTest, CatchesAnUnprotectedSharedLibrary) {
  constexpr int kAttempts = 3;
  for (int attempt = 1; attempt <= kAttempts; ++attempt) {
    // A clean run takes seconds (under TSan, ~15 s); a corrupted face list
    // can also spin forever, which the time limit turns into a catch.
    ChildResult child = RunSelf("unprotected-stress", 60);
    if (!(child.exited && child.exit_code == 0)) {
      std::printf("caught on attempt %d: %s\n", attempt,
                  child.Describe().c_str());
      return;
    }
  }
  FAIL() << "the stress test did not catch an unprotected shared FT_Library "
            "in "
         << kAttempts << " attempts";
}
#endif

} // namespace
} // namespace ftpool_test
