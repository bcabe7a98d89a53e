// SPDX-License-Identifier: MIT
// Shared fonts: every path of ftpool_font_* on one or a few threads, every
// bad input, with a counting allocator that must be back at zero after each
// pool is destroyed. Concurrency is font_stress_test's.
#include <atomic>
#include <cstdio>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <pthread.h>

#include "ftpool.h"
#include "test/support/counting_memory.h"
#include "test/support/fonts.h"
#include "test/support/pool_test_util.h"

namespace ftpool_test {
namespace {

const char kText[] = "Hxg";

class FontTest : public ::testing::TestWithParam<ftpool_backend> {
protected:
  void SetUp() override { pool_ = NewPool(); }
  void TearDown() override {
    ftpool_destroy(pool_);
    EXPECT_EQ(memory_.outstanding_bytes(), 0);
  }
  ftpool *NewPool(size_t idle_instances = FTPOOL_DEFAULT_FONT_IDLE_INSTANCES,
                  size_t idle_bytes = FTPOOL_DEFAULT_FONT_IDLE_BYTES) {
    ftpool_config config;
    ftpool_config_init(&config);
    config.backend = GetParam();
    config.memory = memory_.get();
    config.font_idle_instances = idle_instances;
    config.font_idle_bytes = idle_bytes;
    ftpool *pool = nullptr;
    EXPECT_EQ(ftpool_create(&config, &pool), FTPOOL_OK);
    return pool;
  }
  // Replaces the pool with one of these budgets.
  void UseBudget(size_t idle_instances, size_t idle_bytes) {
    ftpool_destroy(pool_);
    pool_ = NewPool(idle_instances, idle_bytes);
  }
  ftpool_font *Font(const ftpool_font_desc &desc) {
    ftpool_font *font = nullptr;
    EXPECT_EQ(ftpool_font_create(pool_, &desc, &font), FTPOOL_OK);
    return font;
  }
  // Acquires, renders as is, gives back.
  uint64_t Render(ftpool_font *font) {
    FT_Face face;
    if (ftpool_font_acquire(font, &face) != FTPOOL_OK)
      return 0;
    uint64_t digest = RenderDigestAsIs(face, kText);
    EXPECT_EQ(ftpool_font_give_back(font, face), FTPOOL_OK);
    return digest;
  }
  bool PerThread() const { return GetParam() == FTPOOL_BACKEND_PER_THREAD; }

