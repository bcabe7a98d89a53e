// SPDX-License-Identifier: MIT
// Races found by review, between fork() and the per-thread backend's
// protocol and inside the file cache. The library's test hooks
// (lib/test_hooks.h) stop a thread inside the window, so each test catches
// its bug every time: each failed on the code before its fix (docs/design.md).
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <pthread.h>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "ftpool.h"
#include "lib/test_hooks.h"
#include "test/support/child_process.h"
#include "test/support/counting_memory.h"
#include "test/support/fonts.h"
#include "test/support/pool_test_util.h"
#include "test/support/scratch_dir.h"

namespace ftpool_test {
namespace {

// What the hook does on the calling thread.
enum class Role { kNone, kRecoverer, kClaimer, kDrainer, kOfferer, kLooker };
thread_local Role role = Role::kNone;

std::atomic<bool> recovering{false}, claimed{false}, recovered{false};
std::atomic<bool> mid_drain{false}, resume_drain{false};
ftpool *offer_pool;
std::atomic<size_t> bytes_counted_at_offer{0};
std::atomic<bool> looked{false}, header_reused{false};

constexpr int kChildSeconds = 20;

ftpool *NewPool(CountingMemory *memory) {
  ftpool_config config;
  ftpool_config_init(&config);
  config.memory = memory->get();
  ftpool *pool = nullptr;
  EXPECT_EQ(ftpool_create(&config, &pool), FTPOOL_OK);
  return pool;
}

// A thread that opens `count` faces, then waits until told to run `then`
// and to finish. Its stack size can be chosen (see the token test).
class Holder {
public:
  Holder(ftpool *pool, int count, size_t stack_size = 0)
      : pool_(pool), faces_(count) {
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    if (stack_size)
      pthread_attr_setstacksize(&attr, stack_size);
    EXPECT_EQ(pthread_create(&thread_, &attr, &Holder::Main, this), 0);
    pthread_attr_destroy(&attr);
    Await(ready_);
  }
  ~Holder() { Finish(); }
  FT_Face face(int i) const { return faces_[i]; }
  // Runs f on the holder's thread, without waiting for it.
  void Run(std::function<void()> f) {
    then_ = std::move(f);
    go_ = true;
  }
  void Finish() {
    if (finished_)
      return;
    finished_ = go_ = true;
    pthread_join(thread_, nullptr);
  }

private:
  static void *Main(void *self) {
    static_cast<Holder *>(self)->Body();
    return nullptr;
  }
  void Body() {
    for (FT_Face &face : faces_)
      EXPECT_EQ(ftpool_open_file(pool_, kSans, 0, &face), FTPOOL_OK);
    ready_ = true;
    while (!go_)
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    if (then_)
      then_();
  }

