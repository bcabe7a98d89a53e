/* SPDX-License-Identifier: MIT */
// The negative controls that AddressSanitizer must catch: a child mode that
// reads a glyph a broken library freed, run again and again, must be
// reported as a heap-use-after-free every time.
#ifndef FTPOOL_TEST_ASAN_CONTROL_H
#define FTPOOL_TEST_ASAN_CONTROL_H

#include <cstdio>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "test/support/child_process.h"

namespace ftpool_test {

// The line of AddressSanitizer's report that names the error, or empty.
inline std::string AsanSummary(const std::string &output) {
  std::istringstream in(output);
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("SUMMARY: AddressSanitizer: ", 0) == 0)
      return line;
  return "";
}

// Runs the child mode `runs` times: each must print `marker` (it got as
// far as the read) and be reported as a heap-use-after-free.
inline void ExpectUseAfterFreeEveryRun(const std::string &mode,
                                       const char *marker, int runs = 3) {
  for (int run = 1; run <= runs; run++) {
    ChildResult child = RunSelf(mode, 60);
    const std::string summary = AsanSummary(child.output);
    EXPECT_NE(summary.find("heap-use-after-free"), std::string::npos)
        << "run " << run << ": no heap-use-after-free reported; "
        << child.Describe();
    EXPECT_NE(child.output.find(marker), std::string::npos)
        << "run " << run << " did not get as far as the read; "
        << child.Describe();
    std::printf("run %d caught: %s\n", run, summary.c_str());
  }
}

// The same mode run once against the library itself: a clean exit, no
// report.
inline void ExpectCleanRun(const std::string &mode) {
  ChildResult child = RunSelf(mode, 60);
  EXPECT_TRUE(child.exited && child.exit_code == 0) << child.Describe();
  EXPECT_EQ(AsanSummary(child.output), "") << child.Describe();
}

} // namespace ftpool_test

#endif
