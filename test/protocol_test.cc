// SPDX-License-Identifier: MIT
// The per-thread backend's protocol, step by step: posting a close to a live
// owner, draining on the owner's next call and at its exit, adopting an
// exited owner's context, and recycling contexts across thread churn.
#include <condition_variable>
#include <mutex>
#include <pthread.h>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "ftpool.h"
#include "test/support/counting_memory.h"
#include "test/support/fonts.h"
#include "test/support/pool_test_util.h"

namespace ftpool_test {
namespace {

// Lets a test step two threads through a fixed interleaving.
class Baton {
public:
  void Pass(int step) {
    std::lock_guard<std::mutex> lock(mutex_);
    step_ = step;
    cv_.notify_all();
  }
  void Await(int step) {
    std::unique_lock<std::mutex> lock(mutex_);
    cv_.wait(lock, [&] { return step_ >= step; });
  }

private:
  std::mutex mutex_;
  std::condition_variable cv_;
  int step_ = 0;
};

class ProtocolTest : public ::testing::Test {
protected:
  void SetUp() override {
    ftpool_config config;
    ftpool_config_init(&config);
    config.memory = memory_.get();
    ASSERT_EQ(ftpool_create(&config, &pool_), FTPOOL_OK);
  }
  void TearDown() override {
    ftpool_destroy(pool_);
    EXPECT_EQ(memory_.outstanding_bytes(), 0);
  }
  CountingMemory memory_;
  ftpool *pool_ = nullptr;
};

TEST_F(ProtocolTest, PostedCloseWaitsForTheOwnersNextCall) {
  Baton baton;
  FT_Face face = nullptr;
  std::thread owner([&] {
    ASSERT_EQ(ftpool_open_file(pool_, kSans, 0, &face), FTPOOL_OK);
    baton.Pass(1);
    baton.Await(2);
    EXPECT_EQ(ftpool_collect(pool_), FTPOOL_OK);
    baton.Pass(3);
    baton.Await(4);
  });
  baton.Await(1);
  ASSERT_EQ(ftpool_close(pool_, face), FTPOOL_OK);
  ftpool_stats s = Stats(pool_);
  EXPECT_EQ(s.closes_deferred, 1u);
  EXPECT_EQ(s.closes_drained, 0u);
  EXPECT_EQ(s.faces_open, 1u); // the owner has not called in yet
  baton.Pass(2);
  baton.Await(3);
  s = Stats(pool_);
  EXPECT_EQ(s.closes_drained, 1u);
  EXPECT_EQ(s.faces_open, 0u);
  EXPECT_EQ(s.contexts_adopted, 0u); // the owner was alive throughout
  baton.Pass(4);
  owner.join();
}

TEST_F(ProtocolTest, AnyOwnerCallDrains) {
  Baton baton;
  FT_Face face = nullptr;
  std::thread owner([&] {
    ASSERT_EQ(ftpool_open_file(pool_, kSans, 0, &face), FTPOOL_OK);
    baton.Pass(1);
    baton.Await(2);
    FT_Library library;
    EXPECT_EQ(ftpool_library(pool_, &library), FTPOOL_OK); // drains too
    baton.Pass(3);
    baton.Await(4);
  });
  baton.Await(1);
  ASSERT_EQ(ftpool_close(pool_, face), FTPOOL_OK);
  baton.Pass(2);
  baton.Await(3);
  EXPECT_EQ(Stats(pool_).faces_open, 0u);
  baton.Pass(4);
  owner.join();
}

TEST_F(ProtocolTest, OwnerExitDrainsPostedCloses) {
  Baton baton;
  FT_Face faces[3] = {};
  std::thread owner([&] {
    for (FT_Face &f : faces)
      ASSERT_EQ(ftpool_open_file(pool_, kSans, 0, &f), FTPOOL_OK);
    baton.Pass(1);
    baton.Await(2);
  });
  baton.Await(1);
  for (FT_Face f : faces)
    ASSERT_EQ(ftpool_close(pool_, f), FTPOOL_OK);
  EXPECT_EQ(Stats(pool_).faces_open, 3u);
  baton.Pass(2);
  owner.join(); // its exit hands the context back, after draining
  ftpool_stats s = Stats(pool_);
  EXPECT_EQ(s.closes_drained, 3u);
  EXPECT_EQ(s.faces_open, 0u);
  EXPECT_EQ(s.contexts_owned, 0u);
}

TEST_F(ProtocolTest, CloserAdoptsAnExitedOwnersContext) {
  FT_Face faces[2] = {};
  std::thread([&] {
    for (FT_Face &f : faces)
      ASSERT_EQ(ftpool_open_file(pool_, kSerif, 0, &f), FTPOOL_OK);
  }).join();
  ftpool_stats s = Stats(pool_);
  EXPECT_EQ(s.contexts_owned, 0u);
  EXPECT_EQ(s.faces_open, 2u);
  // A thread that never opened anything closes them: no context of its own
  // is created, it borrows the orphan's.
  std::thread([&] {
    for (FT_Face f : faces)
      ASSERT_EQ(ftpool_close(pool_, f), FTPOOL_OK);
  }).join();
  s = Stats(pool_);
  EXPECT_EQ(s.contexts, 1u);
  EXPECT_EQ(s.contexts_adopted, 2u);
  EXPECT_EQ(s.closes_deferred, 0u);
  EXPECT_EQ(s.faces_open, 0u);
  EXPECT_EQ(s.contexts_owned, 0u);
}

TEST_F(ProtocolTest, NewThreadTakesOverAnExitedThreadsContextAndFaces) {
  FT_Face face = nullptr;
  FT_Library first = nullptr, second = nullptr;
  std::thread([&] {
    ASSERT_EQ(ftpool_library(pool_, &first), FTPOOL_OK);
    ASSERT_EQ(ftpool_open_file(pool_, kSans, 0, &face), FTPOOL_OK);
  }).join();
  std::thread([&] {
    ASSERT_EQ(ftpool_library(pool_, &second), FTPOOL_OK);
    // It owns the face's library now, so this close is direct.
    ASSERT_EQ(ftpool_close(pool_, face), FTPOOL_OK);
  }).join();
  EXPECT_EQ(first, second);
  ftpool_stats s = Stats(pool_);
  EXPECT_EQ(s.contexts, 1u);
  EXPECT_EQ(s.contexts_recycled, 1u);
  EXPECT_EQ(s.contexts_adopted, 0u);
  EXPECT_EQ(s.closes_deferred, 0u);
  EXPECT_EQ(s.faces_open, 0u);
}

// Another library's thread-specific destructor may call into the pool after
// ftpool's own destructor has run, in every round libc makes, the last one
// too. Nothing may stay held then, or closes posted to it would never run.
#ifdef __SANITIZE_THREAD__
// TSan tears down its per-thread state in the last destructor round, so
// instrumented code cannot run in that round; the other builds cover it.
constexpr intptr_t kLateRounds = PTHREAD_DESTRUCTOR_ITERATIONS - 1;
#else
constexpr intptr_t kLateRounds = PTHREAD_DESTRUCTOR_ITERATIONS;
#endif

struct LateCaller {
  ftpool *pool;
  pthread_key_t key;
  std::mutex mutex;
  std::vector<FT_Face> faces;
  std::vector<ftpool_status> library_status;
};
LateCaller *late;

void LateDestructor(void *arg) {
  intptr_t round = reinterpret_cast<intptr_t>(arg);
  FT_Face face = nullptr;
  FT_Library library;
  ftpool_status open = ftpool_open_file(late->pool, kSans, 0, &face);
  ftpool_status lib = ftpool_library(late->pool, &library);
  {
    std::lock_guard<std::mutex> lock(late->mutex);
    if (open == FTPOOL_OK)
      late->faces.push_back(face);
    late->library_status.push_back(lib);
  }
  if (round < kLateRounds)
    pthread_setspecific(late->key, reinterpret_cast<void *>(round + 1));
}

void *LateThread(void *) {
  FT_Face face;
  if (ftpool_open_file(late->pool, kSans, 0, &face) == FTPOOL_OK)
    ftpool_close(late->pool, face);
  pthread_setspecific(late->key, reinterpret_cast<void *>(1));
  return nullptr;
}

TEST_F(ProtocolTest, CallsFromLateDestructorsLeaveNothingHeld) {
  LateCaller caller;
  caller.pool = pool_; // its key is older, so its destructor runs first
  ASSERT_EQ(pthread_key_create(&caller.key, LateDestructor), 0);
  late = &caller;
  pthread_t thread;
  ASSERT_EQ(pthread_create(&thread, nullptr, LateThread, nullptr), 0);
  pthread_join(thread, nullptr);
  pthread_key_delete(caller.key);

  ASSERT_EQ(caller.faces.size(), size_t{kLateRounds});
  for (ftpool_status s : caller.library_status)
    EXPECT_EQ(s, FTPOOL_ERR_THREAD); // a library it could not keep
  EXPECT_EQ(Stats(pool_).contexts_owned, 0u);
  for (FT_Face f : caller.faces)
    ASSERT_EQ(ftpool_close(pool_, f), FTPOOL_OK);
  ftpool_stats s = Stats(pool_);
  EXPECT_EQ(s.faces_open, 0u);
  EXPECT_EQ(s.closes_deferred, 0u);
}

// A thread whose *first* call comes from another library's destructor: in
// the rounds before the last it attaches, and our destructor, run in the
// next round, releases its context. In libc's last round no destructor runs
// after it, and nothing tells a destructor which round it is in: the context
// stays held by a thread that is gone, closes posted to it wait for
// ftpool_destroy, which closes them (design.md, "Thread-specific data and
// exit"; the model's LATE_FIRST_CALL).
struct FirstCallInRound {
  ftpool *pool;
  pthread_key_t key;
  intptr_t round; // the destructor round that makes the first call
  FT_Face face = nullptr;
  ftpool_status status = FTPOOL_ERR_FREETYPE;
};
FirstCallInRound *first_call;

void FirstCallDestructor(void *arg) {
  intptr_t round = reinterpret_cast<intptr_t>(arg);
  if (round == first_call->round)
    first_call->status =
        ftpool_open_file(first_call->pool, kSans, 0, &first_call->face);
  if (round < kLateRounds)
    pthread_setspecific(first_call->key, reinterpret_cast<void *>(round + 1));
}

// Runs a thread whose first call is in `round`; returns the stats after it
// was joined, with its face still open. The pool's key is older than the
// caller's, so in each round ftpool's destructor runs first.
ftpool_stats FirstCallFromDestructorRound(ftpool *pool, intptr_t round,
                                          FT_Face *face) {
  FirstCallInRound call;
  call.pool = pool;
  call.round = round;
  EXPECT_EQ(pthread_key_create(&call.key, FirstCallDestructor), 0);
  first_call = &call;
  std::thread([&] {
    pthread_setspecific(call.key, reinterpret_cast<void *>(1));
  }).join();
  pthread_key_delete(call.key);
  EXPECT_EQ(call.status, FTPOOL_OK);
  *face = call.face;
  ftpool_stats s;
  EXPECT_EQ(ftpool_get_stats(pool, &s), FTPOOL_OK);
  return s;
}

TEST_F(ProtocolTest, FirstCallFromADestructorIsReleasedNextRound) {
  for (intptr_t round = 1; round < kLateRounds; ++round) {
    SCOPED_TRACE(round);
    FT_Face face = nullptr;
    ftpool_stats s = FirstCallFromDestructorRound(pool_, round, &face);
    ASSERT_NE(face, nullptr);
    EXPECT_EQ(s.contexts_owned, 0u);
    ASSERT_EQ(ftpool_close(pool_, face), FTPOOL_OK);
    EXPECT_EQ(Stats(pool_).closes_deferred, 0u); // adopted, not posted
  }
}

#ifndef __SANITIZE_THREAD__ // see kLateRounds
TEST_F(ProtocolTest, FirstCallInTheLastDestructorRoundHoldsUntilDestroy) {
  FT_Face face = nullptr;
  ftpool_stats s = FirstCallFromDestructorRound(pool_, kLateRounds, &face);
  ASSERT_NE(face, nullptr);
  EXPECT_EQ(s.contexts_owned, 1u);
  ASSERT_EQ(ftpool_close(pool_, face), FTPOOL_OK);
  s = Stats(pool_);
  EXPECT_EQ(s.closes_deferred, 1u);
  EXPECT_EQ(s.faces_open, 1u);
  // TearDown: ftpool_destroy drains it; no byte outstanding.
}
#endif

// A thread that calls in after its destructor ran borrows a context; if it
// must build one, the configure callback runs, and a call from it back into
// the pool is refused as on attach, not recursed into.
ftpool *borrow_pool;
ftpool_status borrow_reentry = FTPOOL_OK;
int borrow_configures = 0;

FT_Error ConfigureCallingBackWhileBorrowing(FT_Library, void *) {
  ++borrow_configures;
  FT_Face face;
  borrow_reentry = ftpool_open_file(borrow_pool, kSans, 0, &face);
  if (borrow_reentry == FTPOOL_OK)
    ftpool_close(borrow_pool, face);
  return 0;
}

struct BorrowingCaller {
  pthread_key_t key;
  FT_Face face = nullptr;
  ftpool_status status = FTPOOL_ERR_FREETYPE;
};
BorrowingCaller *borrowing;

void BorrowingDestructor(void *arg) {
  if (reinterpret_cast<intptr_t>(arg) == 1) {
    pthread_setspecific(borrowing->key, reinterpret_cast<void *>(2));
    return; // round 1: our pool's destructor has not necessarily run yet
  }
  borrowing->status = ftpool_open_file(borrow_pool, kSans, 0, &borrowing->face);
}

TEST_F(ProtocolTest, ConfigureCallingBackWhileBorrowingIsRefused) {
  ftpool_config config;
  ftpool_config_init(&config);
  config.memory = memory_.get();
  config.configure = ConfigureCallingBackWhileBorrowing;
  ASSERT_EQ(ftpool_create(&config, &borrow_pool), FTPOOL_OK);
  BorrowingCaller caller;
  borrowing = &caller;
  ASSERT_EQ(pthread_key_create(&caller.key, BorrowingDestructor), 0);
  std::thread([&] {
    // A context in pool_ makes ftpool's destructor run (round 1), so the
    // call in round 2 comes from an exiting thread: it borrows, and
    // borrow_pool has no context to claim, so it builds one.
    FT_Library library;
    ASSERT_EQ(ftpool_library(pool_, &library), FTPOOL_OK);
    pthread_setspecific(caller.key, reinterpret_cast<void *>(1));
  }).join();
  pthread_key_delete(caller.key);
  EXPECT_EQ(caller.status, FTPOOL_OK);
  EXPECT_EQ(borrow_configures, 2); // the context's two libraries
  EXPECT_EQ(borrow_reentry, FTPOOL_ERR_REENTRANT);
  ftpool_stats s = Stats(borrow_pool);
  EXPECT_EQ(s.contexts, 1u);
  EXPECT_EQ(s.contexts_owned, 0u); // borrowed, then given back
  ASSERT_EQ(ftpool_close(borrow_pool, caller.face), FTPOOL_OK);
  ftpool_destroy(borrow_pool);
}

// 10,000 short-lived threads, at most two alive at once, each opening a face
// and closing the one its predecessor's predecessor left: the registry stays
// at the peak of live threads plus a small constant.
TEST_F(ProtocolTest, ThreadChurnRecyclesContexts) {
#ifdef _WIN32
  constexpr int kThreads = 1000; // wine takes ~10 ms to start a thread
#else
  constexpr int kThreads = 10000;
#endif
  std::vector<unsigned char> bytes = ReadFile(kSans);
  FT_Face slots[2] = {};
  std::thread previous;
  for (int i = 0; i < kThreads; ++i) {
    // slots[i % 2] was last written by thread i - 2, joined already.
    std::thread next([&, i] {
      FT_Face face;
      ASSERT_EQ(ftpool_open_memory(pool_, bytes.data(), bytes.size(), 0, &face),
                FTPOOL_OK);
      FT_Face left = slots[i % 2];
      slots[i % 2] = face;
      if (left) {
        ASSERT_EQ(ftpool_close(pool_, left), FTPOOL_OK);
      }
    });
    if (previous.joinable())
      previous.join();
    previous = std::move(next);
  }
  previous.join();
  for (FT_Face f : slots)
    ASSERT_EQ(ftpool_close(pool_, f), FTPOOL_OK);
  ftpool_stats s = Stats(pool_);
  EXPECT_LE(s.contexts, 2u + 2u);
  EXPECT_GE(s.contexts_recycled, size_t{kThreads} - s.contexts);
  EXPECT_EQ(s.faces_opened, size_t{kThreads});
  EXPECT_EQ(s.faces_closed, size_t{kThreads});
}

} // namespace
} // namespace ftpool_test
