// SPDX-License-Identifier: MIT
// Blobs and the file cache, on both backends: hits, misses, replaced files,
// collections, the byte budget, explicit blobs, and bad files.
#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include <sys/stat.h>
#ifndef _WIN32
#include <unistd.h>
#endif

#include <gtest/gtest.h>

#include "ftpool.h"
#include "test/support/counting_memory.h"
#include "test/support/fonts.h"
#include "test/support/pool_test_util.h"
#include "test/support/scratch_dir.h"

namespace ftpool_test {
namespace {

const char kText[] = "Hg";

uint64_t RawDigest(const std::vector<unsigned char> &bytes, FT_Long index) {
  FT_Library library;
  FT_Face face;
  EXPECT_EQ(FT_Init_FreeType(&library), 0);
  EXPECT_EQ(FT_New_Memory_Face(library, bytes.data(),
                               static_cast<FT_Long>(bytes.size()), index,
                               &face),
            0);
  uint64_t digest = RenderDigest(face, kText);
  FT_Done_FreeType(library);
  return digest;
}

class BlobTest : public ::testing::TestWithParam<ftpool_backend> {
protected:
  void SetUp() override {
    sans_ = ReadFile(kSans);
    serif_ = ReadFile(kSerif);
    ASSERT_FALSE(sans_.empty());
    ASSERT_FALSE(serif_.empty());
    Create(FTPOOL_DEFAULT_FILE_CACHE_BYTES);
  }
  void TearDown() override { Destroy(); }

  void Create(size_t cache_bytes) {
    ftpool_config config;
    ftpool_config_init(&config);
    config.backend = GetParam();
    config.memory = memory_.get();
    config.file_cache_bytes = cache_bytes;
    ASSERT_EQ(ftpool_create(&config, &pool_), FTPOOL_OK);
  }
  void Destroy() {
    ftpool_destroy(pool_);
    pool_ = nullptr;
    EXPECT_EQ(memory_.outstanding_bytes(), 0);
  }
  FT_Face Open(const std::string &path, FT_Long index = 0) {
    FT_Face face = nullptr;
    EXPECT_EQ(ftpool_open_file(pool_, path.c_str(), index, &face), FTPOOL_OK)
        << path;
    return face;
  }