  ftpool *pool_;
  std::vector<FT_Face> faces_;
  pthread_t thread_;
  std::function<void()> then_;
  std::atomic<bool> ready_{false}, go_{false};
  bool finished_ = false;
};

// Bug: a thread of the child claimed a FREE context (its CAS done, its stamp
// not yet written) while another thread's recovery judged every unstamped
// held context abandoned, released it, and let a third thread claim it:
// two live threads on one FT_Library.
TEST(ForkRaceTest, ContextClaimedDuringRecoveryKeepsOneHolder) {
#ifdef __SANITIZE_THREAD__
  GTEST_SKIP() << "GCC 12's ThreadSanitizer cannot start threads in a child";
#endif
  CountingMemory memory;
  ftpool *pool = NewPool(&memory);
  ASSERT_NE(pool, nullptr);
  // The older context is held at the fork by a thread that will be gone;
  // the newer one, first in the registry, is FREE (its thread exited).
  Holder gone(pool, 1);
  FT_Face exited_face;
  std::thread([&] {
    ASSERT_EQ(ftpool_open_file(pool, kSans, 0, &exited_face), FTPOOL_OK);
  }).join();

  ChildResult child = RunForked(
      [&]() -> int {
        std::atomic<bool> got{false}, done{false};
        FT_Library claimer_library = nullptr;
        std::thread claimer([&] {
          role = Role::kClaimer;
          Await(recovering);
          if (ftpool_library(pool, &claimer_library) != FTPOOL_OK)
            claimer_library = nullptr;
          got = true;
          Await(done);
        });
        // Closing the gone thread's face recovers its context; the hook
        // holds the recovery until the claimer is inside its claim.
        role = Role::kRecoverer;
        CHILD_CHECK(ftpool_close(pool, gone.face(0)) == FTPOOL_OK);
        recovered = true;
        CHILD_CHECK(Await(got) && claimer_library != nullptr);
        FT_Library third = nullptr;
        std::thread([&] { ftpool_library(pool, &third); }).join();
        done = true;
        claimer.join();
        CHILD_CHECK(claimed); // the window was hit
        CHILD_CHECK(third != nullptr);
        CHILD_CHECK(third != claimer_library);
        return 0;
      },
      kChildSeconds);
  EXPECT_TRUE(child.exited && child.exit_code == 0) << child.Describe();
  gone.Finish();
  EXPECT_EQ(ftpool_close(pool, exited_face), FTPOOL_OK);
  ftpool_destroy(pool);
  EXPECT_EQ(memory.outstanding_bytes(), 0);
}

// Bug: a drain took the whole mailbox into a local list; a fork between two
// of its records left the rest unreachable in the child, never closed.
TEST(ForkRaceTest, ForkInTheMiddleOfADrainLosesNoClose) {
  CountingMemory memory;
  ftpool *pool = NewPool(&memory);
  ASSERT_NE(pool, nullptr);
  Holder drainer(pool, 4);
  // Posted to the live holder's mailbox.
  for (int i = 0; i < 3; i++)
    ASSERT_EQ(ftpool_close(pool, drainer.face(i)), FTPOOL_OK);
  drainer.Run([&] {
    role = Role::kDrainer;
    ftpool_collect(pool);
  });
  ASSERT_TRUE(Await(mid_drain));

  ChildResult child = RunForked(
      [&]() -> int {
        // The drainer is gone, caught between two records. Closing its last
        // face recovers its context, which must finish the drain.
        CHILD_CHECK(ftpool_close(pool, drainer.face(3)) == FTPOOL_OK);
        ftpool_stats s;
        CHILD_CHECK(ftpool_get_stats(pool, &s) == FTPOOL_OK);
        CHILD_CHECK(s.contexts_quarantined == 0);
        CHILD_CHECK(s.contexts_abandoned_at_fork == 1);
        CHILD_CHECK(s.faces_open == 0);
        CHILD_CHECK(s.faces_closed == 4);
        ftpool_destroy(pool);
        CHILD_CHECK(memory.outstanding_bytes() == 0);
        return 0;
      },
      kChildSeconds);
  EXPECT_TRUE(child.exited && child.exit_code == 0) << child.Describe();
  resume_drain = true;
  drainer.Finish();
  const ftpool_stats s = Stats(pool);
  EXPECT_EQ(s.faces_open, 1u);
  EXPECT_EQ(s.closes_drained, 3u);
  EXPECT_EQ(ftpool_close(pool, drainer.face(3)), FTPOOL_OK);
  ftpool_destroy(pool);
  EXPECT_EQ(memory.outstanding_bytes(), 0);
}

// Bug: a thread's identity was the address of a thread-local variable. glibc
// hands a thread created in a fork child a gone thread's stack, and with it
// its thread-local block; if that thread forks, the grandchild takes the gone
// thread's context for the survivor's, and a close posted to it never runs.
// Both threads get the same unusual stack size, so that glibc's cache has
// exactly one stack to give.
TEST(ForkRaceTest, ThreadBornInAChildIsNeverTakenForAGoneOne) {
#ifdef __SANITIZE_THREAD__
  GTEST_SKIP() << "GCC 12's ThreadSanitizer cannot start threads in a child";
#endif
  constexpr size_t kStack = (1u << 20) + (64u << 10);
  CountingMemory memory;
  ftpool *pool = NewPool(&memory);
  ASSERT_NE(pool, nullptr);
  Holder gone(pool, 1, kStack);

  ChildResult child = RunForked(
      [&]() -> int {
        // This child never calls the pool; a new thread forks again.
        ChildResult grandchild;
        pthread_attr_t attr;
        pthread_attr_init(&attr);
        pthread_attr_setstacksize(&attr, kStack);
        pthread_t thread;
        auto body = [&] {
          grandchild = RunForked(
              [&]() -> int {
                CHILD_CHECK(ftpool_close(pool, gone.face(0)) == FTPOOL_OK);
                ftpool_stats s;
                CHILD_CHECK(ftpool_get_stats(pool, &s) == FTPOOL_OK);
                CHILD_CHECK(s.contexts_abandoned_at_fork == 1);
                CHILD_CHECK(s.faces_open == 0);
                return 0;
              },
              kChildSeconds);
        };
        using Body = decltype(body);
        CHILD_CHECK(pthread_create(
                        &thread, &attr,
                        [](void *f) -> void * {
                          (*static_cast<Body *>(f))();
                          return nullptr;
                        },
                        &body) == 0);
        pthread_join(thread, nullptr);
        pthread_attr_destroy(&attr);
        std::fprintf(stderr, "grandchild %s\n", grandchild.Describe().c_str());
        return grandchild.exited && grandchild.exit_code == 0 ? 0 : 1;
      },
      kChildSeconds);
  EXPECT_TRUE(child.exited && child.exit_code == 0) << child.Describe();
  gone.Finish();
  EXPECT_EQ(Stats(pool).faces_open, 1u);
  ftpool_destroy(pool);
  EXPECT_EQ(memory.outstanding_bytes(), 0);
}

// Bug (found by the second review): in a fork child, a thread's first call
// takes over an orphan whose drain runs a release callback, which opens a
// face: that nested call attached the thread to one context, then the outer
// call attached it to another, and the first stayed held after the thread
// exited.
ftpool *nested_pool;
void ReleaseOpeningAFace(void *) {
  const std::vector<unsigned char> bytes = ReadFile(kSerif);
  FT_Face face;
  if (ftpool_open_memory(nested_pool, bytes.data(), bytes.size(), 0, &face) !=
          FTPOOL_OK ||
      ftpool_close(nested_pool, face) != FTPOOL_OK)
    std::abort();
}

TEST(ForkRaceTest, CallbackOfTheFirstCallsRecoveryAttachesOnce) {
#ifdef __SANITIZE_THREAD__
  GTEST_SKIP() << "GCC 12's ThreadSanitizer cannot start threads in a child";
#endif
  CountingMemory memory;
  ftpool *pool = nested_pool = NewPool(&memory);
  ASSERT_NE(pool, nullptr);
  const std::vector<unsigned char> bytes = ReadFile(kSans);
  ftpool_blob *blob;
  ASSERT_EQ(ftpool_blob_from_memory(pool, bytes.data(), bytes.size(),
                                    ReleaseOpeningAFace, nullptr, &blob),
            FTPOOL_OK);
  FT_Face face = nullptr;
  Holder gone(pool, 0);
  std::atomic<bool> opened{false}, finish{false};
  gone.Run([&] {
    EXPECT_EQ(ftpool_open_blob(pool, blob, 0, &face), FTPOOL_OK);
    ftpool_blob_release(blob); // the face's reference is the last
    opened = true;
    while (!finish)
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
  });
  ASSERT_TRUE(Await(opened));
  ASSERT_EQ(ftpool_close(pool, face), FTPOOL_OK); // waits in its mailbox

  ChildResult child = RunForked(
      [&]() -> int {
        std::thread([&] {
          FT_Library library;
          ftpool_library(pool, &library); // the first call
        }).join();
        ftpool_stats s;
        CHILD_CHECK(ftpool_get_stats(pool, &s) == FTPOOL_OK);
        CHILD_CHECK(s.faces_open == 0);
        CHILD_CHECK(s.contexts_owned == 0);
        return 0;
      },
      kChildSeconds);
  EXPECT_TRUE(child.exited && child.exit_code == 0) << child.Describe();
  finish = true;
  gone.Finish(); // its exit drains the close, and the callback opens
  EXPECT_EQ(Stats(pool).faces_open, 0u);
  ftpool_destroy(pool);
  EXPECT_EQ(memory.outstanding_bytes(), 0);
}

// Bug (found by the second review): in a fork child, ftpool_collect did not
// take over the orphans, so a close posted to a gone thread before the fork
// stayed undone for the child's life.
TEST(ForkRaceTest, CollectInAChildCarriesOutClosesPostedToGoneThreads) {
  CountingMemory memory;
  ftpool *pool = NewPool(&memory);
  ASSERT_NE(pool, nullptr);
  Holder gone(pool, 1);
  ASSERT_EQ(ftpool_close(pool, gone.face(0)), FTPOOL_OK); // posted
  ChildResult child = RunForked(
      [&]() -> int {
        CHILD_CHECK(ftpool_collect(pool) == FTPOOL_OK);
        ftpool_stats s;
        CHILD_CHECK(ftpool_get_stats(pool, &s) == FTPOOL_OK);
        CHILD_CHECK(s.faces_open == 0);
        CHILD_CHECK(s.closes_drained == 1);
        return 0;
      },
      kChildSeconds);
  EXPECT_TRUE(child.exited && child.exit_code == 0) << child.Describe();
  gone.Finish();
  EXPECT_EQ(Stats(pool).faces_open, 0u);
  ftpool_destroy(pool);
  EXPECT_EQ(memory.outstanding_bytes(), 0);
}

// Bug: an offer published its blob in the cache before adding its size to
// the cache's byte count, so an evictor could subtract a size never added:
// with two evictors the count wrapped to about 2^64 and the cache was
// flushed. The count must cover every blob the cache shows.
TEST(CacheRaceTest, ByteCountCoversABlobFromTheMomentItIsCached) {
  const ScratchDir dir;
  const std::string path = dir.File("font.bin");
  ASSERT_TRUE(ReplaceFile(path, std::vector<unsigned char>(1000, 'x')));
  CountingMemory memory;
  offer_pool = NewPool(&memory);
  ASSERT_NE(offer_pool, nullptr);
  ftpool_blob *blob = nullptr;
  std::thread([&] {
    role = Role::kOfferer;
    EXPECT_EQ(ftpool_blob_from_file(offer_pool, path.c_str(), &blob),
              FTPOOL_OK);
  }).join();
  EXPECT_EQ(bytes_counted_at_offer, 1000u);
  EXPECT_EQ(Stats(offer_pool).blob_bytes_cached, 1000u);
  ftpool_blob_release(blob);
  ftpool_destroy(offer_pool);
  EXPECT_EQ(memory.outstanding_bytes(), 0);
}

// The bytes of a blob.
std::vector<unsigned char> Bytes(const ftpool_blob *blob) {
  size_t size;
  const auto *data =
      static_cast<const unsigned char *>(ftpool_blob_data(blob, &size));
  return std::vector<unsigned char>(data, data + size);
}

// A thread that reads path through the file cache and stops between
// reading the entry's blob pointer and taking its reference, until
// Finish(), which returns the blob it got.
class StalledReader {
public:
  StalledReader(ftpool *pool, const std::string &path) {
    looked = header_reused = false;
    thread_ = std::thread([this, pool, path] {
      role = Role::kLooker;
      EXPECT_EQ(ftpool_blob_from_file(pool, path.c_str(), &read_), FTPOOL_OK);
    });
    stopped_ = Await(looked);
  }
  ~StalledReader() { Finish(); }
  bool stopped() const { return stopped_; }
  ftpool_blob *Finish() {
    header_reused = true;
    if (thread_.joinable())
      thread_.join();
    return read_;
  }

private:
  std::thread thread_;
  ftpool_blob *read_ = nullptr;
  bool stopped_ = false;
};

// A reader of the file cache holds the blob pointer it read while that blob
// leaves the cache and its header carries another blob, here a copy of the
// file's old bytes: the reader takes a reference to the new blob. It must
// see that the header is no longer its file's (the identity check), drop
// that reference without harm and load the file as it is now.
TEST(CacheRaceTest, AReaderOfAReusedHeaderLoadsTheFileAsItIsNow) {
  const ScratchDir dir;
  const std::string path = dir.File("font.bin");
  const std::vector<unsigned char> old_bytes(1000, 'o'), new_bytes(2000, 'n');
  ASSERT_TRUE(ReplaceFile(path, old_bytes));
  CountingMemory memory;
  ftpool *pool = NewPool(&memory);
  ASSERT_NE(pool, nullptr);
  ftpool_blob *first;
  ASSERT_EQ(ftpool_blob_from_file(pool, path.c_str(), &first), FTPOOL_OK);
  ftpool_blob_release(first); // the cache keeps it
  StalledReader reader(pool, path);
  ASSERT_TRUE(reader.stopped());
  // The new version replaces the first in the cache, whose header is free
  // again; a copy of the old bytes takes it.
  ASSERT_TRUE(ReplaceFile(path, new_bytes));
  ftpool_blob *fresh, *copy;
  ASSERT_EQ(ftpool_blob_from_file(pool, path.c_str(), &fresh), FTPOOL_OK);
  ASSERT_EQ(ftpool_blob_copy(pool, old_bytes.data(), old_bytes.size(), &copy),
            FTPOOL_OK);
  EXPECT_EQ(copy, first);
  ftpool_blob *read = reader.Finish();
  ASSERT_NE(read, nullptr);
  EXPECT_EQ(Bytes(read), new_bytes);
  // The copy kept its one reference and its bytes.
  EXPECT_EQ(Bytes(copy), old_bytes);
  ftpool_blob_release(copy);
  ftpool_blob_release(fresh);
  ftpool_blob_release(read);
  ftpool_destroy(pool);
  EXPECT_EQ(memory.outstanding_bytes(), 0);
}

// The same reader, while the blob it read is evicted (no longer referenced
// at all) and its header waits on the free list: it must not take a
// reference to the dead blob (the count is incremented only if not zero),
// however much its header still looks like the file's.
TEST(CacheRaceTest, AReaderOfAnEvictedBlobDoesNotReviveIt) {
  const ScratchDir dir;
  const std::string a = dir.File("a.bin"), b = dir.File("b.bin");
  const std::vector<unsigned char> a_bytes(1000, 'a'), b_bytes(1000, 'b');
  ASSERT_TRUE(ReplaceFile(a, a_bytes));
  ASSERT_TRUE(ReplaceFile(b, b_bytes));
  CountingMemory memory;
  ftpool_config config;
  ftpool_config_init(&config);
  config.memory = memory.get();
  config.file_cache_bytes = 1500; // room for one of the two
  ftpool *pool = nullptr;
  ASSERT_EQ(ftpool_create(&config, &pool), FTPOOL_OK);
  ftpool_blob *blob;
  ASSERT_EQ(ftpool_blob_from_file(pool, a.c_str(), &blob), FTPOOL_OK);
  ftpool_blob_release(blob); // the cache keeps it
  StalledReader reader(pool, a);
  ASSERT_TRUE(reader.stopped());
  ASSERT_EQ(ftpool_blob_from_file(pool, b.c_str(), &blob), FTPOOL_OK);
  const ftpool_stats before = Stats(pool);
  EXPECT_EQ(before.blob_evictions, 1u); // a's blob is gone
  ftpool_blob *read = reader.Finish();
  const ftpool_stats after = Stats(pool);
  EXPECT_EQ(after.blob_hits, before.blob_hits); // a miss: a is read again
  EXPECT_EQ(after.blob_misses, before.blob_misses + 1);
  ASSERT_NE(read, nullptr);
  EXPECT_EQ(Bytes(read), a_bytes);
  ftpool_blob_release(read);
  ftpool_blob_release(blob);
  ftpool_destroy(pool);
  EXPECT_EQ(memory.outstanding_bytes(), 0);
}

} // namespace
} // namespace ftpool_test

// The library calls this at each hook point (lib/test_hooks.h).
extern "C" void ftpool__test_hook(enum ftpool_test_hook point) {
  using namespace ftpool_test;
  switch (point) {
  case FTPOOL_HOOK_RECOVERING:
    if (role == Role::kRecoverer) {
      recovering = true;
      Await(claimed);
    }
    break;
  case FTPOOL_HOOK_CLAIMED:
    if (role == Role::kClaimer && !claimed) {
      claimed = true;
      Await(recovered);
    }
    break;
  case FTPOOL_HOOK_DRAINED_ONE:
    if (role == Role::kDrainer && !mid_drain) {
      mid_drain = true;
      Await(resume_drain);
    }
    break;
  case FTPOOL_HOOK_OFFERED:
    if (role == Role::kOfferer)
      bytes_counted_at_offer = Stats(offer_pool).blob_bytes_cached;
    break;
  case FTPOOL_HOOK_LOOKED_UP:
    if (role == Role::kLooker && !looked) {
      looked = true;
      Await(header_reused);
    }
    break;
  }
}
