// HarfBuzz shaping on pool faces in 8 threads, several rounds, with faces
// closed by their own thread, by a neighbour while the opener lives, and by
// the main thread after the opener exited: every run must equal the
// single-threaded one, glyph ids and positions alike.
#include <condition_variable>
#include <cstddef>
#include <memory>
#include <mutex>
#include <ostream>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include <gtest/gtest.h>
#include <hb-ft.h>
#include <hb.h>

#include "ftpool.hpp"

namespace {

const char kSans[] = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf";
constexpr int kThreads = 8;
constexpr int kRounds = 4;

const char kParagraph[] =
    "The office staff affirmed that the final workflow was efficient. "
    "AVATAR WAVE: To Tyre, Ty Yoke, LT VA. "
    "Caf\u00e9 na\u00efve fa\u00e7ade, r\u00e9sum\u00e9, \u00c5ngstr\u00f6m.";

struct Glyph {
  unsigned id, cluster;
  int x_advance, y_advance, x_offset, y_offset;

  bool operator==(const Glyph &other) const {
    return std::tie(id, cluster, x_advance, y_advance, x_offset, y_offset) ==
           std::tie(other.id, other.cluster, other.x_advance, other.y_advance,
                    other.x_offset, other.y_offset);
  }
};

std::ostream &operator<<(std::ostream &out, const Glyph &g) {
  return out << "gid" << g.id << "=" << g.cluster << "+" << g.x_advance << ","
             << g.y_advance << "@" << g.x_offset << "," << g.y_offset;
}

struct FontDeleter {
  void operator()(hb_font_t *font) const { hb_font_destroy(font); }
};
struct BufferDeleter {
  void operator()(hb_buffer_t *buffer) const { hb_buffer_destroy(buffer); }
};

// Shapes kParagraph at 16 px. The font is destroyed before this returns, so
// HarfBuzz's reference to the face is dropped on the face's thread.
std::vector<Glyph> Shape(FT_Face face) {
  EXPECT_EQ(FT_Set_Pixel_Sizes(face, 0, 16), 0);
  std::unique_ptr<hb_font_t, FontDeleter> font(
      hb_ft_font_create_referenced(face));
  std::unique_ptr<hb_buffer_t, BufferDeleter> buffer(hb_buffer_create());
  hb_buffer_add_utf8(buffer.get(), kParagraph, -1, 0, -1);
  hb_buffer_guess_segment_properties(buffer.get());
  hb_shape(font.get(), buffer.get(), nullptr, 0);

  unsigned count;
  const hb_glyph_info_t *info = hb_buffer_get_glyph_infos(buffer.get(), &count);
  const hb_glyph_position_t *pos =
      hb_buffer_get_glyph_positions(buffer.get(), nullptr);
  std::vector<Glyph> glyphs;
  for (unsigned i = 0; i < count; i++)
    glyphs.push_back({info[i].codepoint, info[i].cluster, pos[i].x_advance,
                      pos[i].y_advance, pos[i].x_offset, pos[i].y_offset});
  return glyphs;
}

// Shaped on a face of a plain FT_Library, outside any pool.
std::vector<Glyph> ReferenceRun() {
  FT_Library library;
  FT_Face face;
  EXPECT_EQ(FT_Init_FreeType(&library), 0);
  EXPECT_EQ(FT_New_Face(library, kSans, 0, &face), 0);
  std::vector<Glyph> glyphs = Shape(face);
  FT_Done_FreeType(library);
  return glyphs;
}

// Single use: every thread waits until all have arrived.
class Latch {
public:
  explicit Latch(int count) : count_(count) {}
  void ArriveAndWait() {
    std::unique_lock<std::mutex> lock(mutex_);
    if (--count_ == 0)
      arrived_.notify_all();
    arrived_.wait(lock, [this] { return count_ == 0; });
  }

private:
  std::mutex mutex_;
  std::condition_variable arrived_;
  int count_;
};

class HarfBuzzTest : public ::testing::TestWithParam<ftpool_backend> {};

TEST_P(HarfBuzzTest, ThreadsShapeLikeOneThread) {
  const std::vector<Glyph> reference = ReferenceRun();
  ASSERT_FALSE(reference.empty());
  for (const Glyph &glyph : reference)
    ASSERT_NE(glyph.id, 0u) << "a character DejaVu Sans lacks";

  ftpool_config config;
  ftpool_config_init(&config);
  config.backend = GetParam();
  ftpool_cpp::Pool pool = ftpool_cpp::Pool::create(&config);
  ftpool_cpp::Blob blob = pool.blob_from_file(kSans);

  for (int round = 0; round < kRounds; round++) {
    std::vector<Glyph> runs[kThreads];
    ftpool_cpp::Face to_neighbour[kThreads];
    std::vector<ftpool_cpp::Face> to_main(kThreads);
    Latch handed(kThreads), closed(kThreads);
    std::vector<std::thread> threads;
    for (int i = 0; i < kThreads; i++) {
      threads.emplace_back([&, i] {
        ftpool_cpp::Face face =
            i % 2 ? pool.open_file(kSans) : pool.open_blob(blob);
        runs[i] = Shape(face.get());
        // Thread i % 3 == 0 closes its own face when `face` goes away.
        if (i % 3 == 1)
          to_neighbour[(i + 1) % kThreads] = std::move(face);
        else if (i % 3 == 2)
          to_main[i] = std::move(face);
        handed.ArriveAndWait();
        to_neighbour[i].reset(); // its opener is alive: handed back to it
        closed.ArriveAndWait();
      });
    }
    for (std::thread &thread : threads)
      thread.join();
    to_main.clear(); // their openers have exited

    ftpool_stats stats = pool.stats();
    EXPECT_EQ(stats.faces_open, 0u) << "round " << round;
    EXPECT_EQ(stats.faces_opened,
              static_cast<std::size_t>(round + 1) * kThreads);
    for (int i = 0; i < kThreads; i++)
      EXPECT_EQ(runs[i], reference) << "round " << round << ", thread " << i;
  }
  if (GetParam() == FTPOOL_BACKEND_PER_THREAD) {
    EXPECT_GT(pool.stats().closes_deferred, 0u);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Backends, HarfBuzzTest,
    ::testing::Values(FTPOOL_BACKEND_PER_THREAD, FTPOOL_BACKEND_SHARED_MUTEX),
    [](const ::testing::TestParamInfo<ftpool_backend> &p) {
      return std::string(p.param == FTPOOL_BACKEND_PER_THREAD ? "PerThread"
                                                              : "SharedMutex");
    });

} // namespace
