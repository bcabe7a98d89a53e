// The system fonts the tests use, and a deterministic rendering digest.
#ifndef FTPOOL_TEST_FONTS_H
#define FTPOOL_TEST_FONTS_H

#include <cstdint>
#include <string>
#include <vector>

#include <ft2build.h>
#include FT_FREETYPE_H

namespace ftpool_test {

// DejaVu fonts from Debian's fonts-dejavu-core.
extern const char *const kSans;
extern const char *const kSerif;
extern const char *const kMono;

std::vector<unsigned char> ReadFile(const std::string &path);

// Writes bytes to path through a temporary file and a rename, so a reader
// sees the old file or the new one, never a mix.
bool ReplaceFile(const std::string &path,
                 const std::vector<unsigned char> &bytes);

// A TrueType collection (.ttc) holding the given TrueType fonts, in order.
std::vector<unsigned char>
MakeCollection(const std::vector<std::vector<unsigned char>> &fonts);

// Sets a 24 px size, renders every character of text and hashes the
// bitmaps and their placement. Returns 0 if FreeType failed.
uint64_t RenderDigest(FT_Face face, const char *text);

} // namespace ftpool_test

#endif
