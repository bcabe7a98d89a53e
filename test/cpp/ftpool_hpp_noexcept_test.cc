// ftpool.hpp built with -fno-exceptions: the try_ functions alone.
#include <gtest/gtest.h>

#include "ftpool.hpp"

namespace {

const char kSans[] = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf";

TEST(NoExceptionsTest, TryFunctionsReportStatuses) {
  ftpool_cpp::Pool pool;
  ASSERT_EQ(ftpool_cpp::Pool::try_create(nullptr, pool), FTPOOL_OK);
  ftpool_cpp::Face face;
  EXPECT_EQ(pool.try_open_file("/nonexistent/font.ttf", 0, face),
            FTPOOL_ERR_CANNOT_OPEN);
  ASSERT_EQ(pool.try_open_file(kSans, 0, face), FTPOOL_OK);
  EXPECT_STREQ(face->family_name, "DejaVu Sans");
  EXPECT_EQ(face.reset(), FTPOOL_OK);
  EXPECT_EQ(pool.stats().faces_open, 0u);
}

} // namespace
