// SPDX-License-Identifier: MIT
#include "test/support/scratch_dir.h"

#include <filesystem>
#include <random>
#include <system_error>

namespace ftpool_test {

namespace fs = std::filesystem;

ScratchDir::ScratchDir() {
  std::random_device random;
  for (;;) {
    fs::path dir =
        fs::temp_directory_path() / ("ftpool_" + std::to_string(random()));
    if (fs::create_directory(dir)) {
      path_ = dir.u8string();
      return;
    }
  }
}

ScratchDir::~ScratchDir() {
  std::error_code ignored;
  fs::remove_all(fs::u8path(path_), ignored);
}

} // namespace ftpool_test
