// SPDX-License-Identifier: MIT
// A face given back twice, or by a thread that did not acquire it, is refused
// with FTPOOL_ERR_NOT_ACQUIRED, also when the instance behind it was evicted
// and its face closed in between (issue 20, bug 1: that was a use after
// free, caught by ASan). The counting allocator scribbles over freed blocks,
// so a plain build reads garbage there too.
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "ftpool.h"
#include "test/support/counting_memory.h"
#include "test/support/fonts.h"
#include "test/support/pool_test_util.h"

namespace ftpool_test {
namespace {

class GiveBackTest : public ::testing::TestWithParam<ftpool_backend> {
protected:
  void TearDown() override {
    ftpool_destroy(pool_);
    EXPECT_EQ(memory_.outstanding_bytes(), 0);
  }
  void MakePool(size_t idle_instances) {
    ftpool_config config;
    ftpool_config_init(&config);
    config.backend = GetParam();
    config.memory = memory_.get();
    config.font_idle_instances = idle_instances;
    ASSERT_EQ(ftpool_create(&config, &pool_), FTPOOL_OK);
  }
  ftpool_font *Font(const char *path, FT_UInt pixels) {
    ftpool_font *font = nullptr;
    const ftpool_font_desc desc = Desc(path, pixels);
    EXPECT_EQ(ftpool_font_create(pool_, &desc, &font), FTPOOL_OK);
    return font;
  }
  // A face acquired and given back once: no longer the caller's.
  FT_Face UsedFace(ftpool_font *font) {
    FT_Face face = nullptr;
    EXPECT_EQ(ftpool_font_acquire(font, &face), FTPOOL_OK);
    EXPECT_EQ(FT_Load_Char(face, 'A', FT_LOAD_RENDER), 0);
    EXPECT_EQ(ftpool_font_give_back(font, face), FTPOOL_OK);
    return face;
  }
  // Every call that names an acquired face refuses this one.
  void ExpectRefused(ftpool_font *font, FT_Face face) {
    EXPECT_EQ(ftpool_font_give_back(font, face), FTPOOL_ERR_NOT_ACQUIRED);
    void *data = &data;
    EXPECT_EQ(ftpool_font_instance_data(font, face, &data),
              FTPOOL_ERR_NOT_ACQUIRED);
    EXPECT_EQ(ftpool_font_set_instance_data(font, face, nullptr, nullptr),
              FTPOOL_ERR_NOT_ACQUIRED);
  }

  CountingMemory memory_;
  ftpool *pool_ = nullptr;
};

// The review's program: the default budget keeps 32 idle instances, so 32
// fonts of another file push the first one's out, face and all.
TEST_P(GiveBackTest, ASecondGiveBackAfterEvictionIsRefused) {
  MakePool(FTPOOL_DEFAULT_FONT_IDLE_INSTANCES);
  ftpool_font *first = Font(kSans, 24);
  ASSERT_NE(first, nullptr);
  FT_Face stale = UsedFace(first);
  std::vector<ftpool_font *> others;
  for (FT_UInt px = 10; px < 10 + FTPOOL_DEFAULT_FONT_IDLE_INSTANCES; px++) {
    others.push_back(Font(kSerif, px));
    ASSERT_NE(others.back(), nullptr);
    UsedFace(others.back());
  }
  if (GetParam() == FTPOOL_BACKEND_PER_THREAD) {
    EXPECT_GE(Stats(pool_).font_instances_evicted, 1u);
  }
  ExpectRefused(first, stale);
  // The font itself is as good as before.
  FT_Face face;
  ASSERT_EQ(ftpool_font_acquire(first, &face), FTPOOL_OK);
  EXPECT_EQ(RenderDigestAsIs(face, "Hxg"),
            ReferenceDigest(kSans, 0, 24, {}, "Hxg"));
  EXPECT_EQ(ftpool_font_give_back(first, face), FTPOOL_OK);
  for (ftpool_font *font : others)
    ftpool_font_release(font);
  ftpool_font_release(first);
}

// With no idle instance kept, the give-back itself closes the face.
TEST_P(GiveBackTest, ASecondGiveBackWithNothingKeptIdleIsRefused) {
  MakePool(0);
  ftpool_font *font = Font(kSans, 24);
  ASSERT_NE(font, nullptr);
  FT_Face stale = UsedFace(font);
  ExpectRefused(font, stale);
  ftpool_font_release(font);
}

// A face acquired on one thread is not another thread's to give back, before
// or after the first gives it back (and, with nothing kept idle, closes it).
TEST_P(GiveBackTest, AGiveBackFromAnotherThreadIsRefused) {
  if (GetParam() != FTPOOL_BACKEND_PER_THREAD)
    GTEST_SKIP() << "the shared-mutex backend's lock is held by the acquirer: "
                    "another thread's give-back is undefined there";
  MakePool(0);
  ftpool_font *font = Font(kSans, 24);
  ASSERT_NE(font, nullptr);
  FT_Face face;
  ASSERT_EQ(ftpool_font_acquire(font, &face), FTPOOL_OK);
  std::thread([&] { ExpectRefused(font, face); }).join();
  EXPECT_EQ(RenderDigestAsIs(face, "Hxg"),
            ReferenceDigest(kSans, 0, 24, {}, "Hxg"));
  EXPECT_EQ(ftpool_font_give_back(font, face), FTPOOL_OK);
  std::thread([&] { ExpectRefused(font, face); }).join();
  ExpectRefused(font, face);
  ftpool_font_release(font);
}

// Held twice (nested), given back twice: the third is refused; fonts held at
// once are told apart by face, not by the order of give-backs.
TEST_P(GiveBackTest, GiveBacksAreCountedPerFace) {
  MakePool(0);
  ftpool_font *a = Font(kSans, 24);
  ftpool_font *b = Font(kSerif, 24);
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  FT_Face fa, fa2, fb;
  ASSERT_EQ(ftpool_font_acquire(a, &fa), FTPOOL_OK);
  ASSERT_EQ(ftpool_font_acquire(b, &fb), FTPOOL_OK);
  ASSERT_EQ(ftpool_font_acquire(a, &fa2), FTPOOL_OK);
  EXPECT_EQ(fa, fa2);
  EXPECT_EQ(ftpool_font_give_back(a, fb), FTPOOL_ERR_NOT_ACQUIRED);
  EXPECT_EQ(ftpool_font_give_back(a, fa), FTPOOL_OK);
  EXPECT_EQ(ftpool_font_give_back(a, fa), FTPOOL_OK);
  ExpectRefused(a, fa);
  EXPECT_EQ(RenderDigestAsIs(fb, "Hxg"),
            ReferenceDigest(kSerif, 0, 24, {}, "Hxg"));
  EXPECT_EQ(ftpool_font_give_back(b, fb), FTPOOL_OK);
  ExpectRefused(b, fb);
  ftpool_font_release(a);
  ftpool_font_release(b);
}

INSTANTIATE_TEST_SUITE_P(Backends, GiveBackTest,
                         ::testing::Values(FTPOOL_BACKEND_PER_THREAD,
                                           FTPOOL_BACKEND_SHARED_MUTEX),
                         BackendName);

} // namespace
} // namespace ftpool_test
