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
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>

namespace ftpool_test {

// Nothing to do: a crash is a signal that the parent sees in waitpid.
void PrepareChild() {}

// Under a user-mode emulator (qemu-user, scripts/cross_check.sh) the
// executable is not one the kernel can run without binfmt_misc, so the child
// is started through the emulator: FTPOOL_TEST_EXEC_WRAPPER is its command,
// words split at spaces, to which the executable and its argument are added.
ChildResult RunSelf(const std::string &mode, int timeout_seconds) {
  std::string arg = "--child=" + mode;
  std::vector<std::string> words;
  if (const char *wrapper = std::getenv("FTPOOL_TEST_EXEC_WRAPPER")) {
    std::istringstream in(wrapper);
    for (std::string word; in >> word;)
      words.push_back(word);
  }
  if (!words.empty()) {
    // The emulator answers for /proc/self/exe with the emulated program.
    char self[4096];
    ssize_t length = readlink("/proc/self/exe", self, sizeof self - 1);
    words.push_back(length > 0 ? std::string(self, length) : "");
    words.push_back(arg);
  }
  std::vector<char *> argv;
  for (std::string &word : words)
    argv.push_back(&word[0]);
  argv.push_back(nullptr);
  return RunForked(
      [&] {
        if (!words.empty())
          execvp(argv[0], argv.data());
        else
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
