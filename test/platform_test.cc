// SPDX-License-Identifier: MIT
// What lib/platform_*.c does, on every platform: UTF-8 paths (non-ASCII on
// Windows goes through the wide API, not the ANSI code page), the file's
// identity in the cache (a replacement or a rewrite with the same size and
// time is still a new file; one dated after 2038 opens), what is no font
// file; and on Windows, contexts released at the exit of threads made with
// CreateThread rather than pthreads. And that lib/atomics.h's atomic types
// are lock-free where it runs.
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#ifdef _WIN32
#include <windows.h>
#undef ReplaceFile // a Win32 macro, not ours
#else
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

#include "ftpool.h"
#include "test/support/counting_memory.h"
#include "test/support/fonts.h"
#include "test/support/pool_test_util.h"
#include "test/support/scratch_dir.h"

namespace ftpool_test {
namespace {

namespace fs = std::filesystem;

// "fönt-字体.ttf" in UTF-8: outside any single ANSI code page.
const char kNonAsciiName[] = "f\xc3\xb6nt-\xe5\xad\x97\xe4\xbd\x93.ttf";

class PlatformTest : public ::testing::TestWithParam<size_t> {
protected:
  void SetUp() override {
    sans_ = ReadFile(kSans);
    ASSERT_FALSE(sans_.empty());
    ftpool_config config;
    ftpool_config_init(&config);
    config.memory = memory_.get();
    config.file_cache_bytes = GetParam();
    ASSERT_EQ(ftpool_create(&config, &pool_), FTPOOL_OK);
  }
  void TearDown() override {
    ftpool_destroy(pool_);
    EXPECT_EQ(memory_.outstanding_bytes(), 0);
  }

