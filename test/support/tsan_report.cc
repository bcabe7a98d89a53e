// SPDX-License-Identifier: MIT
#include "test/support/tsan_report.h"

#include <sstream>

namespace ftpool_test {
namespace {

bool StartsWith(const std::string &s, const char *prefix) {
  return s.rfind(prefix, 0) == 0;
}

// "  Write of size 8 at 0x... by thread T2:", "  Previous atomic read of
// size 4 ...": the line above an access's stack (not "  Location is heap
// block of size ...", "  Thread T1 ... created", "  Mutex M1 created").
bool IsAccess(std::string line) {
  if (!StartsWith(line, "  ") || StartsWith(line, "   "))
    return false;
  line = line.substr(2);
  if (StartsWith(line, "Previous "))
    line = line.substr(9);
  if (StartsWith(line, "atomic ") || StartsWith(line, "Atomic "))
    line = line.substr(7);
  return StartsWith(line, "read of size ") ||
         StartsWith(line, "Read of size ") ||
         StartsWith(line, "write of size ") ||
         StartsWith(line, "Write of size ");
}

} // namespace

std::string FreeTypeRaceSummary(const std::string &output) {
  std::istringstream in(output);
  std::string line, previous;
  bool in_race = false, freetype_access = false;
  while (std::getline(in, line)) {
    if (StartsWith(line, "WARNING: ThreadSanitizer: ")) {
      in_race = StartsWith(line, "WARNING: ThreadSanitizer: data race");
      freetype_access = false;
    } else if (in_race && IsAccess(previous) && StartsWith(line, "    #0 ") &&
               line.find("(libfreetype.so") != std::string::npos) {
      freetype_access = true;
    } else if (in_race && StartsWith(line, "SUMMARY: ThreadSanitizer: ")) {
      if (freetype_access)
        return line;
      in_race = false;
    }
    previous = line;
  }
  return "";
}

std::string RaceSummaryIn(const std::string &output,
                          const std::string &source) {
  std::istringstream in(output);
  std::string line;
  bool in_race = false, in_access = false, found = false;
  const std::string file = " " + source + ":";
  while (std::getline(in, line)) {
    if (StartsWith(line, "WARNING: ThreadSanitizer: ")) {
      in_race = StartsWith(line, "WARNING: ThreadSanitizer: data race");
      in_access = found = false;
    } else if (!in_race) {
      continue;
    } else if (IsAccess(line)) {
      in_access = true;
    } else if (!StartsWith(line, "    #")) {
      in_access = false; // the blank line after a stack, or another header
      if (StartsWith(line, "SUMMARY: ThreadSanitizer: ")) {
        if (found)
          return line;
        in_race = false;
      }
    } else if (in_access && line.find(file) != std::string::npos) {
      found = true;
    }
  }
  return "";
}

} // namespace ftpool_test
