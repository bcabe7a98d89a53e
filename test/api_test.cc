// SPDX-License-Identifier: MIT
// Unit tests of every public function, on both backends.
#include <atomic>
#include <cstring>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "ftpool.h"
#include "test/support/counting_memory.h"
#include "test/support/fonts.h"
#include "test/support/pool_test_util.h"
#include "test/support/scratch_dir.h"

namespace ftpool_test {
namespace {

const char kText[] = "ftpool";

uint64_t RawDigest(const char *path) {
  FT_Library library;
  FT_Face face;
  EXPECT_EQ(FT_Init_FreeType(&library), 0);
  EXPECT_EQ(FT_New_Face(library, path, 0, &face), 0);
  uint64_t digest = RenderDigest(face, kText);
  FT_Done_FreeType(library);
  return digest;
}

class PoolTest : public ::testing::TestWithParam<ftpool_backend> {
protected:
  void SetUp() override {
    ftpool_config config;
    ftpool_config_init(&config);
    config.backend = GetParam();
    config.memory = memory_.get();
    ASSERT_EQ(ftpool_create(&config, &pool_), FTPOOL_OK);
  }
  void TearDown() override {
    ftpool_destroy(pool_);
    EXPECT_EQ(memory_.outstanding_bytes(), 0);
    EXPECT_EQ(memory_.outstanding_blocks(), 0);
  }
  bool per_thread() const { return GetParam() == FTPOOL_BACKEND_PER_THREAD; }

