/* SPDX-License-Identifier: MIT */
// Runs this test binary again in a child process with a time limit, for the
// negative controls: runs that are expected to crash, race or hang.
#ifndef FTPOOL_TEST_CHILD_PROCESS_H
#define FTPOOL_TEST_CHILD_PROCESS_H

#include <cstdio>
#include <functional>
#include <string>

namespace ftpool_test {

struct ChildResult {
  bool timed_out = false;
  bool exited = false;
  int exit_code = -1;
  int signal = 0;
  std::string output; // the child's stdout and stderr, for diagnostics
  std::string Describe() const;
};

#ifndef _WIN32
// Forks; the child runs child() (in a copy of this process, threads aside)
// and exits with its result; kills it after timeout_seconds. POSIX only.
ChildResult RunForked(const std::function<int()> &child, int timeout_seconds);
#endif

// GoogleTest's assertions do not reach the parent from a child process: a
// child reports a failed check on stderr and returns 1, its exit code.
#define CHILD_CHECK(cond)                                                      \
  do {                                                                         \
    if (!(cond)) {                                                             \
      std::fprintf(stderr, "child check failed at line %d: %s\n", __LINE__,    \
                   #cond);                                                     \
      return 1;                                                                \
    }                                                                          \
  } while (0)

// Executes this binary again as `binary --child=mode`, which runs the child
// mode registered under that name instead of the tests; kills it after
// timeout_seconds. On Windows a crash is an exit with the exception's code
// (child_process_win32.cc).
ChildResult RunSelf(const std::string &mode, int timeout_seconds);

// Called in the child before its mode runs: on Windows, a crash must end the
// process instead of starting a debugger.
void PrepareChild();

// A child mode returns the child's exit code.
using ChildMain = int (*)();

// Registers a child mode; use at namespace scope:
//   const bool registered = RegisterChildMode("name", &Function);
bool RegisterChildMode(const char *name, ChildMain main);

// Runs the mode named by argv (if any) and returns true with its exit code.
bool RunChildModeFromArgs(int argc, char **argv, int *exit_code);

} // namespace ftpool_test

#endif
