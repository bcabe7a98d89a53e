// SPDX-License-Identifier: MIT
// Every allocation can fail. A scenario that covers the API (create a pool,
// open faces by path, from memory and on a blob in four threads, close some
// from other threads, make a shared font and render with it on two threads,
// release it from one, let threads exit, destroy) runs once per allocation it
// makes, with that one allocation failing. Each run must report the failure
// as FTPOOL_ERR_OUT_OF_MEMORY from the call that made it (or absorb it and
// still succeed), leave the pool working (the same call succeeds when
// retried), render the same glyphs, and give back every byte at destroy.
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "ftpool.h"
#include "test/support/counting_memory.h"
#include "test/support/fonts.h"
#include "test/support/pool_test_util.h"

namespace ftpool_test {
namespace {

// A thread that runs the tasks it is given, one at a time, while the caller
// waits: the scenario keeps its threads alive between steps, so that closes
// find live owners, yet its allocations happen in the same order every run.
class Worker {
public:
  Worker() : thread_([this] { Loop(); }) {}
  ~Worker() { Exit(); }

  void Run(std::function<void()> task) {
    std::unique_lock<std::mutex> lock(mutex_);
    task_ = std::move(task);
    cv_.notify_all();
    cv_.wait(lock, [&] { return !task_; });
  }

  // Ends the thread, running its thread-specific data destructors.
  void Exit() {
    if (!thread_.joinable())
      return;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      exiting_ = true;
      cv_.notify_all();
    }
    thread_.join();
  }

private:
  void Loop() {
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
      cv_.wait(lock, [&] { return task_ || exiting_; });
      if (!task_)
        return;
      lock.unlock();
      task_();
      lock.lock();
      task_ = nullptr;
      cv_.notify_all();
    }
  }

  std::mutex mutex_;
  std::condition_variable cv_;
  std::function<void()> task_;
  bool exiting_ = false;
  std::thread thread_;
};

// What one run of the scenario saw.
struct Outcome {
  std::vector<ftpool_status> errors; // statuses of calls that failed
  int unusable = 0;                  // calls that failed again when retried
  int wrong_renders = 0;
};

class Scenario {
public:
  Scenario(ftpool_backend backend, CountingMemory *memory)
      : backend_(backend), memory_(memory), serif_(ReadFile(kSerif)),
        mono_(ReadFile(kMono)) {}

  // The digests of a run with no failure, to compare the others with.
  void set_expected(uint64_t serif, uint64_t mono, uint64_t font) {
    expected_serif_ = serif;
    expected_mono_ = mono;
    expected_font_ = font;
  }
  uint64_t serif_digest() const { return serif_digest_; }
  uint64_t mono_digest() const { return mono_digest_; }
  uint64_t font_digest() const { return font_digest_; }

  Outcome Run() {
    Outcome out;
    out_ = &out;
    ftpool_config config;
    ftpool_config_init(&config);
    config.backend = backend_;
    config.memory = memory_->get();
    Must([&] { return ftpool_create(&config, &pool_); });
    if (!pool_)
      return out;
    FT_Face f[6] = {};
    {
      Worker w0, w1, w2, w3, w4;
      w0.Run([&] {
        Must([&] { return ftpool_open_file(pool_, kSans, 0, &f[0]); });
        Must([&] {
          return ftpool_open_memory(pool_, serif_.data(), serif_.size(), 0,
                                    &f[1]);
        });
      });
      w1.Run([&] {
        Must([&] { return ftpool_open_file(pool_, kSans, 0, &f[2]); });
        ftpool_blob *blob = nullptr;
        Must([&] {
          return ftpool_blob_copy(pool_, mono_.data(), mono_.size(), &blob);
        });
        Must([&] { return ftpool_open_blob(pool_, blob, 0, &f[3]); });
        ftpool_blob_release(blob);
      });
      w2.Run([&] {
        Must([&] { return ftpool_open_file(pool_, kMono, 0, &f[4]); });
        FT_Library library;
        Must([&] { return ftpool_library(pool_, &library); });
      });
      // A shared font, rendered on two threads and released by one of
      // them: its instance on w2 waits in w2's mailbox.
      ftpool_font *font = nullptr;
      w2.Run([&] {
        ftpool_font_desc desc;
        ftpool_font_desc_init(&desc);
        desc.path = kSans;
        desc.pixel_height = 24;
        Must([&] { return ftpool_font_create(pool_, &desc, &font); });
        Must([&] { return RenderFont(font); });
      });
      w3.Run([&] {
        Must([&] { return RenderFont(font); });
        ftpool_font_release(font);
      });
      w2.Run([&] { Must([&] { return ftpool_collect(pool_); }); });
      // Both owners are alive: these closes wait in their mailboxes.
      w3.Run([&] {
        Must([&] { return ftpool_close(pool_, f[0]); });
        Must([&] { return ftpool_close(pool_, f[2]); });
      });
      w0.Run([&] {
        Must([&] { return ftpool_collect(pool_); });
        Must([&] { return Render(f[1], expected_serif_, &serif_digest_); });
      });
      w0.Exit();
      // The owner has exited: the closer adopts its context.
      w3.Run([&] { Must([&] { return ftpool_close(pool_, f[1]); }); });
      w1.Run([&] {
        Must([&] { return Render(f[3], expected_mono_, &mono_digest_); });
        Must([&] { return ftpool_close(pool_, f[3]); });
      });
      w1.Exit(); // drains the close of f[2] on its way out
      // A new thread recycles an exited one's context and exits with its
      // face still open.
      w4.Run([&] {
        Must([&] { return ftpool_open_file(pool_, kSerif, 0, &f[5]); });
      });
      w4.Exit();
      w2.Run([&] {
        ftpool_blob *blob = nullptr;
        Must([&] { return ftpool_blob_from_file(pool_, kMono, &blob); });
        ftpool_blob_release(blob);
      });
    }
    ftpool_destroy(pool_); // closes f[4] and f[5]
    pool_ = nullptr;
    return out;
  }

private:
  // Calls op; if it fails, records the status and calls it once more, which
  // must succeed: only one allocation fails per run.
  void Must(const std::function<ftpool_status()> &op) {
    ftpool_status status = op();
    if (status == FTPOOL_OK)
      return;
    bool unusable = op() != FTPOOL_OK; // op may take mutex_ itself
    std::lock_guard<std::mutex> lock(mutex_);
    out_->errors.push_back(status);
    out_->unusable += unusable;
  }