  CountingMemory memory_;
  ftpool *pool_ = nullptr;
  std::vector<unsigned char> sans_;
  ScratchDir dir_;
};

TEST_P(PlatformTest, NonAsciiUtf8PathOpens) {
  const std::string path = dir_.File(kNonAsciiName);
  ASSERT_TRUE(ReplaceFile(path, sans_));
  FT_Face face;
  ASSERT_EQ(ftpool_open_file(pool_, path.c_str(), 0, &face), FTPOOL_OK);
  EXPECT_STREQ(face->family_name, "DejaVu Sans");
  EXPECT_EQ(ftpool_close(pool_, face), FTPOOL_OK);
  ftpool_blob *blob;
  ASSERT_EQ(ftpool_blob_from_file(pool_, path.c_str(), &blob), FTPOOL_OK);
  size_t size;
  EXPECT_NE(ftpool_blob_data(blob, &size), nullptr);
  EXPECT_EQ(size, sans_.size());
  ftpool_blob_release(blob);
}

TEST_P(PlatformTest, WhatIsNoFontFileCannotBeOpened) {
  FT_Face face;
  ftpool_blob *blob;
  // Not UTF-8: no file on Windows, a missing one elsewhere.
  const std::string bad = dir_.File("\xff\xfe.ttf");
  for (const std::string &path : {dir_.path(), bad, dir_.File("missing.ttf")}) {
    EXPECT_EQ(ftpool_open_file(pool_, path.c_str(), 0, &face),
              FTPOOL_ERR_CANNOT_OPEN)
        << path;
    EXPECT_EQ(ftpool_blob_from_file(pool_, path.c_str(), &blob),
              FTPOOL_ERR_CANNOT_OPEN)
        << path;
  }
}

INSTANTIATE_TEST_SUITE_P(CacheOnAndOff, PlatformTest,
                         ::testing::Values(FTPOOL_DEFAULT_FILE_CACHE_BYTES,
                                           size_t{0}),
                         [](const ::testing::TestParamInfo<size_t> &info) {
                           return info.param ? "Cached" : "Uncached";
                         });

class FileIdentityTest : public PlatformTest {};

// Sets the file's modification time to a whole second an hour ago and
// returns it: std::filesystem sets times in whole seconds on Windows.
fs::file_time_type WholeSecondAgo(const std::string &path) {
  const fs::file_time_type time = std::chrono::floor<std::chrono::seconds>(
                                      fs::last_write_time(fs::u8path(path))) -
                                  std::chrono::hours(1);
  fs::last_write_time(fs::u8path(path), time);
  return time;
}

// Replaced by rename with the same size and modification time: the file
// index (inode) tells the new file from the old.
TEST_P(FileIdentityTest, ReplacementWithSameSizeAndTimeIsANewFile) {
  const std::string path = dir_.File("font.ttf");
  ASSERT_TRUE(ReplaceFile(path, sans_));
  const fs::file_time_type written = WholeSecondAgo(path);
  FT_Face face;
  ASSERT_EQ(ftpool_open_file(pool_, path.c_str(), 0, &face), FTPOOL_OK);
  EXPECT_EQ(ftpool_close(pool_, face), FTPOOL_OK);

  const std::string twin = dir_.File("twin.ttf");
  ASSERT_TRUE(ReplaceFile(twin, sans_));
  fs::last_write_time(fs::u8path(twin), written);
  ASSERT_TRUE(RenameOver(twin, path));
  ASSERT_EQ(fs::last_write_time(fs::u8path(path)), written);
  ASSERT_EQ(ftpool_open_file(pool_, path.c_str(), 0, &face), FTPOOL_OK);
  EXPECT_EQ(ftpool_close(pool_, face), FTPOOL_OK);
  EXPECT_EQ(Stats(pool_).blob_loads, 2u);
}

// A file rewritten in place with the same size and its time set back: the
// change time, which the write set and nobody sets back, tells it from what
// was cached, one tick of the file system's clock later.
TEST_P(FileIdentityTest, RewriteInPlaceWithSameSizeAndTimeIsSeen) {
  const std::string path = dir_.File("font.ttf");
  ASSERT_TRUE(ReplaceFile(path, sans_));
  const fs::file_time_type written = WholeSecondAgo(path);
  FT_Face face;
  ASSERT_EQ(ftpool_open_file(pool_, path.c_str(), 0, &face), FTPOOL_OK);
  EXPECT_EQ(ftpool_close(pool_, face), FTPOOL_OK);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  {
    FILE *f = std::fopen(path.c_str(), "r+b"); // ASCII path: same file
    ASSERT_NE(f, nullptr);
    std::fwrite(sans_.data(), 1, 16, f);
    std::fclose(f);
  }
  fs::last_write_time(fs::u8path(path), written);
  ASSERT_EQ(ftpool_open_file(pool_, path.c_str(), 0, &face), FTPOOL_OK);
  EXPECT_EQ(ftpool_close(pool_, face), FTPOOL_OK);
  EXPECT_EQ(Stats(pool_).blob_loads, 2u);
}

#ifndef _WIN32
// Sets the file's access and modification times, in seconds since 1970:
// past 2038 too where time_t is 32 bits (Debian bookworm's 32-bit ARM),
// through the kernel's 64-bit call.
bool SetFileTime(const std::string &path, int64_t seconds) {
#ifdef SYS_utimensat_time64
  const struct { int64_t sec, nsec; } times[2] = {{seconds, 0}, {seconds, 0}};
  return syscall(SYS_utimensat_time64, AT_FDCWD, path.c_str(), times, 0) == 0;
#else
  const timespec times[2] = {{static_cast<time_t>(seconds), 0},
                             {static_cast<time_t>(seconds), 0}};
  return utimensat(AT_FDCWD, path.c_str(), times, 0) == 0;
#endif
}

// A font file dated after January 2038, where a 32-bit time_t ends, opens:
// its identity's times are 64-bit, and lib/platform_posix.c asks stat()
// for 64-bit ones (without, stat() fails with EOVERFLOW on 32-bit ARM; as
// it does for an inode number over 32 bits, on XFS or an overlay).
TEST_P(FileIdentityTest, FileDatedAfter2038Opens) {
  const std::string path = dir_.File("font.ttf");
  ASSERT_TRUE(ReplaceFile(path, sans_));
  ASSERT_TRUE(SetFileTime(path, int64_t{2208988800})) // 2040-01-01
      << std::strerror(errno);
  FT_Face face;
  ASSERT_EQ(ftpool_open_file(pool_, path.c_str(), 0, &face), FTPOOL_OK);
  EXPECT_EQ(ftpool_close(pool_, face), FTPOOL_OK);
}
#endif

INSTANTIATE_TEST_SUITE_P(Cached, FileIdentityTest,
                         ::testing::Values(FTPOOL_DEFAULT_FILE_CACHE_BYTES));

#ifdef _WIN32
struct ChurnThread {
  ftpool *pool;
  const std::vector<unsigned char> *bytes;
  FT_Face *slot; // the face the thread two before left open
  bool failed = false;
};

DWORD WINAPI OpenAndCloseTheOneBefore(void *arg) {
  auto *t = static_cast<ChurnThread *>(arg);
  FT_Face face;
  if (ftpool_open_memory(t->pool, t->bytes->data(), t->bytes->size(), 0,
                         &face) != FTPOOL_OK) {
    t->failed = true;
    return 1;
  }
  FT_Face left = *t->slot;
  *t->slot = face;
  if (left && ftpool_close(t->pool, left) != FTPOOL_OK)
    t->failed = true;
  return 0;
}

// Threads the program makes with CreateThread, not pthreads, release their
// context when they end (winpthreads runs key destructors for every thread),
// so 1,000 of them, two alive at a time, recycle a handful of contexts, as
// ThreadChurnRecyclesContexts shows for pthreads.
class ThreadExitTest : public PlatformTest {};

TEST_P(ThreadExitTest, CreateThreadThreadsReleaseTheirContexts) {
  constexpr int kThreads = 1000;
  FT_Face slots[2] = {};
  std::vector<ChurnThread> threads(kThreads);
  HANDLE previous = nullptr;
  for (int i = 0; i < kThreads; ++i) {
    threads[i] = {pool_, &sans_, &slots[i % 2]};
    HANDLE next = CreateThread(nullptr, 0, OpenAndCloseTheOneBefore,
                               &threads[i], 0, nullptr);
    ASSERT_NE(next, nullptr);
    if (previous) {
      WaitForSingleObject(previous, INFINITE);
      CloseHandle(previous);
    }
    previous = next;
  }
  WaitForSingleObject(previous, INFINITE);
  CloseHandle(previous);
  for (const ChurnThread &t : threads)
    ASSERT_FALSE(t.failed);
  for (FT_Face f : slots)
    ASSERT_EQ(ftpool_close(pool_, f), FTPOOL_OK);
  ftpool_stats s = Stats(pool_);
  EXPECT_LE(s.contexts, 2u + 2u);
  EXPECT_EQ(s.contexts_owned, 0u);
  EXPECT_GE(s.contexts_recycled, size_t{kThreads} - s.contexts);
  EXPECT_EQ(s.faces_closed, size_t{kThreads});
}

INSTANTIATE_TEST_SUITE_P(Cached, ThreadExitTest,
                         ::testing::Values(FTPOOL_DEFAULT_FILE_CACHE_BYTES));
#endif

// lib/atomics.h asserts at compile time that its five types are lock-free
// (a fork() child or a signal handler must never wait on libatomic's hidden
// lock); this asks the running machine about the same four sizes, through
// std::atomic, which GCC and Clang implement as C's _Atomic. On 32-bit ARM
// the 64-bit one is ldrexd/strexd (scripts/cross_check.sh runs it there).
TEST(AtomicsTest, EveryAtomicTypeIsLockFree) {
  std::atomic<uintptr_t> word{0};   // atomic_word
  std::atomic<void *> ptr{nullptr}; // atomic_ptr
  std::atomic<size_t> count{0};     // atomic_refcount, atomic_counter
  std::atomic<uint64_t> u64{0};     // atomic_u64
  EXPECT_TRUE(word.is_lock_free());
  EXPECT_TRUE(ptr.is_lock_free());
  EXPECT_TRUE(count.is_lock_free());
  EXPECT_TRUE(u64.is_lock_free());
  EXPECT_EQ(sizeof u64, 8u);
}

} // namespace
} // namespace ftpool_test
