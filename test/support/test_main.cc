// SPDX-License-Identifier: MIT
// GoogleTest's main, except that `--child=mode` runs a registered child mode
// (see child_process.h) instead of the tests.
#include <gtest/gtest.h>

#include "test/support/child_process.h"

int main(int argc, char **argv) {
  int exit_code;
  if (ftpool_test::RunChildModeFromArgs(argc, argv, &exit_code))
    return exit_code;
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
