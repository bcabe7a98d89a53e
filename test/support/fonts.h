/* SPDX-License-Identifier: MIT */
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
// A variable font (one axis, Weight 100-900, 9 named instances), from
// fonts-inter-variable, and a CJK collection (10 faces), from
// fonts-noto-cjk.
extern const char *const kVariable;
extern const char *const kCjk;

// Empty when the font at path can be read; otherwise the one line a test
// fails with, naming the file and the Debian package that has it
// ("install fonts-inter-variable: scripts/setup.sh (... is missing)"), where
// ftpool would only say it cannot open it.
std::string MissingFont(const char *path);

// Fails the current test at once (in a void function, as ASSERT_* do) when
// the font is missing. For the fonts a bare system may lack: kVariable, kCjk.
#define ASSERT_FONT_PRESENT(path)                                              \
  do {                                                                         \
    const std::string missing_font_ = ::ftpool_test::MissingFont(path);        \
    if (!missing_font_.empty())                                                \
      GTEST_FAIL() << missing_font_;                                           \
  } while (0)

// Paths are UTF-8 on every platform.
std::vector<unsigned char> ReadFile(const std::string &path);

// Writes bytes to path, truncating what was there.
bool WriteBytes(const std::string &path,
                const std::vector<unsigned char> &bytes);

// Renames over an existing file, as POSIX rename() does. Windows refuses
// while anyone has the target open (FILE_SHARE_DELETE or not): false then.
bool RenameOver(const std::string &from, const std::string &to);

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

// The same at the face's current size, transform and charmap.
uint64_t RenderDigestAsIs(FT_Face face, const char *text);

// What plain FreeType renders for text from a fresh library and face: the
// font at path, face face_index, design coordinates coords (none if empty),
// pixel_height px. Returns 0 if FreeType failed.
uint64_t ReferenceDigest(const char *path, FT_Long face_index,
                         FT_UInt pixel_height,
                         const std::vector<FT_Fixed> &coords, const char *text);

} // namespace ftpool_test

#endif