  CountingMemory memory_;
  ftpool *pool_ = nullptr;
};

TEST_P(FontTest, AcquiredFaceRendersAsPlainFreeTypeAtTheFontsSize) {
  ftpool_font *font = Font(Desc(kSans, 24));
  ASSERT_NE(font, nullptr);
  const uint64_t expected = ReferenceDigest(kSans, 0, 24, {}, kText);
  ASSERT_NE(expected, 0u);
  EXPECT_EQ(Render(font), expected);
  EXPECT_EQ(Render(font), expected);
  ftpool_stats s = Stats(pool_);
  EXPECT_EQ(s.fonts, 1u);
  EXPECT_EQ(s.font_instances, 1u);
  EXPECT_EQ(s.font_instances_created, 1u); // the second acquire was warm
  EXPECT_EQ(s.font_faces, 1u);
  EXPECT_GT(s.font_instance_bytes, 0u);
  ftpool_font_release(font);
  s = Stats(pool_);
  EXPECT_EQ(s.fonts, 0u);
  EXPECT_EQ(s.font_instances, 0u);
  EXPECT_EQ(s.font_faces, 0u);
  EXPECT_EQ(s.font_instance_bytes, 0u);
}

TEST_P(FontTest, FontFromABlobAndWithACharSize) {
  const std::vector<unsigned char> bytes = ReadFile(kSerif);
  ftpool_blob *blob;
  ASSERT_EQ(ftpool_blob_copy(pool_, bytes.data(), bytes.size(), &blob),
            FTPOOL_OK);
  ftpool_font_desc desc;
  ftpool_font_desc_init(&desc);
  desc.blob = blob;
  desc.char_height = 18 * 64; // 18 pt at 96 dpi: 24 px
  desc.vert_resolution = desc.horz_resolution = 96;
  ftpool_font *font = Font(desc);
  ftpool_blob_release(blob); // the font keeps its own reference
  ASSERT_NE(font, nullptr);
  EXPECT_EQ(Render(font), ReferenceDigest(kSerif, 0, 24, {}, kText));
  ftpool_font_release(font);
  EXPECT_EQ(Stats(pool_).blob_bytes_live, 0u);
}

TEST_P(FontTest, WhatAUserSetsIsResetAtTheNextAcquire) {
  ftpool_font *font = Font(Desc(kSans, 24));
  ASSERT_NE(font, nullptr);
  const uint64_t expected = ReferenceDigest(kSans, 0, 24, {}, kText);
  FT_Face face;
  ASSERT_EQ(ftpool_font_acquire(font, &face), FTPOOL_OK);
  const FT_CharMap charmap = face->charmap;
  FT_Matrix turn = {0, -0x10000, 0x10000, 0}; // 90 degrees
  FT_Set_Transform(face, &turn, nullptr);
  ASSERT_EQ(FT_Set_Pixel_Sizes(face, 0, 48), 0);
  ASSERT_GT(face->num_charmaps, 1);
  ASSERT_EQ(FT_Set_Charmap(face, face->charmaps[0] == charmap
                                     ? face->charmaps[1]
                                     : face->charmaps[0]),
            0);
  EXPECT_NE(RenderDigestAsIs(face, kText), expected);
  ASSERT_EQ(ftpool_font_give_back(font, face), FTPOOL_OK);
  ASSERT_EQ(ftpool_font_acquire(font, &face), FTPOOL_OK);
  EXPECT_EQ(face->charmap, charmap);
  EXPECT_EQ(face->size->metrics.y_ppem, 24);
  EXPECT_EQ(RenderDigestAsIs(face, kText), expected);
  ASSERT_EQ(ftpool_font_give_back(font, face), FTPOOL_OK);
  ftpool_font_release(font);
}

TEST_P(FontTest, EncodingSelectsTheCharmap) {
  ftpool_font_desc desc = Desc(kSans, 24);
  desc.encoding = FT_ENCODING_APPLE_ROMAN;
  ftpool_font *font = Font(desc);
  ASSERT_NE(font, nullptr);
  FT_Face face;
  ASSERT_EQ(ftpool_font_acquire(font, &face), FTPOOL_OK);
  EXPECT_EQ(face->charmap->encoding, FT_ENCODING_APPLE_ROMAN);
  ASSERT_EQ(ftpool_font_give_back(font, face), FTPOOL_OK);
  ftpool_font_release(font);
}

// DejaVu Sans with every cmap record relabelled Apple Roman and no glyph
// names: FreeType selects no charmap at open (face->charmap is NULL).
std::vector<unsigned char> FontWithNoDefaultCharmap() {
  std::vector<unsigned char> bytes = ReadFile(kSans);
  auto u16 = [&](size_t at) { return bytes[at] << 8 | bytes[at + 1]; };
  auto u32 = [&](size_t at) {
    return static_cast<size_t>(u16(at)) << 16 | u16(at + 2);
  };
  for (int i = 0, n = u16(4); i < n; i++) {
    const size_t record = 12 + 16 * i, table = u32(record + 8);
    const std::string tag(bytes.begin() + record, bytes.begin() + record + 4);
    if (tag == "cmap")
      for (int k = 0, m = u16(table + 2); k < m; k++) {
        const size_t at = table + 4 + 8 * k;
        bytes[at] = 0, bytes[at + 1] = 1, bytes[at + 2] = 0, bytes[at + 3] = 0;
      }
    if (tag == "post") // version 3: no glyph names
      bytes[table] = 0, bytes[table + 1] = 3, bytes[table + 2] = 0,
      bytes[table + 3] = 0;
  }
  return bytes;
}

TEST_P(FontTest, NoCharmapIsResetToo) {
  const std::vector<unsigned char> bytes = FontWithNoDefaultCharmap();
  ftpool_blob *blob;
  ASSERT_EQ(ftpool_blob_copy(pool_, bytes.data(), bytes.size(), &blob),
            FTPOOL_OK);
  ftpool_font_desc desc = Desc(nullptr, 24);
  desc.blob = blob;
  ftpool_font *font = Font(desc);
  ftpool_blob_release(blob);
  ASSERT_NE(font, nullptr);
  FT_Face face;
  ASSERT_EQ(ftpool_font_acquire(font, &face), FTPOOL_OK);
  ASSERT_EQ(face->charmap, nullptr);
  ASSERT_GT(face->num_charmaps, 0);
  ASSERT_EQ(FT_Set_Charmap(face, face->charmaps[0]), 0);
  ASSERT_EQ(ftpool_font_give_back(font, face), FTPOOL_OK);
  ASSERT_EQ(ftpool_font_acquire(font, &face), FTPOOL_OK);
  EXPECT_EQ(face->charmap, nullptr);
  ASSERT_EQ(ftpool_font_give_back(font, face), FTPOOL_OK);
  ftpool_font_release(font);
}

TEST_P(FontTest, FontsDifferingOnlyInSizeShareAFacePerContext) {
  const FT_UInt sizes[] = {12, 24, 48};
  std::vector<ftpool_font *> fonts;
  for (FT_UInt px : sizes)
    fonts.push_back(Font(Desc(kSans, px)));
  for (size_t i = 0; i < fonts.size(); i++) {
    ASSERT_NE(fonts[i], nullptr);
    EXPECT_EQ(Render(fonts[i]), ReferenceDigest(kSans, 0, sizes[i], {}, kText))
        << sizes[i] << " px";
  }
  const ftpool_stats s = Stats(pool_);
  EXPECT_EQ(s.font_instances, 3u);
  EXPECT_EQ(s.font_faces, PerThread() ? 1u : 3u);
  for (ftpool_font *font : fonts)
    ftpool_font_release(font);
}

TEST_P(FontTest, SeveralFontsHeldAtOnceAndOneFontTwice) {
  ftpool_font *small = Font(Desc(kSans, 12));
  ftpool_font *large = Font(Desc(kSans, 48));
  ASSERT_NE(small, nullptr);
  ASSERT_NE(large, nullptr);
  FT_Face a, b, again;
  ASSERT_EQ(ftpool_font_acquire(small, &a), FTPOOL_OK);
  ASSERT_EQ(ftpool_font_acquire(large, &b), FTPOOL_OK);
  // One face has one active size: held together, they are two faces.
  EXPECT_NE(a, b);
  EXPECT_EQ(RenderDigestAsIs(a, kText),
            ReferenceDigest(kSans, 0, 12, {}, kText));
  EXPECT_EQ(RenderDigestAsIs(b, kText),
            ReferenceDigest(kSans, 0, 48, {}, kText));
  EXPECT_EQ(RenderDigestAsIs(a, kText),
            ReferenceDigest(kSans, 0, 12, {}, kText));
  // The same font again before giving it back: the same face.
  ASSERT_EQ(ftpool_font_acquire(small, &again), FTPOOL_OK);
  EXPECT_EQ(again, a);
  EXPECT_EQ(ftpool_font_give_back(small, again), FTPOOL_OK);
  EXPECT_EQ(ftpool_font_give_back(small, a), FTPOOL_OK);
  EXPECT_EQ(ftpool_font_give_back(small, a), FTPOOL_ERR_NOT_ACQUIRED);
  if (PerThread()) {
    // Acquired and given back out of order. The shared-mutex backend's
    // fonts are locks: held together, they must always be taken in one
    // order (ThreadSanitizer reports a possible deadlock otherwise).
    ASSERT_EQ(ftpool_font_acquire(small, &a), FTPOOL_OK);
    EXPECT_EQ(ftpool_font_give_back(large, b), FTPOOL_OK);
    EXPECT_EQ(ftpool_font_give_back(small, a), FTPOOL_OK);
  } else {
    EXPECT_EQ(ftpool_font_give_back(large, b), FTPOOL_OK);
  }
  EXPECT_EQ(Render(large), ReferenceDigest(kSans, 0, 48, {}, kText));
  ftpool_font_release(small);
  ftpool_font_release(large);
}

TEST_P(FontTest, VariationCoordinatesAndNamedInstances) {
  ASSERT_FONT_PRESENT(kVariable);
  const std::vector<FT_Fixed> light = {300 << 16}, bold = {700 << 16};
  ftpool_font *thin = Font(Desc(kVariable, 24, light));
  ftpool_font *thick = Font(Desc(kVariable, 24, bold));
  ftpool_font_desc named = Desc(kVariable, 24);
  named.face_index = 1 << 16; // the first named instance
  ftpool_font *first = Font(named);
  ASSERT_NE(thin, nullptr);
  ASSERT_NE(thick, nullptr);
  ASSERT_NE(first, nullptr);
  const uint64_t thin_digest = Render(thin);
  EXPECT_EQ(thin_digest, ReferenceDigest(kVariable, 0, 24, light, kText));
  EXPECT_EQ(Render(thick), ReferenceDigest(kVariable, 0, 24, bold, kText));
  EXPECT_NE(thin_digest, Render(thick));
  EXPECT_EQ(Render(first), ReferenceDigest(kVariable, 1 << 16, 24, {}, kText));
  EXPECT_EQ(Stats(pool_).font_faces, 3u); // coordinates are not shared
  ftpool_font_release(thin);
  ftpool_font_release(thick);
  ftpool_font_release(first);
}

TEST_P(FontTest, BadDescriptionsAreRefusedWithAClearStatus) {
  ASSERT_FONT_PRESENT(kVariable);
  ftpool_font *font = reinterpret_cast<ftpool_font *>(1);
  ftpool_font_desc desc = Desc(kSans, 24);
  EXPECT_EQ(ftpool_font_create(nullptr, &desc, &font),
            FTPOOL_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(ftpool_font_create(pool_, nullptr, &font),
            FTPOOL_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(font, reinterpret_cast<ftpool_font *>(1));
  EXPECT_EQ(ftpool_font_create(pool_, &desc, nullptr),
            FTPOOL_ERR_INVALID_ARGUMENT);
  auto refused = [&](ftpool_font_desc d) {
    ftpool_font *f = reinterpret_cast<ftpool_font *>(1);
    ftpool_status s = ftpool_font_create(pool_, &d, &f);
    EXPECT_EQ(f, nullptr);
    return s;
  };
  ftpool_font_desc d = Desc(nullptr, 24);
  EXPECT_EQ(refused(d), FTPOOL_ERR_INVALID_ARGUMENT); // no bytes
  const std::vector<unsigned char> bytes = ReadFile(kSans);
  ftpool_blob *blob;
  ASSERT_EQ(ftpool_blob_copy(pool_, bytes.data(), bytes.size(), &blob),
            FTPOOL_OK);
  d = Desc(kSans, 24);
  d.blob = blob;
  EXPECT_EQ(refused(d), FTPOOL_ERR_INVALID_ARGUMENT); // path and blob
  d = Desc(kSans, 0);
  EXPECT_EQ(refused(d), FTPOOL_ERR_INVALID_ARGUMENT); // no size
  d = Desc(kSans, 24);
  d.face_index = -1;
  EXPECT_EQ(refused(d), FTPOOL_ERR_INVALID_ARGUMENT);
  d = Desc(kSans, 24);
  d.num_coords = 1;
  EXPECT_EQ(refused(d), FTPOOL_ERR_INVALID_ARGUMENT); // count, no array
  d = Desc(kSans, 24);
  d.char_height = -64;
  EXPECT_EQ(refused(d), FTPOOL_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(refused(Desc("/nonexistent.ttf", 24)), FTPOOL_ERR_CANNOT_OPEN);
  d = Desc(kSans, 24);
  d.face_index = 3;
  EXPECT_EQ(refused(d), FTPOOL_ERR_FACE_INDEX);
  const std::vector<FT_Fixed> one = {500 << 16}, two = {500 << 16, 1 << 16};
  EXPECT_EQ(refused(Desc(kSans, 24, one)), FTPOOL_ERR_NOT_VARIABLE);
  EXPECT_EQ(refused(Desc(kVariable, 24, two)), FTPOOL_ERR_NOT_VARIABLE);
  d = Desc(kSans, 0);
  d.char_height = 0x7FFFFFFF;
  EXPECT_EQ(refused(d), FTPOOL_ERR_INVALID_SIZE);
  EXPECT_NE(ftpool_last_ft_error(), 0);
  d = Desc(kSans, 24);
  d.encoding = FT_ENCODING_SJIS;
  EXPECT_EQ(refused(d), FTPOOL_ERR_FREETYPE);
  const std::vector<unsigned char> garbage(1000, 'x');
  ftpool_blob *junk;
  ASSERT_EQ(ftpool_blob_copy(pool_, garbage.data(), garbage.size(), &junk),
            FTPOOL_OK);
  d = Desc(nullptr, 24);
  d.blob = junk;
  EXPECT_EQ(refused(d), FTPOOL_ERR_UNKNOWN_FORMAT);
  ftpool_blob_release(junk);
  ftpool_blob_release(blob);
  // A blob of another pool.
  ftpool *other = NewPool();
  ftpool_blob *foreign;
  ASSERT_EQ(ftpool_blob_copy(other, bytes.data(), bytes.size(), &foreign),
            FTPOOL_OK);
  d = Desc(nullptr, 24);
  d.blob = foreign;
  EXPECT_EQ(refused(d), FTPOOL_ERR_FOREIGN_BLOB);
  ftpool_blob_release(foreign);
  ftpool_destroy(other);
  const ftpool_stats s = Stats(pool_);
  EXPECT_EQ(s.fonts, 0u);
  EXPECT_EQ(s.font_instances, 0u);
  EXPECT_EQ(s.font_faces, 0u);
}

TEST_P(FontTest, MisusedFacesAreRefused) {
  ftpool_font *font = Font(Desc(kSans, 24));
  ftpool_font *other = Font(Desc(kSerif, 24));
  ASSERT_NE(font, nullptr);
  ASSERT_NE(other, nullptr);
  FT_Face face;
  EXPECT_EQ(ftpool_font_acquire(nullptr, &face), FTPOOL_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(ftpool_font_acquire(font, nullptr), FTPOOL_ERR_INVALID_ARGUMENT);
  ASSERT_EQ(ftpool_font_acquire(font, &face), FTPOOL_OK);
  EXPECT_EQ(ftpool_font_give_back(nullptr, face), FTPOOL_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(ftpool_font_give_back(font, nullptr), FTPOOL_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(ftpool_font_give_back(other, face), FTPOOL_ERR_NOT_ACQUIRED);
  EXPECT_EQ(ftpool_close(pool_, face), FTPOOL_ERR_FOREIGN_FACE);
  ftpool_status from_elsewhere = FTPOOL_OK;
  std::thread([&] {
    from_elsewhere = ftpool_font_give_back(font, face);
  }).join();
  EXPECT_EQ(from_elsewhere, FTPOOL_ERR_NOT_ACQUIRED);
  // A face of the pool that is no font's.
  FT_Face plain;
  ASSERT_EQ(ftpool_open_file(pool_, kSans, 0, &plain), FTPOOL_OK);
  EXPECT_EQ(ftpool_font_give_back(font, plain), FTPOOL_ERR_NOT_ACQUIRED);
  EXPECT_EQ(ftpool_close(pool_, plain), FTPOOL_OK);
  EXPECT_EQ(ftpool_font_give_back(font, face), FTPOOL_OK);
  EXPECT_EQ(ftpool_font_give_back(font, face), FTPOOL_ERR_NOT_ACQUIRED);
  void *data;
  EXPECT_EQ(ftpool_font_instance_data(font, face, &data),
            FTPOOL_ERR_NOT_ACQUIRED);
  EXPECT_EQ(ftpool_font_retain(nullptr), FTPOOL_ERR_INVALID_ARGUMENT);
  ftpool_font_release(nullptr);
  ftpool_font_release(font);
  ftpool_font_release(other);
}

// Records which thread ran each destructor.
struct Destroyed {
  std::mutex mutex;
  std::vector<std::pair<int, std::thread::id>> calls;
  static void Run(void *data);
};
Destroyed *destroyed;
struct Tag {
  int id;
};
void Destroyed::Run(void *data) {
  std::lock_guard<std::mutex> lock(destroyed->mutex);
  destroyed->calls.emplace_back(static_cast<Tag *>(data)->id,
                                std::this_thread::get_id());
  delete static_cast<Tag *>(data);
}

class InstanceDataTest : public FontTest {
protected:
  void SetUp() override {
    FontTest::SetUp();
    destroyed = &record_;
  }
  Destroyed record_;
};

TEST_P(InstanceDataTest, DataStaysWithTheInstanceUntilItGoes) {
  ftpool_font *font = Font(Desc(kSans, 24));
  ASSERT_NE(font, nullptr);
  FT_Face face;
  ASSERT_EQ(ftpool_font_acquire(font, &face), FTPOOL_OK);
  void *data = reinterpret_cast<void *>(1);
  EXPECT_EQ(ftpool_font_instance_data(font, face, &data), FTPOOL_OK);
  EXPECT_EQ(data, nullptr);
  EXPECT_EQ(
      ftpool_font_set_instance_data(font, face, new Tag{1}, Destroyed::Run),
      FTPOOL_OK);
  // Replaced: the old one is destroyed at once.
  EXPECT_EQ(
      ftpool_font_set_instance_data(font, face, new Tag{2}, Destroyed::Run),
      FTPOOL_OK);
  ASSERT_EQ(record_.calls.size(), 1u);
  EXPECT_EQ(record_.calls[0].first, 1);
  ASSERT_EQ(ftpool_font_give_back(font, face), FTPOOL_OK);
  ASSERT_EQ(ftpool_font_acquire(font, &face), FTPOOL_OK);
  ASSERT_EQ(ftpool_font_instance_data(font, face, &data), FTPOOL_OK);
  ASSERT_NE(data, nullptr);
  EXPECT_EQ(static_cast<Tag *>(data)->id, 2);
  ASSERT_EQ(ftpool_font_give_back(font, face), FTPOOL_OK);
  EXPECT_EQ(record_.calls.size(), 1u);
  ftpool_font_release(font); // the last reference: the instance goes
  ASSERT_EQ(record_.calls.size(), 2u);
  EXPECT_EQ(record_.calls[1].first, 2);
}

TEST_P(InstanceDataTest, DestroyRunsWhatIsLeft) {
  ftpool_font *font = Font(Desc(kSans, 24));
  ASSERT_NE(font, nullptr);
  FT_Face face;
  ASSERT_EQ(ftpool_font_acquire(font, &face), FTPOOL_OK);
  ASSERT_EQ(
      ftpool_font_set_instance_data(font, face, new Tag{7}, Destroyed::Run),
      FTPOOL_OK);
  ASSERT_EQ(ftpool_font_give_back(font, face), FTPOOL_OK);
  ftpool_destroy(pool_); // the font is never released
  pool_ = nullptr;
  ASSERT_EQ(record_.calls.size(), 1u);
  EXPECT_EQ(record_.calls[0].first, 7);
}

// Instance data holding font references and a face, as an application's
// glyph cache might: at ftpool_destroy its destructor's releases and closes
// are no-ops (the destroy frees everything), not uses of freed memory.
struct HoldsThings {
  ftpool *pool;
  ftpool_font *own, *other;
  FT_Face face;
  static void Release(void *data) {
    auto *held = static_cast<HoldsThings *>(data);
    ftpool_font_release(held->own);
    ftpool_font_release(held->other);
    EXPECT_EQ(ftpool_close(held->pool, held->face), FTPOOL_OK);
    delete held;
  }
};

TEST_P(InstanceDataTest, DestroyWithDestructorsThatReleaseAndClose) {
  ftpool_font *own = Font(Desc(kSans, 24));
  ftpool_font *other = Font(Desc(kSerif, 24));
  ASSERT_NE(own, nullptr);
  ASSERT_NE(other, nullptr);
  FT_Face plain, face;
  ASSERT_EQ(ftpool_open_file(pool_, kMono, 0, &plain), FTPOOL_OK);
  ASSERT_EQ(ftpool_font_acquire(own, &face), FTPOOL_OK);
  ASSERT_EQ(ftpool_font_set_instance_data(
                own, face, new HoldsThings{pool_, own, other, plain},
                HoldsThings::Release),
            FTPOOL_OK);
  ASSERT_EQ(ftpool_font_give_back(own, face), FTPOOL_OK);
  // Both fonts and the face now belong to the data alone.
  ftpool_destroy(pool_);
  pool_ = nullptr;
}

INSTANTIATE_TEST_SUITE_P(Backends, FontTest,
                         ::testing::Values(FTPOOL_BACKEND_PER_THREAD,
                                           FTPOOL_BACKEND_SHARED_MUTEX),
                         BackendName);
INSTANTIATE_TEST_SUITE_P(Backends, InstanceDataTest,
                         ::testing::Values(FTPOOL_BACKEND_PER_THREAD,
                                           FTPOOL_BACKEND_SHARED_MUTEX),
                         BackendName);

// --- per-thread backend only: contexts, threads, the budget ----------------

class PerThreadFontTest : public FontTest {};

TEST_P(PerThreadFontTest, InstancesOutliveTheirThreadAndServeTheNext) {
  ftpool_font *font = nullptr;
  std::thread([&] {
    font = Font(Desc(kSans, 24)); // this thread's instance
  }).join();
  ASSERT_NE(font, nullptr);
  std::thread([&] { EXPECT_NE(Render(font), 0u); }).join();
  const ftpool_stats s = Stats(pool_);
  EXPECT_EQ(s.contexts, 1u);
  EXPECT_EQ(s.font_instances_created, 1u); // the second thread's was warm
  EXPECT_EQ(s.font_instances_reused, 1u);
  ftpool_font_release(font);
}

TEST_P(PerThreadFontTest, AThreadThatExitsGivesBackWhatItHolds) {
  ftpool_font *font = Font(Desc(kSans, 24));
  ASSERT_NE(font, nullptr);
  std::thread([&] {
    FT_Face face;
    EXPECT_EQ(ftpool_font_acquire(font, &face), FTPOOL_OK);
  }).join();
  std::thread([&] { EXPECT_NE(Render(font), 0u); }).join();
  ftpool_font_release(font);
  EXPECT_EQ(Stats(pool_).font_instances, 0u);
}

// Parks threads holding warm instances; the last release is posted to each
// and carried out at the holder's next call, on that thread.
TEST_P(PerThreadFontTest, LastReleaseClosesEveryInstanceOnItsOwnThread) {
  Destroyed record;
  destroyed = &record;
  ftpool_font *font = Font(Desc(kSans, 24));
  ASSERT_NE(font, nullptr);
  constexpr int kThreads = 3;
  std::atomic<int> ready{0};
  std::atomic<bool> released{false}, exit_now{false};
  std::vector<std::thread::id> ids(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; t++)
    threads.emplace_back([&, t] {
      ids[t] = std::this_thread::get_id();
      FT_Face face;
      ASSERT_EQ(ftpool_font_acquire(font, &face), FTPOOL_OK);
      ASSERT_EQ(
          ftpool_font_set_instance_data(font, face, new Tag{t}, Destroyed::Run),
          FTPOOL_OK);
      ASSERT_EQ(ftpool_font_give_back(font, face), FTPOOL_OK);
      ready++;
      while (!released)
        std::this_thread::yield();
      if (t == 0) {
        EXPECT_EQ(ftpool_collect(pool_), FTPOOL_OK); // carried out now
      }
      while (!exit_now)
        std::this_thread::yield();
      // The others carry it out at their exit.
    });
  while (ready < kThreads)
    std::this_thread::yield();
  EXPECT_EQ(Stats(pool_).font_instances, kThreads + 1u); // and main's
  ftpool_font_release(font);
  released = true;
  while (true) {
    std::lock_guard<std::mutex> lock(record.mutex);
    if (!record.calls.empty())
      break;
  }
  exit_now = true;
  for (std::thread &t : threads)
    t.join();
  ASSERT_EQ(record.calls.size(), size_t{kThreads});
  for (const auto &call : record.calls)
    EXPECT_EQ(call.second, ids[call.first]) << "instance " << call.first;
  // Main's own instance went with the release, on main.
  const ftpool_stats s = Stats(pool_);
  EXPECT_EQ(s.font_instances, 0u);
  EXPECT_EQ(s.fonts, 0u);
}

TEST_P(PerThreadFontTest, ReleaseAdoptsTheContextOfAThreadThatExited) {
  ftpool_font *font = Font(Desc(kSans, 24));
  ASSERT_NE(font, nullptr);
  std::thread([&] { EXPECT_NE(Render(font), 0u); }).join();
  std::thread([&] { ftpool_font_release(font); }).join();
  // The exited thread's instance was dropped by adoption; main's waits for
  // main's next call.
  ftpool_stats s = Stats(pool_);
  EXPECT_EQ(s.font_instances, 1u);
  EXPECT_EQ(s.contexts_adopted, 1u);
  EXPECT_EQ(ftpool_collect(pool_), FTPOOL_OK);
  EXPECT_EQ(Stats(pool_).font_instances, 0u);
}

TEST_P(PerThreadFontTest, BudgetKeepsTheMostRecentlyUsed) {
  UseBudget(2, FTPOOL_DEFAULT_FONT_IDLE_BYTES);
  Destroyed record;
  destroyed = &record;
  std::vector<ftpool_font *> fonts;
  for (FT_UInt px : {10, 11, 12, 13}) {
    fonts.push_back(Font(Desc(kSans, px)));
    ASSERT_NE(fonts.back(), nullptr);
    EXPECT_LE(Stats(pool_).font_instances, 2u);
  }
  // Font 0's and 1's instances were evicted; 2 and 3 are warm.
  ftpool_stats s = Stats(pool_);
  EXPECT_EQ(s.font_instances_created, 4u);
  EXPECT_EQ(s.font_instances_evicted, 2u);
  FT_Face face;
  ASSERT_EQ(ftpool_font_acquire(fonts[2], &face), FTPOOL_OK);
  ASSERT_EQ(
      ftpool_font_set_instance_data(fonts[2], face, new Tag{2}, Destroyed::Run),
      FTPOOL_OK);
  ASSERT_EQ(ftpool_font_give_back(fonts[2], face), FTPOOL_OK);
  EXPECT_NE(Render(fonts[3]), 0u);
  EXPECT_EQ(Stats(pool_).font_instances_created, 4u);
  // Font 0 again: made afresh, evicting the least recently used (2).
  EXPECT_EQ(Render(fonts[0]), ReferenceDigest(kSans, 0, 10, {}, kText));
  s = Stats(pool_);
  EXPECT_EQ(s.font_instances_created, 5u);
  EXPECT_EQ(s.font_instances, 2u);
  ASSERT_EQ(record.calls.size(), 1u);
  EXPECT_EQ(record.calls[0].first, 2);
  // In use, an instance is never evicted: hold all four at once.
  std::vector<FT_Face> held(4);
  for (int i = 0; i < 4; i++)
    ASSERT_EQ(ftpool_font_acquire(fonts[i], &held[i]), FTPOOL_OK);
  EXPECT_EQ(Stats(pool_).font_instances, 4u);
  for (int i = 0; i < 4; i++)
    EXPECT_EQ(RenderDigestAsIs(held[i], kText),
              ReferenceDigest(kSans, 0, 10 + i, {}, kText));
  for (int i = 0; i < 4; i++)
    ASSERT_EQ(ftpool_font_give_back(fonts[i], held[i]), FTPOOL_OK);
  EXPECT_EQ(Stats(pool_).font_instances, 2u);
  for (ftpool_font *font : fonts)
    ftpool_font_release(font);
}

TEST_P(PerThreadFontTest, ByteBudgetEvictsToFit) {
  UseBudget(100, 1); // no idle instance fits in one byte
  ftpool_font *font = Font(Desc(kSans, 24));
  ASSERT_NE(font, nullptr);
  EXPECT_EQ(Stats(pool_).font_instances, 0u);
  FT_Face face;
  ASSERT_EQ(ftpool_font_acquire(font, &face), FTPOOL_OK);
  EXPECT_EQ(Stats(pool_).font_instances, 1u);
  EXPECT_EQ(RenderDigestAsIs(face, kText),
            ReferenceDigest(kSans, 0, 24, {}, kText));
  ASSERT_EQ(ftpool_font_give_back(font, face), FTPOOL_OK);
  const ftpool_stats s = Stats(pool_);
  EXPECT_EQ(s.font_instances, 0u);
  EXPECT_EQ(s.font_instances_evicted, 2u);
  EXPECT_EQ(s.font_instance_bytes, 0u);
  ftpool_font_release(font);
}

// The bytes of an acquired instance are only its own: what the library
// frees or allocates meanwhile for a plain face, or for another font's
// instance that goes, is not charged to it.
TEST_P(PerThreadFontTest, OtherWorkIsNotChargedToTheAcquiredInstance) {
  ftpool_font *a = Font(Desc(kSans, 24));
  ftpool_font *b = Font(Desc(kSerif, 24));
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  ftpool_font_release(b);
  const size_t a_bytes = Stats(pool_).font_instance_bytes;
  ASSERT_GT(a_bytes, 0u);
  b = Font(Desc(kSerif, 24));
  ASSERT_NE(b, nullptr);
  FT_Face before, during, face;
  ASSERT_EQ(ftpool_open_file(pool_, kSerif, 0, &before), FTPOOL_OK);
  ASSERT_EQ(ftpool_font_acquire(a, &face), FTPOOL_OK);
  ASSERT_EQ(ftpool_close(pool_, before), FTPOOL_OK);
  ASSERT_EQ(ftpool_open_file(pool_, kMono, 0, &during), FTPOOL_OK);
  ftpool_font_release(b); // its instance goes now, on this thread
  ASSERT_EQ(ftpool_font_give_back(a, face), FTPOOL_OK);
  ASSERT_EQ(ftpool_close(pool_, during), FTPOOL_OK);
  EXPECT_EQ(Stats(pool_).font_instance_bytes, a_bytes);
  ftpool_font_release(a);
  EXPECT_EQ(Stats(pool_).font_instance_bytes, 0u);
}

// A face shared by sizes keeps its bytes counted when the instance that
// opened it is evicted.
TEST_P(PerThreadFontTest, ASharedFacesBytesStayCounted) {
  UseBudget(1, FTPOOL_DEFAULT_FONT_IDLE_BYTES);
  ftpool_font *small = Font(Desc(kSans, 12));
  ASSERT_NE(small, nullptr);
  const size_t alone = Stats(pool_).font_instance_bytes;
  ftpool_font_release(small);
  ftpool_font *large = Font(Desc(kSans, 24)); // opens the face
  small = Font(Desc(kSans, 12));              // evicts large's instance
  ASSERT_NE(large, nullptr);
  ASSERT_NE(small, nullptr);
  const ftpool_stats s = Stats(pool_);
  EXPECT_EQ(s.font_instances, 1u);
  EXPECT_EQ(s.font_faces, 1u);
  EXPECT_EQ(s.font_instance_bytes, alone);
  ftpool_font_release(large);
  ftpool_font_release(small);
  EXPECT_EQ(Stats(pool_).font_instance_bytes, 0u);
}

// What glyph loads leave on a face (the slot's bitmap) stays counted when the
// instance that loaded them is evicted and another size keeps the face.
TEST_P(PerThreadFontTest, GlyphBytesLeftOnASharedFaceStayCounted) {
  const size_t before = memory_.outstanding_bytes();
  ftpool_font *big = Font(Desc(kSans, 400));
  ftpool_font *small = Font(Desc(kSans, 12)); // the same face
  ASSERT_NE(big, nullptr);
  ASSERT_NE(small, nullptr);
  FT_Face big_face, small_face;
  ASSERT_EQ(ftpool_font_acquire(big, &big_face), FTPOOL_OK);
  ASSERT_EQ(FT_Load_Char(big_face, 'W', FT_LOAD_RENDER), 0); // a big bitmap
  ASSERT_EQ(ftpool_font_give_back(big, big_face), FTPOOL_OK);
  ASSERT_EQ(ftpool_font_acquire(small, &small_face), FTPOOL_OK);
  // big's instance leaves the face small holds, for a face of its own.
  ASSERT_EQ(ftpool_font_acquire(big, &big_face), FTPOOL_OK);
  EXPECT_NE(big_face, small_face);
  ASSERT_EQ(ftpool_font_give_back(big, big_face), FTPOOL_OK);
  ASSERT_EQ(ftpool_font_give_back(small, small_face), FTPOOL_OK);
  const ftpool_stats s = Stats(pool_);
  // Less the font's bytes (the file cache's blob); the rest not counted is
  // the fonts' records and the instance slots.
  const size_t real = memory_.outstanding_bytes() - before - s.blob_bytes_live;
  const size_t counted = s.font_instance_bytes;
  EXPECT_GE(counted, real * 8 / 10) << "real " << real;
  EXPECT_LE(counted, real);
  ftpool_font_release(big);
  ftpool_font_release(small);
  EXPECT_EQ(Stats(pool_).font_instance_bytes, 0u);
}

// Instance data that keeps its own font alive, as an hb_font_t's user data
// might: its destructor, run when the instance is evicted, drops the font's
// last reference.
struct KeepsFont {
  ftpool_font *font;
  static void Release(void *data) {
    ftpool_font_release(static_cast<KeepsFont *>(data)->font);
    delete static_cast<KeepsFont *>(data);
  }
};

TEST_P(PerThreadFontTest, ADestructorMayReleaseItsOwnFontsLastReference) {
  UseBudget(1, FTPOOL_DEFAULT_FONT_IDLE_BYTES);
  ftpool_font *font = Font(Desc(kSans, 24));
  ASSERT_NE(font, nullptr);
  FT_Face face;
  ASSERT_EQ(ftpool_font_acquire(font, &face), FTPOOL_OK);
  ASSERT_EQ(ftpool_font_retain(font), FTPOOL_OK);
  ASSERT_EQ(ftpool_font_set_instance_data(font, face, new KeepsFont{font},
                                          KeepsFont::Release),
            FTPOOL_OK);
  ASSERT_EQ(ftpool_font_give_back(font, face), FTPOOL_OK);
  ftpool_font_release(font); // the data's reference is the last
  EXPECT_EQ(Stats(pool_).fonts, 1u);
  ftpool_font *other = Font(Desc(kSerif, 24)); // evicts font's instance
  ASSERT_NE(other, nullptr);
  const ftpool_stats s = Stats(pool_);
  EXPECT_EQ(s.fonts, 1u);
  EXPECT_EQ(s.font_instances, 1u);
  EXPECT_EQ(Render(other), ReferenceDigest(kSerif, 0, 24, {}, kText));
  ftpool_font_release(other);
}

// What a callback may not do: acquire a font and create one; the statuses
// are recorded.
void TryAcquireAndCreate(ftpool *pool, ftpool_font *font,
                         ftpool_status *acquired, ftpool_status *created) {
  FT_Face face;
  *acquired = ftpool_font_acquire(font, &face);
  if (*acquired == FTPOOL_OK)
    ftpool_font_give_back(font, face);
  ftpool_font *made = nullptr;
  ftpool_font_desc desc = Desc(kMono, 24);
  *created = ftpool_font_create(pool, &desc, &made);
  ftpool_font_release(made);
}

ftpool_font *reentrant_font;
ftpool_status reentrant_acquire = FTPOOL_OK;
ftpool_status reentrant_create = FTPOOL_OK;

void AcquiresFromADestructor(void *pool) {
  TryAcquireAndCreate(static_cast<ftpool *>(pool), reentrant_font,
                      &reentrant_acquire, &reentrant_create);
}

TEST_P(PerThreadFontTest, ADestructorMayNotAcquire) {
  reentrant_font = Font(Desc(kSerif, 24)); // warm: no remaking needed
  ftpool_font *font = Font(Desc(kSans, 24));
  ASSERT_NE(font, nullptr);
  FT_Face face;
  ASSERT_EQ(ftpool_font_acquire(font, &face), FTPOOL_OK);
  ASSERT_EQ(
      ftpool_font_set_instance_data(font, face, pool_, AcquiresFromADestructor),
      FTPOOL_OK);
  ASSERT_EQ(ftpool_font_give_back(font, face), FTPOOL_OK);
  ftpool_font_release(font);
  EXPECT_EQ(reentrant_acquire, FTPOOL_ERR_REENTRANT);
  EXPECT_EQ(reentrant_create, FTPOOL_ERR_REENTRANT);
  EXPECT_EQ(Render(reentrant_font), ReferenceDigest(kSerif, 0, 24, {}, kText));
  ftpool_font_release(reentrant_font);
  EXPECT_EQ(Stats(pool_).font_instances, 0u);
}

pthread_key_t late_key;
ftpool *late_pool;
ftpool_font *late_font;
ftpool_status late_acquire = FTPOOL_OK, late_create = FTPOOL_ERR_FREETYPE;

// Runs after the pool's own key destructor (keys run in creation order on
// glibc, and this key is made after the pool's).
void LateDestructor(void *) {
  TryAcquireAndCreate(late_pool, late_font, &late_acquire, &late_create);
}

TEST_P(PerThreadFontTest, AcquireFromAnExitingThreadIsRefused) {
  late_pool = pool_;
  late_font = Font(Desc(kSans, 24));
  ASSERT_NE(late_font, nullptr);
  ASSERT_EQ(pthread_key_create(&late_key, LateDestructor), 0);
  std::thread([] {
    EXPECT_NE(ftpool_font_acquire(late_font, nullptr), FTPOOL_OK);
    FT_Library library;
    ASSERT_EQ(ftpool_library(late_pool, &library), FTPOOL_OK);
    pthread_setspecific(late_key, &late_key);
  }).join();
  pthread_key_delete(late_key);
  EXPECT_EQ(late_acquire, FTPOOL_ERR_THREAD);
  EXPECT_EQ(late_create, FTPOOL_OK); // made on a borrowed context
  ftpool_font_release(late_font);
}

INSTANTIATE_TEST_SUITE_P(Backends, PerThreadFontTest,
                         ::testing::Values(FTPOOL_BACKEND_PER_THREAD),
                         BackendName);

} // namespace
} // namespace ftpool_test