  CountingMemory memory_;
  ftpool *pool_ = nullptr;
};

TEST_P(PoolTest, OpensFromFileAndRendersLikeRawFreeType) {
  FT_Face face = nullptr;
  ASSERT_EQ(ftpool_open_file(pool_, kSans, 0, &face), FTPOOL_OK);
  ASSERT_NE(face, nullptr);
  EXPECT_STREQ(face->family_name, "DejaVu Sans");
  EXPECT_EQ(RenderDigest(face, kText), RawDigest(kSans));
  EXPECT_EQ(ftpool_close(pool_, face), FTPOOL_OK);
}

TEST_P(PoolTest, OpensFromMemoryAndRendersLikeRawFreeType) {
  std::vector<unsigned char> bytes = ReadFile(kSerif);
  ASSERT_FALSE(bytes.empty());
  FT_Face face = nullptr;
  ASSERT_EQ(ftpool_open_memory(pool_, bytes.data(), bytes.size(), 0, &face),
            FTPOOL_OK);
  EXPECT_STREQ(face->family_name, "DejaVu Serif");
  EXPECT_EQ(RenderDigest(face, kText), RawDigest(kSerif));
  EXPECT_EQ(ftpool_close(pool_, face), FTPOOL_OK);
}

TEST_P(PoolTest, RejectsNullArguments) {
  FT_Face face = nullptr;
  FT_Library library = nullptr;
  ftpool_stats stats;
  unsigned char byte = 0;
  EXPECT_EQ(ftpool_open_file(nullptr, kSans, 0, &face),
            FTPOOL_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(ftpool_open_file(pool_, nullptr, 0, &face),
            FTPOOL_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(ftpool_open_file(pool_, kSans, 0, nullptr),
            FTPOOL_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(ftpool_open_memory(nullptr, &byte, 1, 0, &face),
            FTPOOL_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(ftpool_open_memory(pool_, nullptr, 1, 0, &face),
            FTPOOL_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(ftpool_open_memory(pool_, &byte, 0, 0, &face),
            FTPOOL_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(ftpool_open_memory(pool_, &byte, 1, 0, nullptr),
            FTPOOL_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(ftpool_close(nullptr, face), FTPOOL_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(ftpool_close(pool_, nullptr), FTPOOL_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(ftpool_library(nullptr, &library), FTPOOL_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(ftpool_library(pool_, nullptr), FTPOOL_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(ftpool_collect(nullptr), FTPOOL_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(ftpool_get_stats(nullptr, &stats), FTPOOL_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(ftpool_get_stats(pool_, nullptr), FTPOOL_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(ftpool_last_ft_error(), 0);
  EXPECT_EQ(Stats(pool_).faces_opened, 0u);
}

TEST_P(PoolTest, ReportsMissingFile) {
  FT_Face face = reinterpret_cast<FT_Face>(&face);
  EXPECT_EQ(ftpool_open_file(pool_, "/nonexistent/font.ttf", 0, &face),
            FTPOOL_ERR_CANNOT_OPEN);
  EXPECT_EQ(face, nullptr);
  // The file cache finds the file missing before FreeType is asked.
  EXPECT_EQ(ftpool_last_ft_error(), 0);
}

TEST_P(PoolTest, ReportsGarbage) {
  std::vector<unsigned char> garbage(4096);
  for (size_t i = 0; i < garbage.size(); ++i)
    garbage[i] = static_cast<unsigned char>(i * 131 + 7);
  FT_Face face;
  EXPECT_EQ(ftpool_open_memory(pool_, garbage.data(), garbage.size(), 0, &face),
            FTPOOL_ERR_UNKNOWN_FORMAT);
  EXPECT_EQ(ftpool_last_ft_error(), FT_Err_Unknown_File_Format);
}

TEST_P(PoolTest, ReportsTruncatedFont) {
  std::vector<unsigned char> bytes = ReadFile(kSans);
  FT_Face face;
  for (size_t size : {size_t{12}, size_t{200}, size_t{4000}}) {
    EXPECT_EQ(ftpool_open_memory(pool_, bytes.data(), size, 0, &face),
              FTPOOL_ERR_BROKEN_FONT)
        << "truncated to " << size << " bytes, FreeType error "
        << ftpool_last_ft_error();
  }
}

TEST_P(PoolTest, ReportsBadFiles) {
  std::vector<unsigned char> bytes = ReadFile(kSans);
  ScratchDir dir;
  const std::string path = dir.File("truncated.ttf");
  ASSERT_TRUE(ReplaceFile(path, {bytes.begin(), bytes.begin() + 4000}));
  FT_Face face;
  EXPECT_EQ(ftpool_open_file(pool_, path.c_str(), 0, &face),
            FTPOOL_ERR_BROKEN_FONT);
  EXPECT_EQ(ftpool_open_file(pool_, dir.path().c_str(), 0, &face),
            FTPOOL_ERR_CANNOT_OPEN);
  EXPECT_EQ(ftpool_open_file(pool_, "", 0, &face), FTPOOL_ERR_CANNOT_OPEN);
  EXPECT_EQ(Stats(pool_).faces_open, 0u);
}

TEST_P(PoolTest, ReportsFaceIndexOutOfRange) {
  FT_Face face;
  EXPECT_EQ(ftpool_open_file(pool_, kSans, 3, &face), FTPOOL_ERR_FACE_INDEX);
  EXPECT_EQ(ftpool_open_file(pool_, kSans, -1, &face),
            FTPOOL_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(Stats(pool_).faces_open, 0u);
}

TEST_P(PoolTest, RefusesFacesItDidNotOpen) {
  FT_Library library;
  FT_Face raw;
  ASSERT_EQ(FT_Init_FreeType(&library), 0);
  ASSERT_EQ(FT_New_Face(library, kSans, 0, &raw), 0);
  EXPECT_EQ(ftpool_close(pool_, raw), FTPOOL_ERR_FOREIGN_FACE);
  FT_Done_FreeType(library);

  ftpool *other;
  ASSERT_EQ(ftpool_create(nullptr, &other), FTPOOL_OK);
  FT_Face theirs;
  ASSERT_EQ(ftpool_open_file(other, kSans, 0, &theirs), FTPOOL_OK);
  EXPECT_EQ(ftpool_close(pool_, theirs), FTPOOL_ERR_FOREIGN_FACE);
  EXPECT_EQ(ftpool_close(other, theirs), FTPOOL_OK);
  ftpool_destroy(other);
}

TEST_P(PoolTest, AllocatesThroughTheConfiguredMemory) {
  long before = memory_.allocations();
  FT_Face face;
  ASSERT_EQ(ftpool_open_file(pool_, kSans, 0, &face), FTPOOL_OK);
  EXPECT_GT(memory_.allocations(), before);
  EXPECT_GT(memory_.outstanding_bytes(), 0);
  EXPECT_EQ(ftpool_close(pool_, face), FTPOOL_OK);
}

TEST_P(PoolTest, LibraryIsPerThreadOrShared) {
  FT_Library mine = nullptr, again = nullptr, theirs = nullptr;
  ASSERT_EQ(ftpool_library(pool_, &mine), FTPOOL_OK);
  ASSERT_EQ(ftpool_library(pool_, &again), FTPOOL_OK);
  EXPECT_NE(mine, nullptr);
  EXPECT_EQ(mine, again);
  // A thread that is alive while we hold ours gets a library of its own.
  std::thread([&] {
    EXPECT_EQ(ftpool_library(pool_, &theirs), FTPOOL_OK);
  }).join();
  if (per_thread())
    EXPECT_NE(theirs, mine);
  else
    EXPECT_EQ(theirs, mine);
}

TEST_P(PoolTest, ClosesFromAnotherThread) {
  FT_Face face;
  ASSERT_EQ(ftpool_open_file(pool_, kSans, 0, &face), FTPOOL_OK);
  std::thread([&] { EXPECT_EQ(ftpool_close(pool_, face), FTPOOL_OK); }).join();
  EXPECT_EQ(ftpool_collect(pool_), FTPOOL_OK);
  ftpool_stats s = Stats(pool_);
  EXPECT_EQ(s.faces_opened, 1u);
  EXPECT_EQ(s.faces_closed, 1u);
  EXPECT_EQ(s.faces_open, 0u);
  if (per_thread()) {
    EXPECT_EQ(s.closes_deferred, 1u);
    EXPECT_EQ(s.closes_drained, 1u);
  }
}

TEST_P(PoolTest, FaceOutlivesTheThreadThatOpenedIt) {
  FT_Face face = nullptr;
  std::thread([&] {
    EXPECT_EQ(ftpool_open_file(pool_, kMono, 0, &face), FTPOOL_OK);
  }).join();
  ASSERT_NE(face, nullptr);
  EXPECT_EQ(RenderDigest(face, kText), RawDigest(kMono));
  EXPECT_EQ(ftpool_close(pool_, face), FTPOOL_OK);
  ftpool_stats s = Stats(pool_);
  EXPECT_EQ(s.faces_open, 0u);
  if (per_thread()) {
    EXPECT_EQ(s.contexts_adopted, 1u); // the opener had exited
    EXPECT_EQ(s.closes_deferred, 0u);
  }
}

TEST_P(PoolTest, DestroyClosesWhateverIsLeft) {
  std::vector<unsigned char> bytes = ReadFile(kSans);
  FT_Face mine, orphan = nullptr;
  ASSERT_EQ(ftpool_open_memory(pool_, bytes.data(), bytes.size(), 0, &mine),
            FTPOOL_OK);
  std::thread([&] {
    EXPECT_EQ(ftpool_open_file(pool_, kSerif, 0, &orphan), FTPOOL_OK);
  }).join();
  FT_Face posted;
  ASSERT_EQ(ftpool_open_file(pool_, kMono, 0, &posted), FTPOOL_OK);
  std::thread([&] {
    EXPECT_EQ(ftpool_close(pool_, posted), FTPOOL_OK);
  }).join();
  EXPECT_EQ(Stats(pool_).faces_open, per_thread() ? 3u : 2u);
  // TearDown destroys the pool and checks that nothing is outstanding.
}

TEST_P(PoolTest, CountsInStats) {
  std::vector<FT_Face> faces(5);
  for (FT_Face &f : faces)
    ASSERT_EQ(ftpool_open_file(pool_, kSans, 0, &f), FTPOOL_OK);
  ftpool_stats s = Stats(pool_);
  EXPECT_EQ(s.faces_opened, 5u);
  EXPECT_EQ(s.faces_open, 5u);
  EXPECT_EQ(s.contexts, 1u);
  EXPECT_EQ(s.contexts_owned, 1u);
  for (FT_Face f : faces)
    ASSERT_EQ(ftpool_close(pool_, f), FTPOOL_OK);
  s = Stats(pool_);
  EXPECT_EQ(s.faces_closed, 5u);
  EXPECT_EQ(s.faces_open, 0u);
}

INSTANTIATE_TEST_SUITE_P(Backends, PoolTest,
                         ::testing::Values(FTPOOL_BACKEND_PER_THREAD,
                                           FTPOOL_BACKEND_SHARED_MUTEX),
                         BackendName);

// --- configuration and the configure callback -------------------------------

struct ConfigureLog {
  std::mutex mutex;
  std::vector<std::thread::id> threads;
  std::set<FT_Library> libraries;
  FT_Error result = 0;
};

FT_Error LogConfigure(FT_Library library, void *arg) {
  auto *log = static_cast<ConfigureLog *>(arg);
  std::lock_guard<std::mutex> lock(log->mutex);
  log->threads.push_back(std::this_thread::get_id());
  log->libraries.insert(library);
  return log->result;
}

ftpool *CreateWithLog(ftpool_backend backend, ConfigureLog *log) {
  ftpool_config config;
  ftpool_config_init(&config);
  config.backend = backend;
  config.configure = LogConfigure;
  config.configure_arg = log;
  ftpool *pool = nullptr;
  EXPECT_EQ(ftpool_create(&config, &pool), FTPOOL_OK);
  return pool;
}

TEST(ConfigTest, InitGivesDefaults) {
  ftpool_config config;
  std::memset(&config, 0xAB, sizeof config);
  ftpool_config_init(&config);
  EXPECT_EQ(config.backend, FTPOOL_BACKEND_PER_THREAD);
  EXPECT_EQ(config.memory, nullptr);
  EXPECT_EQ(config.configure, nullptr);
  EXPECT_EQ(config.configure_arg, nullptr);
  ftpool_config_init(nullptr); // documented no-op
}

TEST(ConfigTest, CreateRejectsBadArguments) {
  ftpool_config config;
  ftpool_config_init(&config);
  config.backend = static_cast<ftpool_backend>(7);
  ftpool *pool = reinterpret_cast<ftpool *>(&config);
  EXPECT_EQ(ftpool_create(&config, &pool), FTPOOL_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(pool, nullptr);
  EXPECT_EQ(ftpool_create(nullptr, nullptr), FTPOOL_ERR_INVALID_ARGUMENT);
  ftpool_destroy(nullptr); // documented no-op
}

TEST(ConfigTest, ConfigureRunsOnEachOwningThreadOnce) {
  ConfigureLog log;
  ftpool *pool = CreateWithLog(FTPOOL_BACKEND_PER_THREAD, &log);
  EXPECT_TRUE(log.threads.empty()); // lazily, on a thread's first call
  FT_Library main_library, worker_library;
  ASSERT_EQ(ftpool_library(pool, &main_library), FTPOOL_OK);
  ASSERT_EQ(ftpool_library(pool, &main_library), FTPOOL_OK);
  std::thread::id worker_id;
  std::thread([&] {
    worker_id = std::this_thread::get_id();
    EXPECT_EQ(ftpool_library(pool, &worker_library), FTPOOL_OK);
  }).join();
  // Each context has two libraries, one for plain faces (the one
  // ftpool_library returns) and one for font faces: both configured on the
  // context's first thread, one after the other.
  ASSERT_EQ(log.threads.size(), 4u);
  EXPECT_EQ(log.threads[0], std::this_thread::get_id());
  EXPECT_EQ(log.threads[1], std::this_thread::get_id());
  EXPECT_EQ(log.threads[2], worker_id);
  EXPECT_EQ(log.threads[3], worker_id);
  EXPECT_EQ(log.libraries.size(), 4u);
  EXPECT_EQ(log.libraries.count(main_library), 1u);
  EXPECT_EQ(log.libraries.count(worker_library), 1u);
  ftpool_destroy(pool);
}

TEST(ConfigTest, SharedMutexConfiguresItsLibraryInCreate) {
  ConfigureLog log;
  ftpool *pool = CreateWithLog(FTPOOL_BACKEND_SHARED_MUTEX, &log);
  ASSERT_EQ(log.threads.size(), 1u);
  EXPECT_EQ(log.threads[0], std::this_thread::get_id());
  FT_Library library;
  ASSERT_EQ(ftpool_library(pool, &library), FTPOOL_OK);
  EXPECT_EQ(log.libraries, std::set<FT_Library>{library});
  ftpool_destroy(pool);
}

TEST(ConfigTest, ConfigureFailureIsReportedAndNothingLeaks) {
  CountingMemory memory;
  ConfigureLog log;
  log.result = FT_Err_Invalid_Argument;
  ftpool_config config;
  ftpool_config_init(&config);
  config.memory = memory.get();
  config.configure = LogConfigure;
  config.configure_arg = &log;

  config.backend = FTPOOL_BACKEND_SHARED_MUTEX;
  ftpool *pool = nullptr;
  EXPECT_EQ(ftpool_create(&config, &pool), FTPOOL_ERR_CONFIGURE);
  EXPECT_EQ(ftpool_last_ft_error(), FT_Err_Invalid_Argument);
  EXPECT_EQ(pool, nullptr);

  config.backend = FTPOOL_BACKEND_PER_THREAD;
  ASSERT_EQ(ftpool_create(&config, &pool), FTPOOL_OK);
  FT_Face face;
  EXPECT_EQ(ftpool_open_file(pool, kSans, 0, &face), FTPOOL_ERR_CONFIGURE);
  EXPECT_EQ(ftpool_last_ft_error(), FT_Err_Invalid_Argument);
  EXPECT_EQ(Stats(pool).contexts, 0u);
  log.result = 0; // the next call tries again
  ASSERT_EQ(ftpool_open_file(pool, kSans, 0, &face), FTPOOL_OK);
  EXPECT_EQ(ftpool_close(pool, face), FTPOOL_OK);
  ftpool_destroy(pool);
  EXPECT_EQ(memory.outstanding_bytes(), 0);
}

// --- errors -----------------------------------------------------------------

TEST(ErrorTest, EveryStatusHasItsOwnMessage) {
  std::set<std::string> messages;
  for (int s = FTPOOL_OK; s <= FTPOOL_ERR_SIZE_CHANGED; ++s) {
    const char *m = ftpool_strerror(static_cast<ftpool_status>(s));
    ASSERT_NE(m, nullptr);
    EXPECT_GT(std::strlen(m), 5u);
    messages.insert(m);
  }
  EXPECT_EQ(messages.size(), size_t{FTPOOL_ERR_SIZE_CHANGED + 1});
  EXPECT_STREQ(ftpool_strerror(static_cast<ftpool_status>(999)),
               "unknown ftpool status");
}

TEST(ErrorTest, LastFreeTypeErrorIsPerThread) {
  ftpool *pool;
  ASSERT_EQ(ftpool_default(&pool), FTPOOL_OK);
  std::vector<unsigned char> garbage(4096, 0x5A);
  FT_Face face;
  EXPECT_EQ(ftpool_open_memory(pool, garbage.data(), garbage.size(), 0, &face),
            FTPOOL_ERR_UNKNOWN_FORMAT);
  std::thread([] { EXPECT_EQ(ftpool_last_ft_error(), 0); }).join();
  EXPECT_EQ(ftpool_last_ft_error(), FT_Err_Unknown_File_Format);
}

// --- the default pool -------------------------------------------------------

TEST(DefaultPoolTest, EveryThreadGetsTheSamePool) {
  constexpr int kThreads = 8;
  std::vector<ftpool *> seen(kThreads);
  std::atomic<bool> go{false};
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; ++i)
    threads.emplace_back([&, i] {
      while (!go.load()) {
      }
      EXPECT_EQ(ftpool_default(&seen[i]), FTPOOL_OK);
    });
  go = true;
  for (auto &t : threads)
    t.join();
  ftpool *again;
  ASSERT_EQ(ftpool_default(&again), FTPOOL_OK);
  for (ftpool *p : seen)
    EXPECT_EQ(p, again);
  EXPECT_EQ(ftpool_default(nullptr), FTPOOL_ERR_INVALID_ARGUMENT);
  FT_Face face;
  ASSERT_EQ(ftpool_open_file(again, kSans, 0, &face), FTPOOL_OK);
  EXPECT_EQ(ftpool_close(again, face), FTPOOL_OK);
}

} // namespace
} // namespace ftpool_test
