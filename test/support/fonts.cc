#include "test/support/fonts.h"

#include <fstream>
#include <iterator>

namespace ftpool_test {

const char *const kSans = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf";
const char *const kSerif = "/usr/share/fonts/truetype/dejavu/DejaVuSerif.ttf";
const char *const kMono = "/usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf";

std::vector<unsigned char> ReadFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  return std::vector<unsigned char>(std::istreambuf_iterator<char>(in), {});
}

namespace {

uint64_t Mix(uint64_t h, uint64_t v) {
  return (h ^ v) * 0x100000001b3ULL; // FNV-1a step
}

} // namespace

uint64_t RenderDigest(FT_Face face, const char *text) {
  if (FT_Set_Pixel_Sizes(face, 0, 24))
    return 0;
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
