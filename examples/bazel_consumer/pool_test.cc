// SPDX-License-Identifier: MIT
// GoogleTest against @ftpool//:ftpool, from a workspace that only depends on
// ftpool: the header, the library and FreeType all come through its target.
#include <thread>

#include <gtest/gtest.h>

#include "ftpool.h"

namespace {

const char kFont[] = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf";

TEST(PoolTest, FaceOpenedInOneThreadClosesInAnother) {
  ftpool *pool = nullptr;
  ASSERT_EQ(ftpool_create(nullptr, &pool), FTPOOL_OK);
  FT_Face face = nullptr;
  std::thread opener(
      [&] { ASSERT_EQ(ftpool_open_file(pool, kFont, 0, &face), FTPOOL_OK); });
  opener.join();
  ASSERT_NE(face, nullptr);
  EXPECT_EQ(ftpool_close(pool, face), FTPOOL_OK);
  ftpool_stats stats;
  ASSERT_EQ(ftpool_get_stats(pool, &stats), FTPOOL_OK);
  EXPECT_EQ(stats.faces_open, 0u);
  ftpool_destroy(pool);
}

TEST(PoolTest, MissingFileIsCannotOpen) {
  ftpool *pool = nullptr;
  ASSERT_EQ(ftpool_create(nullptr, &pool), FTPOOL_OK);
  FT_Face face = nullptr;
  EXPECT_EQ(ftpool_open_file(pool, "/nonexistent.ttf", 0, &face),
            FTPOOL_ERR_CANNOT_OPEN);
  ftpool_destroy(pool);
}

TEST(PoolTest, VersionMatchesHeader) {
  EXPECT_STREQ(ftpool_version(), FTPOOL_VERSION_STRING);
}

} // namespace
