// SPDX-License-Identifier: MIT
// A file's older version is never taken for its newest. Three versions of
// one font file (DejaVu Sans, Serif and Sans Mono, padded with zeros to one
// size, which FreeType ignores) get one modification time, as cp -p, rsync,
// tar or SOURCE_DATE_EPOCH give them, and replace each other either by
// rename, where ext4 hands the third the first one's freed inode, or by a
// rewrite of the same inode. A font of the first stays alive throughout; each
// version must be read as itself, through the file cache (on and off), the
// faces fonts share and the glyph cache, on both backends. Device, inode,
// size and mtime all repeat; only the ctime, which a write or a rename sets,
// tells the versions apart.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#ifdef __linux__
#include <sys/stat.h>
#endif

#include <gtest/gtest.h>

#include "ftpool.h"
#include "test/support/counting_memory.h"
#include "test/support/fonts.h"
#include "test/support/glyph_reference.h"
#include "test/support/pool_test_util.h"
#include "test/support/scratch_dir.h"

namespace ftpool_test {
namespace {

namespace fs = std::filesystem;

constexpr FT_UInt kPixels = 24;
constexpr int kVersions = 3;

enum class Replace { kByRename, kInPlace };

using Param = std::tuple<Replace, ftpool_backend, size_t>;

class FileVersionTest : public ::testing::TestWithParam<Param> {
protected:
  void SetUp() override {
    const char *const fonts[kVersions] = {kSans, kSerif, kMono};
    size_t size = 0;
    for (int i = 0; i < kVersions; i++) {
      versions_[i] = ReadFile(fonts[i]);
      ASSERT_FALSE(versions_[i].empty()) << MissingFont(fonts[i]);
      size = std::max(size, versions_[i].size());
    }
    for (int i = 0; i < kVersions; i++) {
      versions_[i].resize(size, 0);
      const std::string copy = dir_.File("v" + std::to_string(i + 1) + ".ttf");
      ASSERT_TRUE(WriteBytes(copy, versions_[i]));
      references_[i].reset(new ReferenceFace(copy.c_str(), 0, kPixels));
      ASSERT_TRUE(references_[i]->ok());
    }
    // Whole seconds: std::filesystem sets no finer time on Windows.
    time_ = std::chrono::floor<std::chrono::seconds>(
                fs::last_write_time(fs::u8path(dir_.File("v1.ttf")))) -
            std::chrono::hours(1);
    ftpool_config config;
    ftpool_config_init(&config);
    config.backend = std::get<1>(GetParam());
    config.file_cache_bytes = std::get<2>(GetParam());
    config.memory = memory_.get();
    ASSERT_EQ(ftpool_create(&config, &pool_), FTPOOL_OK);
  }
  void TearDown() override {
    for (ftpool_font *font : fonts_)
      ftpool_font_release(font);
    ftpool_destroy(pool_);
    EXPECT_EQ(memory_.outstanding_bytes(), 0);
  }

  // Puts version i at path_ (the first one by a plain write) with the one
  // modification time every version has.
  void Write(int i) {
    if (i == 0 || std::get<0>(GetParam()) == Replace::kInPlace) {
      ASSERT_TRUE(WriteBytes(path_, versions_[i]));
      fs::last_write_time(fs::u8path(path_), time_);
    } else {
      const std::string next = path_ + ".new";
      ASSERT_TRUE(WriteBytes(next, versions_[i]));
      fs::last_write_time(fs::u8path(next), time_);
      ASSERT_TRUE(RenameOver(next, path_));
    }
    ASSERT_EQ(fs::last_write_time(fs::u8path(path_)), time_);
    ASSERT_EQ(fs::file_size(fs::u8path(path_)), versions_[i].size());
#ifdef __linux__
    ASSERT_EQ(stat(path_.c_str(), &stats_[i]), 0);
#endif
  }

  ftpool_font *Font() {
    ftpool_font_desc desc = Desc(path_.c_str(), kPixels);
    ftpool_font *font = nullptr;
    EXPECT_EQ(ftpool_font_create(pool_, &desc, &font), FTPOOL_OK);
    if (font)
      fonts_.push_back(font);
    return font;
  }

