// SPDX-License-Identifier: MIT
// Which FreeType a test binary loads. Under --config=tsan it must be the
// build of scripts/freetype_tsan.sh, whose code calls into ThreadSanitizer:
// were it Debian's, TSan would be blind inside FreeType again and the
// negative controls caught by luck, if at all. In every other build it must
// be Debian's, uninstrumented, as for any user of ftpool.
#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <elf.h>
#include <link.h>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <ft2build.h>
#include FT_FREETYPE_H

namespace ftpool_test {
namespace {

int CollectFreeType(dl_phdr_info *info, size_t, void *data) {
  std::string name = info->dlpi_name;
  std::string base = name.substr(name.rfind('/') + 1);
  if (base.rfind("libfreetype.so", 0) == 0)
    static_cast<std::vector<std::string> *>(data)->push_back(name);
  return 0;
}

// The libfreetype objects loaded in this process, as the loader named them.
std::vector<std::string> LoadedFreeTypes() {
  std::vector<std::string> paths;
  dl_iterate_phdr(CollectFreeType, &paths);
  return paths;
}

std::vector<unsigned char> Contents(const char *path) {
  std::vector<unsigned char> bytes;
  if (FILE *f = std::fopen(path, "rb")) {
    unsigned char buffer[1 << 16];
    size_t n;
    while ((n = std::fread(buffer, 1, sizeof buffer, f)) > 0)
      bytes.insert(bytes.end(), buffer, buffer + n);
    std::fclose(f);
  }
  return bytes;
}

// The symbols a 64-bit ELF file imports: in its dynamic symbol table,
// undefined.
std::set<std::string> Imports(const char *path) {
  const std::vector<unsigned char> file = Contents(path);
  std::set<std::string> imports;
  auto at = [&](uint64_t offset, uint64_t size) -> const unsigned char * {
    return offset <= file.size() && size <= file.size() - offset
               ? file.data() + offset
               : nullptr;
  };
  const auto *header =
      reinterpret_cast<const Elf64_Ehdr *>(at(0, sizeof(Elf64_Ehdr)));
  if (!header || std::memcmp(header->e_ident, ELFMAG, SELFMAG) != 0 ||
      header->e_ident[EI_CLASS] != ELFCLASS64)
    return imports;
  auto section = [&](unsigned i) {
    return reinterpret_cast<const Elf64_Shdr *>(
        i < header->e_shnum
            ? at(header->e_shoff + uint64_t{i} * sizeof(Elf64_Shdr),
                 sizeof(Elf64_Shdr))
            : nullptr);
  };
  for (unsigned i = 0; i < header->e_shnum; ++i) {
    const Elf64_Shdr *symbols = section(i);
    if (!symbols || symbols->sh_type != SHT_DYNSYM)
      continue;
    const Elf64_Shdr *strings = section(symbols->sh_link);
    if (!strings || !at(strings->sh_offset, strings->sh_size))
      continue;
    const char *names =
        reinterpret_cast<const char *>(file.data() + strings->sh_offset);
    for (uint64_t s = 0; s < symbols->sh_size / sizeof(Elf64_Sym); ++s) {
      const auto *sym = reinterpret_cast<const Elf64_Sym *>(
          at(symbols->sh_offset + s * sizeof(Elf64_Sym), sizeof(Elf64_Sym)));
      if (!sym || sym->st_shndx != SHN_UNDEF ||
          sym->st_name >= strings->sh_size)
        continue;
      const char *name = names + sym->st_name;
      imports.emplace(name, strnlen(name, strings->sh_size - sym->st_name));
    }
  }
  return imports;
}

TEST(LoadedFreeTypeTest, IsTheOneThisBuildNeeds) {
  FT_Library library;
  ASSERT_EQ(FT_Init_FreeType(&library), 0);
  FT_Int major, minor, patch;
  FT_Library_Version(library, &major, &minor, &patch);
  FT_Done_FreeType(library);
  // The headers compiled against are the library's own version.
  EXPECT_EQ(major, FREETYPE_MAJOR);
  EXPECT_EQ(minor, FREETYPE_MINOR);
  EXPECT_EQ(patch, FREETYPE_PATCH);

  const std::vector<std::string> loaded = LoadedFreeTypes();
  ASSERT_EQ(loaded.size(), 1u) << "not exactly one libfreetype loaded";
  char real[PATH_MAX];
  ASSERT_NE(realpath(loaded[0].c_str(), real), nullptr) << loaded[0];
  const bool from_debian = std::string(real).rfind("/usr/", 0) == 0;
  const std::set<std::string> imports = Imports(real);
  // Every FreeType imports malloc: the reading itself works.
  EXPECT_EQ(imports.count("malloc"), 1u) << real;
  const bool instrumented = imports.count("__tsan_func_entry") == 1;
  std::printf("loaded %s (%s): FreeType %d.%d.%d, %s\n", loaded[0].c_str(),
              real, major, minor, patch,
              instrumented ? "instrumented for ThreadSanitizer"
                           : "not instrumented");
#ifdef __SANITIZE_THREAD__
  EXPECT_TRUE(instrumented) << real << " does not call into ThreadSanitizer;"
                            << " run scripts/freetype_tsan.sh";
  EXPECT_FALSE(from_debian) << real;
#else
  EXPECT_FALSE(instrumented) << real;
  EXPECT_TRUE(from_debian) << real;
#endif
}

} // namespace
} // namespace ftpool_test
