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
#include <vector>

#include <gtest/gtest.h>

#include "ftpool.h"
#include "test/support/child_process.h"

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

} // namespace
} // namespace ftpool_test
