// SPDX-License-Identifier: MIT
#include "test/support/fonts.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>

#include FT_MULTIPLE_MASTERS_H
#ifdef _WIN32
#include <windows.h>
#undef ReplaceFile // a Win32 macro, not ours
#endif

namespace ftpool_test {

const char *const kSans = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf";
const char *const kSerif = "/usr/share/fonts/truetype/dejavu/DejaVuSerif.ttf";
const char *const kMono = "/usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf";
const char *const kVariable =
    "/usr/share/fonts/truetype/inter-vf/Inter-roman.var.ttf";
const char *const kCjk =
    "/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc";

namespace fs = std::filesystem;

std::string MissingFont(const char *path) {
  if (std::ifstream(fs::u8path(path), std::ios::binary).good())
    return "";
  struct Known {
    const char *path, *package;
  };
  static const Known kKnown[] = {
      {kSans, "fonts-dejavu-core"}, {kSerif, "fonts-dejavu-core"},
      {kMono, "fonts-dejavu-core"}, {kVariable, "fonts-inter-variable"},
      {kCjk, "fonts-noto-cjk"},
  };
  const char *package = "its package";
  for (const Known &k : kKnown)
    if (std::string(k.path) == path)
      package = k.package;
  return std::string("install ") + package + ": scripts/setup.sh (" + path +
         " is missing)";
}

std::vector<unsigned char> ReadFile(const std::string &path) {
  std::ifstream in(fs::u8path(path), std::ios::binary);
  return std::vector<unsigned char>(std::istreambuf_iterator<char>(in), {});
}

bool WriteBytes(const std::string &path,
                const std::vector<unsigned char> &bytes) {
  std::ofstream out(fs::u8path(path), std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char *>(bytes.data()),
            static_cast<std::streamsize>(bytes.size()));
  return static_cast<bool>(out);
}

bool RenameOver(const std::string &from, const std::string &to) {
#ifdef _WIN32
  return MoveFileExW(fs::u8path(from).c_str(), fs::u8path(to).c_str(),
                     MOVEFILE_REPLACE_EXISTING);
#else
  return std::rename(from.c_str(), to.c_str()) == 0;
#endif
}

bool ReplaceFile(const std::string &path,
                 const std::vector<unsigned char> &bytes) {
  const std::string temporary = path + ".new";
  return WriteBytes(temporary, bytes) && RenameOver(temporary, path);
}

namespace {

uint32_t Get32(const std::vector<unsigned char> &b, size_t at) {
  return uint32_t{b[at]} << 24 | uint32_t{b[at + 1]} << 16 |
         uint32_t{b[at + 2]} << 8 | b[at + 3];
}

void Put32(std::vector<unsigned char> &b, size_t at, uint32_t v) {
  for (int i = 0; i < 4; ++i)
    b[at + i] = static_cast<unsigned char>(v >> (24 - 8 * i));
}

} // namespace

std::vector<unsigned char>
MakeCollection(const std::vector<std::vector<unsigned char>> &fonts) {
  // 'ttcf', version 1.0, the number of fonts, then each font's offset. A
  // font's table offsets count from the start of the collection, so each
  // font is copied whole and its table records moved by where it lands.
  std::vector<unsigned char> out(12 + 4 * fonts.size());
  Put32(out, 0, 0x74746366);
  Put32(out, 4, 0x00010000);
  Put32(out, 8, static_cast<uint32_t>(fonts.size()));
  for (size_t i = 0; i < fonts.size(); ++i) {
    size_t base = (out.size() + 3) & ~size_t{3};
    out.resize(base);
    Put32(out, 12 + 4 * i, static_cast<uint32_t>(base));
    out.insert(out.end(), fonts[i].begin(), fonts[i].end());
    uint32_t tables = uint32_t{fonts[i][4]} << 8 | fonts[i][5];
    for (uint32_t t = 0; t < tables; ++t) {
      size_t record = base + 12 + 16 * t;
      Put32(out, record + 8,
            Get32(out, record + 8) + static_cast<uint32_t>(base));
    }
  }
  return out;
}

namespace {

uint64_t Mix(uint64_t h, uint64_t v) {
  return (h ^ v) * 0x100000001b3ULL; // FNV-1a step
}

} // namespace

uint64_t RenderDigest(FT_Face face, const char *text) {
  if (FT_Set_Pixel_Sizes(face, 0, 24))
    return 0;
  return RenderDigestAsIs(face, text);
}

uint64_t ReferenceDigest(const char *path, FT_Long face_index,
                         FT_UInt pixel_height,
                         const std::vector<FT_Fixed> &coords,
                         const char *text) {
  FT_Library library;
  if (FT_Init_FreeType(&library))
    return 0;
  uint64_t digest = 0;
  FT_Face face;
  if (!FT_New_Face(library, path, face_index, &face)) {
    if ((coords.empty() || !FT_Set_Var_Design_Coordinates(
                               face, static_cast<FT_UInt>(coords.size()),
                               const_cast<FT_Fixed *>(coords.data()))) &&
        !FT_Set_Pixel_Sizes(face, 0, pixel_height))
      digest = RenderDigestAsIs(face, text);
    FT_Done_Face(face);
  }
  FT_Done_FreeType(library);
  return digest;
}

uint64_t RenderDigestAsIs(FT_Face face, const char *text) {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (const char *p = text; *p; ++p) {
    if (FT_Load_Char(face, static_cast<unsigned char>(*p), FT_LOAD_RENDER))
      return 0;
    const FT_GlyphSlot g = face->glyph;
    const FT_Bitmap &b = g->bitmap;
    h = Mix(h, b.rows);
    h = Mix(h, b.width);
    h = Mix(h, static_cast<uint64_t>(g->bitmap_left));
    h = Mix(h, static_cast<uint64_t>(g->bitmap_top));
    h = Mix(h, static_cast<uint64_t>(g->advance.x));
    for (unsigned row = 0; row < b.rows; ++row)
      for (unsigned col = 0; col < b.width; ++col)
        h = Mix(h, b.buffer[row * b.pitch + col]);
  }
  return h;
}

} // namespace ftpool_test