  CountingMemory memory_;
  ftpool *pool_ = nullptr;
  std::vector<unsigned char> sans_, serif_;
  ScratchDir dir_;
};

TEST_P(BlobTest, SecondOpenOfAFileIsAHit) {
  FT_Face a = Open(kSans);
  FT_Face b = Open(kSans);
  ftpool_stats s = Stats(pool_);
  EXPECT_EQ(s.blob_misses, 1u);
  EXPECT_EQ(s.blob_hits, 1u);
  EXPECT_EQ(s.blob_loads, 1u);
  EXPECT_EQ(s.blob_bytes_cached, sans_.size());
  EXPECT_EQ(RenderDigest(a, kText), RawDigest(sans_, 0));
  EXPECT_EQ(RenderDigest(b, kText), RawDigest(sans_, 0));
  EXPECT_EQ(ftpool_close(pool_, a), FTPOOL_OK);
  EXPECT_EQ(ftpool_close(pool_, b), FTPOOL_OK);
  EXPECT_EQ(Stats(pool_).blob_bytes_live, sans_.size()); // the cache keeps it
}

TEST_P(BlobTest, ReplacedFileIsReadAgainAndOldFacesKeepTheirBytes) {
  const std::string path = dir_.File("font.ttf");
  ASSERT_TRUE(ReplaceFile(path, sans_));
  FT_Face before = Open(path);
  ASSERT_TRUE(ReplaceFile(path, serif_));
  FT_Face after = Open(path);
  ASSERT_NE(before, nullptr);
  ASSERT_NE(after, nullptr);
  EXPECT_STREQ(before->family_name, "DejaVu Sans");
  EXPECT_STREQ(after->family_name, "DejaVu Serif");
  EXPECT_EQ(RenderDigest(before, kText), RawDigest(sans_, 0));
  EXPECT_EQ(RenderDigest(after, kText), RawDigest(serif_, 0));
  ftpool_stats s = Stats(pool_);
  EXPECT_EQ(s.blob_loads, 2u);
  EXPECT_EQ(s.blob_hits, 0u);
  EXPECT_EQ(s.blob_bytes_cached, serif_.size());
  EXPECT_EQ(s.blob_bytes_live, sans_.size() + serif_.size());
  EXPECT_EQ(ftpool_close(pool_, before), FTPOOL_OK);
  EXPECT_EQ(Stats(pool_).blob_bytes_live, serif_.size());
  EXPECT_EQ(ftpool_close(pool_, after), FTPOOL_OK);
}

TEST_P(BlobTest, FileRewrittenInPlaceWithAnotherSizeIsReadAgain) {
  const std::string path = dir_.File("font.ttf");
  ASSERT_TRUE(ReplaceFile(path, sans_));
  EXPECT_EQ(ftpool_close(pool_, Open(path)), FTPOOL_OK);
  {
    FILE *f = std::fopen(path.c_str(), "wb"); // same inode
    ASSERT_NE(f, nullptr);
    std::fwrite(serif_.data(), 1, serif_.size(), f);
    std::fclose(f);
  }
  FT_Face face = Open(path);
  EXPECT_STREQ(face->family_name, "DejaVu Serif");
  EXPECT_EQ(Stats(pool_).blob_loads, 2u);
  EXPECT_EQ(ftpool_close(pool_, face), FTPOOL_OK);
}

TEST_P(BlobTest, CollectionIsOneBlobWithSeveralFaces) {
  const std::string path = dir_.File("pair.ttc");
  ASSERT_TRUE(ReplaceFile(path, MakeCollection({sans_, serif_})));
  FT_Face first = Open(path, 0);
  FT_Face second = Open(path, 1);
  ASSERT_NE(first, nullptr);
  ASSERT_NE(second, nullptr);
  EXPECT_EQ(first->num_faces, 2);
  EXPECT_STREQ(first->family_name, "DejaVu Sans");
  EXPECT_STREQ(second->family_name, "DejaVu Serif");
  EXPECT_EQ(RenderDigest(second, kText), RawDigest(serif_, 0));
  FT_Face none;
  EXPECT_EQ(ftpool_open_file(pool_, path.c_str(), 2, &none),
            FTPOOL_ERR_FACE_INDEX);
  ftpool_stats s = Stats(pool_);
  EXPECT_EQ(s.blob_loads, 1u);
  EXPECT_EQ(s.blob_hits, 2u);
  EXPECT_EQ(ftpool_close(pool_, first), FTPOOL_OK);
  EXPECT_EQ(ftpool_close(pool_, second), FTPOOL_OK);
}

TEST_P(BlobTest, BudgetEvictsIdleBlobsFirst) {
  Destroy();
  Create(sans_.size() + serif_.size() - 1); // room for one of the two
  FT_Face sans = Open(kSans);
  EXPECT_EQ(ftpool_close(pool_, sans), FTPOOL_OK);
  FT_Face serif = Open(kSerif); // evicts the idle Sans
  ftpool_stats s = Stats(pool_);
  EXPECT_EQ(s.blob_evictions, 1u);
  EXPECT_EQ(s.blob_bytes_cached, serif_.size());
  EXPECT_EQ(s.blob_bytes_live, serif_.size());
  // Sans again: Serif is in use, but goes, since the cache must fit; its
  // face keeps its bytes alive.
  sans = Open(kSans);
  s = Stats(pool_);
  EXPECT_EQ(s.blob_evictions, 2u);
  EXPECT_EQ(s.blob_bytes_cached, sans_.size());
  EXPECT_EQ(s.blob_bytes_live, sans_.size() + serif_.size());
  EXPECT_EQ(RenderDigest(serif, kText), RawDigest(serif_, 0));
  EXPECT_EQ(ftpool_close(pool_, serif), FTPOOL_OK);
  EXPECT_EQ(Stats(pool_).blob_bytes_live, sans_.size());
  EXPECT_EQ(ftpool_close(pool_, sans), FTPOOL_OK);
}

TEST_P(BlobTest, FileLargerThanTheBudgetIsNotCached) {
  Destroy();
  Create(1000);
  EXPECT_EQ(ftpool_close(pool_, Open(kSans)), FTPOOL_OK);
  EXPECT_EQ(ftpool_close(pool_, Open(kSans)), FTPOOL_OK);
  ftpool_stats s = Stats(pool_);
  EXPECT_EQ(s.blob_loads, 2u);
  EXPECT_EQ(s.blob_hits, 0u);
  EXPECT_EQ(s.blob_bytes_cached, 0u);
  EXPECT_EQ(s.blob_bytes_live, 0u);
}

TEST_P(BlobTest, ZeroBudgetLeavesFilesToFreeType) {
  Destroy();
  Create(0);
  FT_Face face = Open(kSans);
  EXPECT_EQ(RenderDigest(face, kText), RawDigest(sans_, 0));
  EXPECT_EQ(ftpool_close(pool_, face), FTPOOL_OK);
  ftpool_stats s = Stats(pool_);
  EXPECT_EQ(s.blob_loads + s.blob_misses + s.blob_hits, 0u);
}

TEST_P(BlobTest, BadFiles) {
  FT_Face face;
  ftpool_blob *blob;
  const std::string empty = dir_.File("empty.ttf");
  ASSERT_TRUE(ReplaceFile(empty, {}));
  EXPECT_EQ(ftpool_open_file(pool_, "/nonexistent.ttf", 0, &face),
            FTPOOL_ERR_CANNOT_OPEN);
  EXPECT_EQ(ftpool_open_file(pool_, dir_.path().c_str(), 0, &face),
            FTPOOL_ERR_CANNOT_OPEN);
  EXPECT_EQ(ftpool_open_file(pool_, empty.c_str(), 0, &face),
            FTPOOL_ERR_UNKNOWN_FORMAT);
  EXPECT_EQ(ftpool_blob_from_file(pool_, "/nonexistent.ttf", &blob),
            FTPOOL_ERR_CANNOT_OPEN);
  EXPECT_EQ(ftpool_blob_from_file(pool_, dir_.path().c_str(), &blob),
            FTPOOL_ERR_CANNOT_OPEN);
  EXPECT_EQ(ftpool_blob_from_file(pool_, empty.c_str(), &blob),
            FTPOOL_ERR_UNKNOWN_FORMAT);
  const std::string locked = dir_.File("locked.ttf");
  ASSERT_TRUE(ReplaceFile(locked, sans_));
  ASSERT_EQ(chmod(locked.c_str(), 0), 0);
  // Permission bits do not stop root, who runs CI; anyone else is refused.
  // On Windows, chmod only sets the read-only attribute.
  ftpool_status s = ftpool_open_file(pool_, locked.c_str(), 0, &face);
#ifdef _WIN32
  const bool may_read = true;
#else
  const bool may_read = geteuid() == 0;
#endif
  if (may_read) {
    ASSERT_EQ(s, FTPOOL_OK);
    EXPECT_EQ(ftpool_close(pool_, face), FTPOOL_OK);
  } else {
    EXPECT_EQ(s, FTPOOL_ERR_CANNOT_OPEN);
  }
  const std::string truncated = dir_.File("truncated.ttf");
  ASSERT_TRUE(ReplaceFile(truncated, std::vector<unsigned char>(
                                         sans_.begin(), sans_.begin() + 4000)));
  EXPECT_EQ(ftpool_open_file(pool_, truncated.c_str(), 0, &face),
            FTPOOL_ERR_BROKEN_FONT);
  EXPECT_EQ(Stats(pool_).faces_open, 0u);
}

// --- explicit blobs ---------------------------------------------------------

struct Released {
  std::atomic<int> calls{0};
};

void CountRelease(void *arg) { static_cast<Released *>(arg)->calls++; }

TEST_P(BlobTest, BlobFromMemoryIsReleasedAfterItsLastFace) {
  Released released;
  ftpool_blob *blob = nullptr;
  ASSERT_EQ(ftpool_blob_from_memory(pool_, sans_.data(), sans_.size(),
                                    CountRelease, &released, &blob),
            FTPOOL_OK);
  size_t size = 0;
  EXPECT_EQ(ftpool_blob_data(blob, &size), sans_.data());
  EXPECT_EQ(size, sans_.size());
  std::vector<FT_Face> faces(4);
  std::vector<std::thread> threads;
  for (FT_Face &f : faces)
    threads.emplace_back([&] {
      EXPECT_EQ(ftpool_open_blob(pool_, blob, 0, &f), FTPOOL_OK);
      EXPECT_EQ(RenderDigest(f, kText), RawDigest(sans_, 0));
    });
  for (std::thread &t : threads)
    t.join();
  ftpool_blob_release(blob); // the faces hold it now
  EXPECT_EQ(released.calls, 0);
  for (FT_Face f : faces)
    EXPECT_EQ(ftpool_close(pool_, f), FTPOOL_OK);
  EXPECT_EQ(released.calls, 1);
}

TEST_P(BlobTest, CopiedBlobOwnsItsBytes) {
  std::vector<unsigned char> scratch = serif_;
  ftpool_blob *blob;
  ASSERT_EQ(ftpool_blob_copy(pool_, scratch.data(), scratch.size(), &blob),
            FTPOOL_OK);
  std::fill(scratch.begin(), scratch.end(), 0); // ours to reuse at once
  EXPECT_EQ(Stats(pool_).blob_bytes_live, serif_.size());
  FT_Face face;
  ASSERT_EQ(ftpool_open_blob(pool_, blob, 0, &face), FTPOOL_OK);
  EXPECT_EQ(ftpool_blob_retain(blob), FTPOOL_OK);
  ftpool_blob_release(blob);
  ftpool_blob_release(blob);
  EXPECT_EQ(RenderDigest(face, kText), RawDigest(serif_, 0));
  EXPECT_EQ(ftpool_close(pool_, face), FTPOOL_OK);
  EXPECT_EQ(Stats(pool_).blob_bytes_live, 0u);
}

TEST_P(BlobTest, BlobFromFileSharesTheCache) {
  ftpool_blob *blob;
  ASSERT_EQ(ftpool_blob_from_file(pool_, kSans, &blob), FTPOOL_OK);
  FT_Face face = Open(kSans);
  EXPECT_EQ(Stats(pool_).blob_hits, 1u);
  size_t size;
  EXPECT_NE(ftpool_blob_data(blob, &size), nullptr);
  EXPECT_EQ(size, sans_.size());
  ftpool_blob_release(blob);
  EXPECT_EQ(ftpool_close(pool_, face), FTPOOL_OK);
}

TEST_P(BlobTest, BlobMisuseIsReported) {
  ftpool_blob *blob;
  FT_Face face;
  EXPECT_EQ(ftpool_blob_copy(pool_, nullptr, 10, &blob),
            FTPOOL_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(ftpool_blob_copy(pool_, sans_.data(), 0, &blob),
            FTPOOL_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(ftpool_blob_from_memory(nullptr, sans_.data(), 1, nullptr, nullptr,
                                    &blob),
            FTPOOL_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(ftpool_blob_from_file(pool_, nullptr, &blob),
            FTPOOL_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(ftpool_open_blob(pool_, nullptr, 0, &face),
            FTPOOL_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(ftpool_blob_retain(nullptr), FTPOOL_ERR_INVALID_ARGUMENT);
  ftpool_blob_release(nullptr); // documented no-op
  size_t size = 1;
  EXPECT_EQ(ftpool_blob_data(nullptr, &size), nullptr);
  EXPECT_EQ(size, 0u);

  ftpool *other;
  ASSERT_EQ(ftpool_create(nullptr, &other), FTPOOL_OK);
  ASSERT_EQ(ftpool_blob_copy(other, sans_.data(), sans_.size(), &blob),
            FTPOOL_OK);
  EXPECT_EQ(ftpool_open_blob(pool_, blob, 0, &face), FTPOOL_ERR_FOREIGN_BLOB);
  EXPECT_EQ(ftpool_open_blob(other, blob, -1, &face),
            FTPOOL_ERR_INVALID_ARGUMENT);
  ftpool_blob_release(blob);
  ftpool_destroy(other);

  std::vector<unsigned char> garbage(4096, 0x5A);
  ASSERT_EQ(ftpool_blob_copy(pool_, garbage.data(), garbage.size(), &blob),
            FTPOOL_OK);
  EXPECT_EQ(ftpool_open_blob(pool_, blob, 0, &face), FTPOOL_ERR_UNKNOWN_FORMAT);
  ftpool_blob_release(blob);
  EXPECT_EQ(Stats(pool_).blob_bytes_live, 0u);
}

TEST_P(BlobTest, DestroyFreesBlobsStillHeld) {
  Released released;
  ftpool_blob *mine, *copied;
  ASSERT_EQ(ftpool_blob_from_memory(pool_, sans_.data(), sans_.size(),
                                    CountRelease, &released, &mine),
            FTPOOL_OK);
  ASSERT_EQ(ftpool_blob_copy(pool_, serif_.data(), serif_.size(), &copied),
            FTPOOL_OK);
  FT_Face face;
  ASSERT_EQ(ftpool_open_blob(pool_, copied, 0, &face), FTPOOL_OK);
  Destroy(); // checks that the counting allocator is back to zero
  EXPECT_EQ(released.calls, 1);
}

// A file cache reader may hold a header's address after the blob went and
// take a reference if the header was reused. Headers of blobs over the
// caller's bytes are never those of cached files: such a reader's drop then
// never runs a caller's release callback on the reader's thread (inside an
// open). Pool-owned blobs do reuse them.
TEST_P(BlobTest, CallersBlobsNeverReuseAFileBlobsHeader) {
  const std::string path = dir_.File("font.ttf");
  ASSERT_TRUE(ReplaceFile(path, sans_));
  ftpool_blob *cached;
  ASSERT_EQ(ftpool_blob_from_file(pool_, path.c_str(), &cached), FTPOOL_OK);
  ftpool_blob_release(cached);
  // A new version replaces it in the cache: its header is free again.
  ASSERT_TRUE(ReplaceFile(path, serif_));
  ftpool_blob *fresh;
  ASSERT_EQ(ftpool_blob_from_file(pool_, path.c_str(), &fresh), FTPOOL_OK);
  ftpool_blob *lent;
  ASSERT_EQ(ftpool_blob_from_memory(pool_, sans_.data(), sans_.size(), nullptr,
                                    nullptr, &lent),
            FTPOOL_OK);
  EXPECT_NE(lent, cached);
  ftpool_blob *copied;
  ASSERT_EQ(ftpool_blob_copy(pool_, sans_.data(), sans_.size(), &copied),
            FTPOOL_OK);
  EXPECT_EQ(copied, cached);
  ftpool_blob_release(copied);
  ftpool_blob_release(lent);
  ftpool_blob_release(fresh);
}

// Running out of memory for a new chunk of headers uses up no header: the
// count stays within live blobs plus one.
TEST_P(BlobTest, FailedHeaderChunksUseUpNothing) {
  std::vector<ftpool_blob *> live(16); // the first chunk's worth
  for (ftpool_blob *&b : live)
    ASSERT_EQ(ftpool_blob_copy(pool_, sans_.data(), 64, &b), FTPOOL_OK);
  for (int i = 0; i < 1000; i++) {
    memory_.FailAllocation(2); // the bytes, then the next chunk
    ftpool_blob *b;
    ASSERT_EQ(ftpool_blob_copy(pool_, sans_.data(), 64, &b),
              FTPOOL_ERR_OUT_OF_MEMORY);
  }
  memory_.FailAllocation(0);
  EXPECT_EQ(Stats(pool_).blob_headers, 16u);
  ftpool_blob *b;
  ASSERT_EQ(ftpool_blob_copy(pool_, sans_.data(), 64, &b), FTPOOL_OK);
  EXPECT_EQ(Stats(pool_).blob_headers, 17u);
  ftpool_blob_release(b);
  for (ftpool_blob *l : live)
    ftpool_blob_release(l);
}

INSTANTIATE_TEST_SUITE_P(Backends, BlobTest,
                         ::testing::Values(FTPOOL_BACKEND_PER_THREAD,
                                           FTPOOL_BACKEND_SHARED_MUTEX),
                         BackendName);

} // namespace
} // namespace ftpool_test
