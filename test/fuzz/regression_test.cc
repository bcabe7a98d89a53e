// SPDX-License-Identifier: MIT
// Replays the fuzzer's inputs without libFuzzer: every file in
// test/fuzz/regressions/ (crashes the fuzzer found, and hand-made hostile
// fonts), then DejaVu fonts whole, cut short and as a collection. The fuzz
// target aborts on any broken invariant, so "returns 0" is the check; the
// sanitizer builds (--config=asan, tsan, ubsan) add theirs.
#include <dirent.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <gtest/gtest.h>

extern "C" {
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
size_t open_face_fuzzer_faces_opened(void);
}

namespace {

// Bazel runs a test in its runfiles tree, where data files keep their
// workspace paths.
const char kRegressions[] = "test/fuzz/regressions";
const char kDejaVu[] = "/usr/share/fonts/truetype/dejavu/";

using Bytes = std::vector<unsigned char>;

bool Read(const std::string &path, Bytes *bytes) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return false;
  bytes->assign(std::istreambuf_iterator<char>(in), {});
  return !in.bad();
}

std::vector<std::string> RegressionFiles() {
  std::vector<std::string> names;
  if (DIR *dir = opendir(kRegressions)) {
    while (const dirent *entry = readdir(dir)) {
      std::string name = entry->d_name;
      if (name != "." && name != ".." && name != "README.md")
        names.push_back(name);
    }
    closedir(dir);
  }
  std::sort(names.begin(), names.end());
  return names;
}

// Runs one input; says which before, since a broken invariant aborts.
int Replay(const std::string &what, const Bytes &bytes) {
  std::fprintf(stderr, "replaying %s (%zu bytes)\n", what.c_str(),
               bytes.size());
  return LLVMFuzzerTestOneInput(bytes.data(), bytes.size());
}

Bytes DejaVu(const char *name) {
  Bytes bytes;
  const std::string path = std::string(kDejaVu) + name;
  if (!Read(path, &bytes) || bytes.empty())
    ADD_FAILURE() << "cannot read " << path
                  << ": install fonts-dejavu-core (scripts/setup.sh)";
  return bytes;
}

uint32_t Get32(const Bytes &b, size_t at) {
  return uint32_t{b[at]} << 24 | uint32_t{b[at + 1]} << 16 |
         uint32_t{b[at + 2]} << 8 | b[at + 3];
}

void Put32(Bytes *b, size_t at, uint32_t v) {
  for (int i = 0; i < 4; ++i)
    (*b)[at + i] = static_cast<unsigned char>(v >> (24 - 8 * i));
}

// A TrueType collection of whole sfnt fonts: the 'ttcf' header, then each
// font copied at a 4-byte boundary with its table offsets moved by where it
// landed (offsets in a collection count from the start of the file).
Bytes Collection(const std::vector<Bytes> &fonts) {
  Bytes out(12 + 4 * fonts.size());
  Put32(&out, 0, 0x74746366); // 'ttcf'
  Put32(&out, 4, 0x00010000);
  Put32(&out, 8, static_cast<uint32_t>(fonts.size()));
  for (size_t i = 0; i < fonts.size(); ++i) {
    const size_t base = (out.size() + 3) & ~size_t{3};
    out.resize(base);
    Put32(&out, 12 + 4 * i, static_cast<uint32_t>(base));
    out.insert(out.end(), fonts[i].begin(), fonts[i].end());
    const uint32_t tables = uint32_t{fonts[i][4]} << 8 | fonts[i][5];
    for (uint32_t t = 0; t < tables; ++t) {
      const size_t record = base + 12 + 16 * t + 8; // the offset field
      Put32(&out, record, Get32(out, record) + static_cast<uint32_t>(base));
    }
  }
  return out;
}

TEST(FuzzRegression, DirectoryIsNotEmpty) {
  EXPECT_FALSE(RegressionFiles().empty())
      << kRegressions << " holds no inputs (run from the runfiles tree?)";
}

TEST(FuzzRegression, EveryRegressionInput) {
  for (const std::string &name : RegressionFiles()) {
    SCOPED_TRACE(name);
    Bytes bytes;
    ASSERT_TRUE(Read(std::string(kRegressions) + "/" + name, &bytes))
        << "cannot read " << name;
    EXPECT_EQ(0, Replay(name, bytes));
  }
}

// Fonts that open: every step of the target runs, on both backends.
TEST(FuzzRegression, SystemFontsOpen) {
  for (const char *name :
       {"DejaVuSans.ttf", "DejaVuSerif.ttf", "DejaVuSansMono.ttf"}) {
    SCOPED_TRACE(name);
    const Bytes font = DejaVu(name);
    ASSERT_FALSE(font.empty());
    const size_t before = open_face_fuzzer_faces_opened();
    EXPECT_EQ(0, Replay(name, font));
    // Face 0 on the per-thread pool from memory and from a blob, and on
    // the shared-mutex pool.
    EXPECT_EQ(before + 3, open_face_fuzzer_faces_opened());
  }
}

// A collection: face 0 and the last face, both valid.
TEST(FuzzRegression, CollectionOpensFirstAndLastFace) {
  const Bytes sans = DejaVu("DejaVuSans.ttf");
  const Bytes mono = DejaVu("DejaVuSansMono.ttf");
  ASSERT_FALSE(sans.empty() || mono.empty());
  const Bytes ttc = Collection({sans, mono, mono});
  const size_t before = open_face_fuzzer_faces_opened();
  EXPECT_EQ(0, Replay("a collection of 3 DejaVu faces", ttc));
  EXPECT_EQ(before + 6, open_face_fuzzer_faces_opened());
}

// The same fonts cut short at many points, and with bytes flipped.
TEST(FuzzRegression, DamagedSystemFonts) {
  const Bytes sans = DejaVu("DejaVuSans.ttf");
  ASSERT_FALSE(sans.empty());
  for (size_t cut :
       {size_t{1}, size_t{4}, size_t{12}, size_t{13}, size_t{100}, size_t{1000},
        size_t{10000}, sans.size() / 2, sans.size() - 1}) {
    const Bytes prefix(sans.begin(), sans.begin() + cut);
    EXPECT_EQ(0,
              Replay("DejaVuSans.ttf cut at " + std::to_string(cut), prefix));
  }
  const Bytes ttc = Collection({sans, sans});
  const Bytes ttc_prefix(ttc.begin(), ttc.begin() + ttc.size() * 3 / 4);
  EXPECT_EQ(0, Replay("a collection cut in its second face", ttc_prefix));
  // Every table directory record's offset and length set to 0xFFFFFFFF in
  // turn.
  const uint32_t tables = uint32_t{sans[4]} << 8 | sans[5];
  for (uint32_t t = 0; t < tables; ++t) {
    Bytes broken = sans;
    Put32(&broken, 12 + 16 * t + 8 + 4 * (t % 2), 0xFFFFFFFF);
    EXPECT_EQ(0, Replay("DejaVuSans.ttf with table record " +
                            std::to_string(t) + " broken",
                        broken));
  }
}

} // namespace
