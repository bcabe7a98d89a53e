// SPDX-License-Identifier: MIT
// ftpool_version is how a program notices it runs against another build of
// the shared library, so it must agree with the header it was built from.
#include <string>

#include <gtest/gtest.h>

#include "ftpool.h"

namespace {

TEST(VersionTest, LinkedLibraryMatchesHeader) {
  EXPECT_STREQ(ftpool_version(), FTPOOL_VERSION_STRING);
}

TEST(VersionTest, StringSpellsTheNumbers) {
  std::string expected = std::to_string(FTPOOL_VERSION_MAJOR) + "." +
                         std::to_string(FTPOOL_VERSION_MINOR) + "." +
                         std::to_string(FTPOOL_VERSION_PATCH);
  EXPECT_EQ(FTPOOL_VERSION_STRING, expected);
}

} // namespace
