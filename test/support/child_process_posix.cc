// SPDX-License-Identifier: MIT
// child_process.h on POSIX: fork, and exec of /proc/self/exe.
#ifndef _WIN32
#include "test/support/child_process.h"

#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

namespace ftpool_test {

// Nothing to do: a crash is a signal that the parent sees in waitpid.
void PrepareChild() {}

ChildResult RunSelf(const std::string &mode, int timeout_seconds) {
  std::string arg = "--child=" + mode;
  return RunForked(
      [&] {
        execl("/proc/self/exe", "child", arg.c_str(),
              static_cast<char *>(nullptr));
        return 127;
      },
      timeout_seconds);
}

ChildResult RunForked(const std::function<int()> &child, int timeout_seconds) {
  char log_path[] = "/tmp/ftpool_child_XXXXXX";
  int log = mkstemp(log_path);
  ChildResult result;
  if (log < 0)
    return result;
  pid_t pid = fork();
  if (pid == 0) {
    dup2(log, 1);
    dup2(log, 2);
    int code = child();
    std::fflush(nullptr);
    _exit(code);
  }
  close(log);
  auto deadline =
      std::chrono::steady_clock::now() + std::chrono::seconds(timeout_seconds);
  int status = 0;
  for (;;) {
    pid_t done = waitpid(pid, &status, WNOHANG);
    if (done == pid)
      break;
    if (std::chrono::steady_clock::now() > deadline) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      result.timed_out = true;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  if (!result.timed_out) {
    result.exited = WIFEXITED(status);
    result.exit_code = result.exited ? WEXITSTATUS(status) : -1;
    result.signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
  }
  std::ifstream in(log_path);
  result.output.assign(std::istreambuf_iterator<char>(in), {});
  unlink(log_path);
  return result;
}

} // namespace ftpool_test

#endif // !_WIN32
