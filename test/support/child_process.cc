#include "test/support/child_process.h"

#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <fcntl.h>
#include <fstream>
#include <iterator>
#include <map>
#include <string>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

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
  *exit_code = mode->second();
  return true;
}

} // namespace ftpool_test
