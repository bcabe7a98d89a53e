/* SPDX-License-Identifier: MIT */
// Reads ThreadSanitizer's reports in a child's output, for the negative
// controls that, under --config=tsan, must be caught as a data race inside
// FreeType itself, or in a given source file of the library.
#ifndef FTPOOL_TEST_TSAN_REPORT_H
#define FTPOOL_TEST_TSAN_REPORT_H

#include <string>

namespace ftpool_test {

// The summary line of the first "WARNING: ThreadSanitizer: data race" report
// in output in which one of the two accesses is FreeType's own code: the top
// frame of its stack lies in libfreetype. Empty if there is none. Only a
// FreeType built with ThreadSanitizer gives one: TSan sees Debian's only
// where it calls an intercepted libc function (memcpy, free), and the top
// frame is then the interceptor.
std::string FreeTypeRaceSummary(const std::string &output);

// The summary line of the first data race report in output in which a frame
// of one of the two accesses' stacks (not the heap block's, nor a thread's
// creation) lies in the source file named `source` ("lib/glyph_cache.c").
// Empty if there is none.
std::string RaceSummaryIn(const std::string &output, const std::string &source);

} // namespace ftpool_test

#endif