  // Renders a few glyphs, to show the face works; FTPOOL_ERR_FREETYPE if
  // FreeType failed. No allocation fails here: FreeType 2.12.1 itself
  // crashes in FT_Load_Glyph when TT_New_Context's allocation fails (it goes
  // on with a NULL execution context), and rendering is not the pool's code.
  ftpool_status Render(FT_Face face, uint64_t expected, uint64_t *digest) {
    memory_->PauseFailures(true);
    *digest = RenderDigest(face, "Hxg");
    memory_->PauseFailures(false);
    if (*digest == 0)
      return FTPOOL_ERR_FREETYPE;
    if (expected != 0 && *digest != expected) {
      std::lock_guard<std::mutex> lock(mutex_);
      out_->wrong_renders++;
    }
    return FTPOOL_OK;
  }

  // Acquires the font, renders as above, gives it back.
  ftpool_status RenderFont(ftpool_font *font) {
    FT_Face face;
    ftpool_status status = ftpool_font_acquire(font, &face);
    if (status != FTPOOL_OK)
      return status;
    memory_->PauseFailures(true);
    uint64_t digest = RenderDigestAsIs(face, "Hxg");
    memory_->PauseFailures(false);
    status = ftpool_font_give_back(font, face);
    std::lock_guard<std::mutex> lock(mutex_);
    font_digest_ = digest;
    if (digest == 0 || (expected_font_ != 0 && digest != expected_font_))
      out_->wrong_renders++;
    return status;
  }

  ftpool_backend backend_;
  CountingMemory *memory_;
  std::vector<unsigned char> serif_, mono_;
  uint64_t expected_serif_ = 0, expected_mono_ = 0, expected_font_ = 0;
  uint64_t serif_digest_ = 0, mono_digest_ = 0, font_digest_ = 0;
  ftpool *pool_ = nullptr;
  Outcome *out_ = nullptr;
  std::mutex mutex_;
};

class AllocFailureTest : public ::testing::TestWithParam<ftpool_backend> {};

TEST_P(AllocFailureTest, EveryAllocationFailureIsReportedAndRecovered) {
  CountingMemory clean_memory;
  Scenario clean(GetParam(), &clean_memory);
  Outcome clean_outcome = clean.Run();
  ASSERT_TRUE(clean_outcome.errors.empty());
  ASSERT_EQ(clean_memory.outstanding_bytes(), 0);
  ASSERT_NE(clean.serif_digest(), 0u);
  ASSERT_NE(clean.mono_digest(), 0u);
  ASSERT_NE(clean.font_digest(), 0u);
  const long points = clean_memory.allocations();
  ASSERT_GT(points, 100); // libraries, faces, blobs, the cache: many

  long reported = 0, absorbed = 0;
  std::map<ftpool_status, long> by_status;
  // FTPOOL_TEST_FAIL_ONLY=n runs only the run that fails allocation n, for
  // a debugger.
  long first = 1, last = points;
  if (const char *only = std::getenv("FTPOOL_TEST_FAIL_ONLY"))
    first = last = std::atol(only);
  for (long n = first; n <= last; n++) {
    CountingMemory memory;
    memory.FailAllocation(n);
    Scenario scenario(GetParam(), &memory);
    scenario.set_expected(clean.serif_digest(), clean.mono_digest(),
                          clean.font_digest());
    Outcome out = scenario.Run();
    SCOPED_TRACE("failing allocation " + std::to_string(n) + " of " +
                 std::to_string(points));
    ASSERT_EQ(memory.failures(), 1) << "the scenario took another path";
    EXPECT_LE(out.errors.size(), 1u);
    for (ftpool_status s : out.errors) {
      by_status[s]++;
      EXPECT_EQ(s, FTPOOL_ERR_OUT_OF_MEMORY) << ftpool_strerror(s);
    }
    (out.errors.empty() ? absorbed : reported)++;
    EXPECT_EQ(out.unusable, 0) << "a call failed again when retried";
    EXPECT_EQ(out.wrong_renders, 0);
    ASSERT_EQ(memory.outstanding_bytes(), 0) << "leaked after destroy";
    ASSERT_EQ(memory.outstanding_blocks(), 0);
  }
  std::printf("%s: %ld allocation points; %ld failures reported as errors, "
              "%ld absorbed (the call still succeeded)\n",
              GetParam() == FTPOOL_BACKEND_PER_THREAD ? "per-thread"
                                                      : "shared-mutex",
              points, reported, absorbed);
  RecordProperty("allocation_points", static_cast<int>(points));
  RecordProperty("reported", static_cast<int>(reported));
  RecordProperty("absorbed", static_cast<int>(absorbed));
}

INSTANTIATE_TEST_SUITE_P(Backends, AllocFailureTest,
                         ::testing::Values(FTPOOL_BACKEND_PER_THREAD,
                                           FTPOOL_BACKEND_SHARED_MUTEX),
                         BackendName);

} // namespace
} // namespace ftpool_test
