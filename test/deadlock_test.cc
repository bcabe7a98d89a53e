// SPDX-License-Identifier: MIT
// The OnceLock deadlock: thread A holds a runtime lock (a mutex standing in
// for Python's GIL) while it makes its first pool call; thread B's first call
// is already running the configure callback, which needs that lock. With a
// blocking one-time init, A waits for B's init and B waits for A's lock.
// Each scenario runs in a child process under a time limit (the watchdog).
#include <atomic>
#include <chrono>
#include <cstdio>
#include <mutex>
#include <pthread.h>
#include <thread>
#include <unistd.h>
#include <vector>

#include <gtest/gtest.h>

#include "ftpool.h"
#include "test/support/child_process.h"
#include "test/support/fonts.h"

namespace ftpool_test {
namespace {

constexpr int kWatchdogSeconds = 20;

std::mutex gil;
thread_local bool holds_gil = false;

class GilHold {
public:
  GilHold() {
    gil.lock();
    holds_gil = true;
  }
  ~GilHold() {
    holds_gil = false;
    gil.unlock();
  }
};

std::atomic<bool> b_in_configure{false};

// A configure callback that calls back into the runtime, as a Python
// extension's would: it takes the GIL unless its thread already holds it.
FT_Error ConfigureNeedingGil(FT_Library, void *) {
  if (holds_gil)
    return 0;
  b_in_configure = true;
  GilHold hold;
  return 0;
}

// A takes the GIL, lets B start its first call, and makes its own first call
// once B is inside configure.
void RunGilScenario(void (*first_call)()) {
  std::atomic<bool> a_holds_gil{false};
  std::thread a([&] {
    GilHold hold;
    a_holds_gil = true;
    while (!b_in_configure)
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    // Give B time to block on the GIL, so the bad interleaving is certain.
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    first_call();
  });
  std::thread b([&] {
    while (!a_holds_gil)
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    first_call();
  });
  a.join();
  b.join();
}

// --- ftpool -----------------------------------------------------------------

ftpool *gil_pool;

void PoolFirstCall() {
  FT_Library library;
  if (ftpool_library(gil_pool, &library) != FTPOOL_OK)
    std::abort();
}

int PoolScenarioChild() {
  ftpool_config config;
  ftpool_config_init(&config);
  config.configure = ConfigureNeedingGil;
  if (ftpool_create(&config, &gil_pool) != FTPOOL_OK)
    return 2;
  RunGilScenario(PoolFirstCall);
  ftpool_destroy(gil_pool);
  std::printf("both threads made their first call\n");
  return 0;
}

// The default pool, first touched by many threads at once, one of them
// holding the GIL.
int DefaultPoolScenarioChild() {
  std::vector<std::thread> threads;
  std::vector<ftpool *> seen(8);
  for (int i = 0; i < 8; ++i)
    threads.emplace_back([&, i] {
      if (i == 0) {
        GilHold hold;
        ftpool_default(&seen[i]);
      } else {
        ftpool_default(&seen[i]);
      }
    });
  for (std::thread &t : threads)
    t.join();
  for (ftpool *p : seen)
    if (!p || p != seen[0])
      return 1;
  return 0;
}

// --- the naive design: one library behind a blocking once -------------------

pthread_once_t naive_once = PTHREAD_ONCE_INIT;
FT_Library naive_library;

void NaiveInit() {
  FT_Init_FreeType(&naive_library);
  ConfigureNeedingGil(naive_library, nullptr);
}

void NaiveFirstCall() { pthread_once(&naive_once, NaiveInit); }

int NaiveScenarioChild() {
  RunGilScenario(NaiveFirstCall);
  return 0;
}

const bool registered[] = {
    RegisterChildMode("pool-gil", &PoolScenarioChild),
    RegisterChildMode("default-pool-gil", &DefaultPoolScenarioChild),
    RegisterChildMode("naive-once-gil", &NaiveScenarioChild),
};

TEST(DeadlockTest, PoolFirstCallsNeverWaitOnEachOther) {
  ChildResult child = RunSelf("pool-gil", kWatchdogSeconds);
  EXPECT_TRUE(child.exited && child.exit_code == 0) << child.Describe();
}

TEST(DeadlockTest, DefaultPoolInitNeverWaits) {
  ChildResult child = RunSelf("default-pool-gil", kWatchdogSeconds);
  EXPECT_TRUE(child.exited && child.exit_code == 0) << child.Describe();
}

// The negative control: the same scenario deadlocks with a blocking once, so
// the watchdog has to kill it.
TEST(DeadlockTest, NaiveBlockingOnceDeadlocks) {
  ChildResult child = RunSelf("naive-once-gil", 5);
  EXPECT_TRUE(child.timed_out) << child.Describe();
}

// Re-entry from the callback is refused, not recursed into or waited on.
ftpool *reentry_pool;
ftpool_status reentry_status;

FT_Error ConfigureCallingBack(FT_Library, void *) {
  FT_Library library;
  reentry_status = ftpool_library(reentry_pool, &library);
  return 0;
}

TEST(DeadlockTest, CallFromConfigureIsRefused) {
  ftpool_config config;
  ftpool_config_init(&config);
  config.configure = ConfigureCallingBack;
  ASSERT_EQ(ftpool_create(&config, &reentry_pool), FTPOOL_OK);
  FT_Library library;
  EXPECT_EQ(ftpool_library(reentry_pool, &library), FTPOOL_OK);
  EXPECT_EQ(reentry_status, FTPOOL_ERR_REENTRANT);
  ftpool_destroy(reentry_pool);
}

// A callback may use another pool, whose callback comes back to the first:
// that inner call is refused, the outer ones succeed.
ftpool *chain_outer;
ftpool *chain_inner;
ftpool_status chain_inner_status = FTPOOL_ERR_FREETYPE;
ftpool_status chain_back_status = FTPOOL_OK;

FT_Error ConfigureOuter(FT_Library, void *) {
  FT_Library library;
  chain_inner_status = ftpool_library(chain_inner, &library);
  return 0;
}

FT_Error ConfigureInner(FT_Library, void *) {
  FT_Library library;
  chain_back_status = ftpool_library(chain_outer, &library);
  return 0;
}

TEST(DeadlockTest, CallBackThroughAnotherPoolsCallbackIsRefused) {
  ftpool_config config;
  ftpool_config_init(&config);
  config.configure = ConfigureOuter;
  ASSERT_EQ(ftpool_create(&config, &chain_outer), FTPOOL_OK);
  config.configure = ConfigureInner;
  ASSERT_EQ(ftpool_create(&config, &chain_inner), FTPOOL_OK);
  FT_Library library;
  EXPECT_EQ(ftpool_library(chain_outer, &library), FTPOOL_OK);
  EXPECT_EQ(chain_inner_status, FTPOOL_OK);
  EXPECT_EQ(chain_back_status, FTPOOL_ERR_REENTRANT);
  ftpool_destroy(chain_inner);
  ftpool_destroy(chain_outer);
}

// --- user callbacks run with no pool lock held -------------------------------

// A blob's release callback runs when its last reference goes, which can be
// inside ftpool_close. It may call into the pool (close another face), and
// it may take the caller's own lock (a GIL) even while another thread holds
// that lock and waits for the pool.
std::vector<unsigned char> &SansBytes() {
  static std::vector<unsigned char> bytes = ReadFile(kSans);
  return bytes;
}

ftpool *NewBackendPool(ftpool_backend backend) {
  ftpool_config config;
  ftpool_config_init(&config);
  config.backend = backend;
  ftpool *pool = nullptr;
  return ftpool_create(&config, &pool) == FTPOOL_OK ? pool : nullptr;
}

ftpool *release_pool;
FT_Face release_closes;

void ReleaseClosingAFace(void *) {
  if (ftpool_close(release_pool, release_closes) != FTPOOL_OK)
    std::abort();
}

int ReleaseClosesAFaceChild(ftpool_backend backend) {
  if (!(release_pool = NewBackendPool(backend)))
    return 2;
  const std::vector<unsigned char> &bytes = SansBytes();
  ftpool_blob *blob;
  FT_Face face;
  if (ftpool_blob_from_memory(release_pool, bytes.data(), bytes.size(),
                              ReleaseClosingAFace, nullptr,
                              &blob) != FTPOOL_OK ||
      ftpool_open_blob(release_pool, blob, 0, &face) != FTPOOL_OK ||
      ftpool_open_memory(release_pool, bytes.data(), bytes.size(), 0,
                         &release_closes) != FTPOOL_OK)
    return 2;
  ftpool_blob_release(blob);
  // The face's reference is the last: its close runs the callback.
  if (ftpool_close(release_pool, face) != FTPOOL_OK)
    return 1;
  ftpool_stats s;
  ftpool_get_stats(release_pool, &s);
  ftpool_destroy(release_pool);
  return s.faces_open == 0 ? 0 : 1;
}

std::atomic<bool> in_release{false};
std::atomic<bool> opener_holds_gil{false};

void ReleaseTakingTheGil(void *) {
  in_release = true;
  while (!opener_holds_gil)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  // Let the opener reach the pool, so the bad interleaving is certain.
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  GilHold hold;
}

// One thread closes the last face of a blob whose release takes the GIL;
// another holds the GIL and opens a face. With the release run under the
// pool's lock, each waits for the other's lock.
int ReleaseTakesTheGilChild(ftpool_backend backend) {
  ftpool *pool = NewBackendPool(backend);
  if (!pool)
    return 2;
  const std::vector<unsigned char> &bytes = SansBytes();
  ftpool_blob *blob;
  if (ftpool_blob_from_memory(pool, bytes.data(), bytes.size(),
                              ReleaseTakingTheGil, nullptr, &blob) != FTPOOL_OK)
    return 2;
  // The closer opens the face itself, so that it closes it in place (with
  // the per-thread backend, a close from another thread would be posted).
  std::thread closer([&] {
    FT_Face face;
    if (ftpool_open_blob(pool, blob, 0, &face) != FTPOOL_OK)
      std::abort();
    ftpool_blob_release(blob);
    ftpool_close(pool, face);
  });
  std::thread opener([&] {
    GilHold hold;
    while (!in_release)
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    opener_holds_gil = true;
    FT_Face other;
    if (ftpool_open_memory(pool, bytes.data(), bytes.size(), 0, &other) !=
        FTPOOL_OK)
      std::abort();
    ftpool_close(pool, other);
  });
  closer.join();
  opener.join();
  ftpool_destroy(pool);
  return 0;
}

// A thread cancelled while a release callback runs in its drain: the
// cancellation waits until the pool call returns, and the thread then exits
// holding nothing, with every close carried out, including one posted while
// the callback ran. Cancelled inside the drain, it spun for ever in its exit.
std::atomic<bool> in_cancellable{false}, cancel_sent{false};

void ReleaseAtACancellationPoint(void *) {
  in_cancellable = true;
  while (!cancel_sent)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  usleep(1000); // a cancellation point
}

int CancelInReleaseChild() {
  ftpool *pool = NewBackendPool(FTPOOL_BACKEND_PER_THREAD);
  if (!pool)
    return 2;
  const std::vector<unsigned char> &bytes = SansBytes();
  ftpool_blob *blob;
  if (ftpool_blob_from_memory(pool, bytes.data(), bytes.size(),
                              ReleaseAtACancellationPoint, nullptr,
                              &blob) != FTPOOL_OK)
    return 2;
  struct Shared {
    ftpool *pool;
    ftpool_blob *blob;
    FT_Face first = nullptr, second = nullptr;
    std::atomic<bool> opened{false}, posted{false};
  } shared{pool, blob};
  pthread_t thread;
  pthread_create(
      &thread, nullptr,
      [](void *arg) -> void * {
        Shared *s = static_cast<Shared *>(arg);
        const std::vector<unsigned char> &sans = SansBytes();
        if (ftpool_open_blob(s->pool, s->blob, 0, &s->first) != FTPOOL_OK ||
            ftpool_open_memory(s->pool, sans.data(), sans.size(), 0,
                               &s->second) != FTPOOL_OK)
          std::abort();
        ftpool_blob_release(s->blob); // the face's reference is the last
        s->opened = true;
        while (!s->posted)
          std::this_thread::sleep_for(std::chrono::milliseconds(1));
        ftpool_collect(s->pool); // drains: the callback runs here
        pthread_testcancel();
        return nullptr;
      },
      &shared);
  while (!shared.opened)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  ftpool_close(pool, shared.first); // posted to the thread
  shared.posted = true;
  while (!in_cancellable)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  pthread_cancel(thread);
  ftpool_close(pool, shared.second); // posted while the callback runs
  cancel_sent = true;
  void *result;
  pthread_join(thread, &result);
  ftpool_stats s;
  ftpool_get_stats(pool, &s);
  ftpool_destroy(pool);
  std::printf("cancelled: %d, faces open: %zu, contexts owned: %zu\n",
              result == PTHREAD_CANCELED, s.faces_open, s.contexts_owned);
  return result == PTHREAD_CANCELED && s.faces_open == 0 &&
                 s.contexts_owned == 0
             ? 0
             : 1;
}

const bool callback_modes_registered[] = {
    RegisterChildMode(
        "release-closes-face-per-thread",
        [] { return ReleaseClosesAFaceChild(FTPOOL_BACKEND_PER_THREAD); }),
    RegisterChildMode(
        "release-closes-face-shared-mutex",
        [] { return ReleaseClosesAFaceChild(FTPOOL_BACKEND_SHARED_MUTEX); }),
    RegisterChildMode(
        "release-takes-gil-per-thread",
        [] { return ReleaseTakesTheGilChild(FTPOOL_BACKEND_PER_THREAD); }),
    RegisterChildMode(
        "release-takes-gil-shared-mutex",
        [] { return ReleaseTakesTheGilChild(FTPOOL_BACKEND_SHARED_MUTEX); }),
    RegisterChildMode("cancel-in-release", &CancelInReleaseChild),
};

TEST(DeadlockTest, ThreadCancelledInAReleaseCallbackLeavesNothingHeld) {
  ChildResult child = RunSelf("cancel-in-release", kWatchdogSeconds);
  EXPECT_TRUE(child.exited && child.exit_code == 0) << child.Describe();
}

TEST(DeadlockTest, ReleaseCallbackMayCloseAFaceOfThePool) {
  for (const char *mode :
       {"release-closes-face-per-thread", "release-closes-face-shared-mutex"}) {
    ChildResult child = RunSelf(mode, kWatchdogSeconds);
    EXPECT_TRUE(child.exited && child.exit_code == 0)
        << mode << ": " << child.Describe();
  }
}

TEST(DeadlockTest, ReleaseCallbackMayTakeTheGilWhileAnotherThreadOpens) {
  for (const char *mode :
       {"release-takes-gil-per-thread", "release-takes-gil-shared-mutex"}) {
    ChildResult child = RunSelf(mode, kWatchdogSeconds);
    EXPECT_TRUE(child.exited && child.exit_code == 0)
        << mode << ": " << child.Describe();
  }
}

} // namespace
} // namespace ftpool_test