  // The font's face and glyphs are version i's. The glyph indices are the
  // same for every version, so that a lookup that finds another version's
  // entry finds one that exists.
  void ExpectVersion(ftpool_font *font, int i) {
    ASSERT_NE(font, nullptr);
    const ReferenceFace &reference = *references_[i];
    FT_Face face = nullptr;
    ASSERT_EQ(ftpool_font_acquire(font, &face), FTPOOL_OK);
    EXPECT_STREQ(face->family_name, reference.face()->family_name)
        << "version " << i + 1;
    EXPECT_EQ(face->num_glyphs, reference.face()->num_glyphs);
    for (const char c : {'H', 'g', 'W'}) {
      const FT_UInt index = references_[0]->Index(static_cast<FT_ULong>(c));
      ReferenceGlyph want;
      ASSERT_TRUE(reference.Render(index, FT_LOAD_DEFAULT, &want));
      const ftpool_glyph *glyph = nullptr;
      EXPECT_EQ(ftpool_font_glyph(font, face, index, FT_LOAD_DEFAULT, &glyph),
                FTPOOL_OK);
      if (glyph) {
        EXPECT_EQ(GlyphDifference(glyph, want), "")
            << "version " << i + 1 << ", glyph " << index;
      }
    }
    EXPECT_EQ(ftpool_font_give_back(font, face), FTPOOL_OK);
  }

  void ExpectOpenFileIs(int i) {
    FT_Face face = nullptr;
    ASSERT_EQ(ftpool_open_file(pool_, path_.c_str(), 0, &face), FTPOOL_OK);
    EXPECT_STREQ(face->family_name, references_[i]->face()->family_name)
        << "ftpool_open_file, version " << i + 1;
    EXPECT_EQ(ftpool_close(pool_, face), FTPOOL_OK);
  }

  // A write or a rename in the same tick of the kernel's coarse clock
  // would give two versions one ctime.
  static void NextTick() {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }

  CountingMemory memory_;
  ftpool *pool_ = nullptr;
  std::vector<ftpool_font *> fonts_;
  ScratchDir dir_;
  const std::string path_ = dir_.File("font.ttf");
  std::vector<unsigned char> versions_[kVersions];
  std::unique_ptr<ReferenceFace> references_[kVersions];
  fs::file_time_type time_;
#ifdef __linux__
  struct stat stats_[kVersions] = {};
#endif
};

TEST_P(FileVersionTest, EachVersionIsReadAsItself) {
  ASSERT_STRNE(references_[0]->face()->family_name,
               references_[2]->face()->family_name);
  Write(0);
  ftpool_font *first = Font();
  ExpectVersion(first, 0);
  ExpectOpenFileIs(0);

  NextTick();
  Write(1);
  ExpectVersion(Font(), 1);
  ExpectOpenFileIs(1);

  NextTick();
  Write(2);
#ifdef __linux__
  // Only the ctime may differ between the first version and the third; if
  // the inode differs too, the versions were apart anyway.
  const bool same_inode = stats_[2].st_ino == stats_[0].st_ino;
  if (std::get<0>(GetParam()) == Replace::kInPlace) {
    EXPECT_TRUE(same_inode);
  }
  RecordProperty("third_version_has_first_inode", same_inode ? "yes" : "no");
  std::printf("third version %s the first one's inode %llu\n",
              same_inode ? "has" : "does not have",
              static_cast<unsigned long long>(stats_[0].st_ino));
  EXPECT_FALSE(stats_[2].st_ctim.tv_sec == stats_[0].st_ctim.tv_sec &&
               stats_[2].st_ctim.tv_nsec == stats_[0].st_ctim.tv_nsec)
      << "the first and third versions have one ctime: the clock did not move";
#endif
  ftpool_font *third = Font();
  ExpectVersion(third, 2);
  ExpectOpenFileIs(2);
  // The first version's font still has its own bytes and glyphs.
  ExpectVersion(first, 0);
}

std::string Name(const ::testing::TestParamInfo<Param> &info) {
  return std::string(std::get<0>(info.param) == Replace::kByRename
                         ? "ByRename"
                         : "InPlace") +
         (std::get<1>(info.param) == FTPOOL_BACKEND_PER_THREAD
              ? "PerThread"
              : "SharedMutex") +
         (std::get<2>(info.param) ? "Cached" : "Uncached");
}

INSTANTIATE_TEST_SUITE_P(
    Versions, FileVersionTest,
    ::testing::Combine(::testing::Values(Replace::kByRename, Replace::kInPlace),
                       ::testing::Values(FTPOOL_BACKEND_PER_THREAD,
                                         FTPOOL_BACKEND_SHARED_MUTEX),
                       ::testing::Values(FTPOOL_DEFAULT_FILE_CACHE_BYTES,
                                         size_t{0})),
    Name);

} // namespace
} // namespace ftpool_test
