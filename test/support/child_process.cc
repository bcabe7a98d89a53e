// SPDX-License-Identifier: MIT
#include "test/support/child_process.h"

#include <cstdio>
#include <map>
#include <string>

namespace ftpool_test {

std::string ChildResult::Describe() const {
  std::string d;
  if (timed_out)
    d = "killed after its time limit";
  else if (exited)
    d = "exited with code " + std::to_string(exit_code);
  else
    d = "died of signal " + std::to_string(signal);
  return d + "; output tail:\n" +
         output.substr(output.size() > 2000 ? output.size() - 2000 : 0);
}

namespace {

std::map<std::string, ChildMain> &Modes() {
  static std::map<std::string, ChildMain> modes;
  return modes;
}

} // namespace

bool RegisterChildMode(const char *name, ChildMain main) {
  Modes()[name] = main;
  return true;
}

bool RunChildModeFromArgs(int argc, char **argv, int *exit_code) {
  const std::string prefix = "--child=";
  if (argc != 2 || std::string(argv[1]).rfind(prefix, 0) != 0)
    return false;
  auto mode = Modes().find(std::string(argv[1]).substr(prefix.size()));
  if (mode == Modes().end()) {
    std::fprintf(stderr, "unknown child mode %s\n", argv[1]);
    *exit_code = 2;
    return true;
  }
  PrepareChild();
  *exit_code = mode->second();
  return true;
}

} // namespace ftpool_test
