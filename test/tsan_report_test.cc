// SPDX-License-Identifier: MIT
// FreeTypeRaceSummary on reports of the shapes ThreadSanitizer prints: the
// negative controls are only as good as this reading of them.
#include <string>

#include <gtest/gtest.h>

#include "test/support/tsan_report.h"

namespace ftpool_test {
namespace {

const char kSeparator[] = "==================\n";

std::string Report(const std::string &kind, const std::string &top_frame,
                   const std::string &previous_top_frame,
                   const std::string &summary) {
  return std::string(kSeparator) + "WARNING: ThreadSanitizer: " + kind +
         " (pid=1)\n"
         "  Read of size 8 at 0x7b0c00001938 by thread T1:\n"
         "    #0 " +
         top_frame +
         "\n"
         "    #1 Close test/stress_test.cc:113 (stress_test+0xddbc)\n"
         "\n"
         "  Previous write of size 8 at 0x7b0c00001938 by thread T2:\n"
         "    #0 " +
         previous_top_frame +
         "\n"
         "    #1 FT_Done_Face src/base/ftobjs.c:2937 "
         "(libfreetype.so.6+0x212f6)\n"
         "\n"
         "  Location is heap block of size 40 at 0x7b0c00001920 allocated "
         "by thread T1:\n"
         "    #0 FT_Stream_Open src/base/ftsystem.c:1 "
         "(libfreetype.so.6+0x1)\n"
         "\n"
         "SUMMARY: ThreadSanitizer: " +
         summary + "\n" + kSeparator;
}

const char kInFreeType[] =
    "FT_List_Remove src/base/ftutil.c:326 (libfreetype.so.6+0x20b41)";
const char kInTest[] = "RenderDigest test/support/fonts.cc:93 "
                       "(libtest_Slibsupport.so+0x6e0c)";
const char kInterceptor[] =
    "free ../../../../src/libsanitizer/tsan/tsan_interceptors_posix.cpp:711 "
    "(libtsan.so.2+0x3f2a1)";

TEST(TsanReportTest, FindsARaceWhoseTopFrameIsInFreeType) {
  std::string output =
      "unprotected run\n" +
      Report("data race", kInTest, kInFreeType,
             "data race test/support/fonts.cc:93 in RenderDigest") +
      Report("data race", kInFreeType, kInFreeType,
             "data race src/base/ftutil.c:326 in FT_List_Remove");
  EXPECT_EQ(FreeTypeRaceSummary(output),
            "SUMMARY: ThreadSanitizer: data race test/support/fonts.cc:93 in "
            "RenderDigest");
}

TEST(TsanReportTest, IgnoresFreeTypeBelowAnInterceptor) {
  // What Debian's uninstrumented FreeType can give: its free() is seen, with
  // FreeType one frame down; and the heap block's stack is no access.
  EXPECT_EQ(
      FreeTypeRaceSummary(Report("data race", kInTest, kInterceptor,
                                 "data race test/support/fonts.cc:93 in X")),
      "");
}

TEST(TsanReportTest, IgnoresOtherReports) {
  EXPECT_EQ(FreeTypeRaceSummary(Report("heap-use-after-free", kInFreeType,
                                       kInFreeType, "heap-use-after-free")),
            "");
  EXPECT_EQ(FreeTypeRaceSummary("Segmentation fault\n"), "");
}

TEST(TsanReportTest, NeedsTheWholeReport) {
  std::string report = Report("data race", kInFreeType, kInFreeType, "x");
  EXPECT_NE(FreeTypeRaceSummary(report), "");
  EXPECT_EQ(FreeTypeRaceSummary(report.substr(0, report.find("SUMMARY"))), "");
}

// RaceSummaryIn, for the glyph cache's control (glyph_stress_test.cc).
TEST(TsanReportTest, FindsARaceWithAnAccessInASourceFile) {
  const std::string report =
      Report("data race", kInTest, kInFreeType, "data race in RenderDigest");
  EXPECT_EQ(RaceSummaryIn(report, "test/stress_test.cc"),
            "SUMMARY: ThreadSanitizer: data race in RenderDigest");
  EXPECT_EQ(RaceSummaryIn(report, "src/base/ftobjs.c"),
            "SUMMARY: ThreadSanitizer: data race in RenderDigest");
  // A whole file name, not a prefix of one.
  EXPECT_EQ(RaceSummaryIn(report, "test/stress_test.c"), "");
}

TEST(TsanReportTest, IgnoresASourceFileOnlyWhereTheBlockWasAllocated) {
  EXPECT_EQ(RaceSummaryIn(Report("data race", kInTest, kInFreeType, "x"),
                          "src/base/ftsystem.c"),
            "");
}

TEST(TsanReportTest, RaceSummaryInIgnoresOtherReportsAndNeedsTheWhole) {
  EXPECT_EQ(RaceSummaryIn(Report("heap-use-after-free", kInTest, kInFreeType,
                                 "heap-use-after-free"),
                          "test/stress_test.cc"),
            "");
  std::string report = Report("data race", kInTest, kInFreeType, "x");
  EXPECT_EQ(RaceSummaryIn(report.substr(0, report.find("SUMMARY")),
                          "test/stress_test.cc"),
            "");
}

} // namespace
} // namespace ftpool_test
