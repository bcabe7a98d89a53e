// SPDX-License-Identifier: MIT
// child_process.h on Windows: no fork, so RunSelf starts this executable
// again with CreateProcess; its output goes to a temporary file.
#ifdef _WIN32
#include "test/support/child_process.h"

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include <windows.h>

#include "test/support/scratch_dir.h"

namespace ftpool_test {

namespace {

LONG WINAPI ExitOnCrash(EXCEPTION_POINTERS *exception) {
  // The exception code (0xC0000005 for an access violation) becomes the
  // exit code; no debugger is started, no dialog shown.
  TerminateProcess(GetCurrentProcess(),
                   exception->ExceptionRecord->ExceptionCode);
  return EXCEPTION_EXECUTE_HANDLER;
}

} // namespace

void PrepareChild() {
  SetErrorMode(SEM_FAILCRITICALERRORS | SEM_NOGPFAULTERRORBOX);
  SetUnhandledExceptionFilter(ExitOnCrash);
}

ChildResult RunSelf(const std::string &mode, int timeout_seconds) {
  ChildResult result;
  wchar_t self[MAX_PATH];
  if (GetModuleFileNameW(nullptr, self, MAX_PATH) == MAX_PATH)
    return result;
  ScratchDir dir;
  const std::filesystem::path log_path =
      std::filesystem::u8path(dir.File("log"));
  SECURITY_ATTRIBUTES inherit = {sizeof inherit, nullptr, TRUE};
  HANDLE log = CreateFileW(log_path.c_str(), GENERIC_WRITE,
                           FILE_SHARE_READ | FILE_SHARE_WRITE, &inherit,
                           CREATE_ALWAYS, FILE_ATTRIBUTE_NORMAL, nullptr);
  if (log == INVALID_HANDLE_VALUE)
    return result;
  STARTUPINFOW startup = {};
  startup.cb = sizeof startup;
  startup.dwFlags = STARTF_USESTDHANDLES;
  startup.hStdOutput = log;
  startup.hStdError = log;
  std::wstring command = L"\"" + std::wstring(self) + L"\" --child=" +
                         std::wstring(mode.begin(), mode.end());
  PROCESS_INFORMATION process;
  BOOL started = CreateProcessW(self, command.data(), nullptr, nullptr, TRUE, 0,
                                nullptr, nullptr, &startup, &process);
  CloseHandle(log);
  if (!started)
    return result;
  CloseHandle(process.hThread);
  if (WaitForSingleObject(process.hProcess, timeout_seconds * 1000) ==
      WAIT_TIMEOUT) {
    TerminateProcess(process.hProcess, 137);
    WaitForSingleObject(process.hProcess, INFINITE);
    result.timed_out = true;
  } else {
    DWORD code = 0;
    GetExitCodeProcess(process.hProcess, &code);
    result.exited = true;
    result.exit_code = static_cast<int>(code);
  }
  CloseHandle(process.hProcess);
  std::ifstream in(log_path);
  result.output.assign(std::istreambuf_iterator<char>(in), {});
  return result;
}

} // namespace ftpool_test

#endif // _WIN32
