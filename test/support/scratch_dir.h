/* SPDX-License-Identifier: MIT */
// A fresh directory under the system's temporary directory, removed with
// its files; portable (std::filesystem), paths in UTF-8.
#ifndef FTPOOL_TEST_SCRATCH_DIR_H
#define FTPOOL_TEST_SCRATCH_DIR_H

#include <string>

namespace ftpool_test {

class ScratchDir {
public:
  ScratchDir();
  ~ScratchDir();
  ScratchDir(const ScratchDir &) = delete;
  ScratchDir &operator=(const ScratchDir &) = delete;

  const std::string &path() const { return path_; }
  std::string File(const std::string &name) const { return path_ + "/" + name; }

private:
  std::string path_;
};

} // namespace ftpool_test

#endif
