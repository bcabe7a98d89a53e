// SPDX-License-Identifier: MIT
// Which eviction policy for the pool-wide glyph cache: a trace-driven
// simulation of LRU, CLOCK, SIEVE (NSDI'24) and S3-FIFO (SOSP'23), byte
// budgeted, on a Latin and a CJK workload (docs/benchmarks.md, "Glyph cache:
// eviction policy"). An item is a glyph at a size; its cost is what the cache
// would charge: a 160-byte record plus rows * |pitch| of the bitmap FreeType
// renders (FT_LOAD_RENDER, default flags) at that size, from the real fonts.
// A miss evicts until the new glyph fits. Budgets 16 KiB (well below Latin's
// footprint of 66 KiB, which 64 KiB barely misses) to 16 MiB. Each
// policy's hand-computed self-check runs first; a mismatch aborts.
//
// Workloads (deterministic: splitmix64, fixed seeds):
//   latin  English paragraphs (below; public domain, written from memory, so
//          the wording may differ from the editions), DejaVu Sans. Paragraphs
//          are drawn uniformly (seed 1), each at 16 px (70%), 24 px (20%) or
//          36 px (10%, headings), every character one access (spaces too: the
//          cache holds them, with an empty bitmap), until 1e6 accesses.
//   cjk    Noto Sans CJK Regular (face 0). The 3,500 characters are a fixed
//          pseudo-random pick (Fisher-Yates, seed 3) of the code points in
//          U+4E00..U+9FFF that the font maps; their order in the pick is the
//          frequency rank, drawn from a Zipf law with exponent 1.0 (seed 2):
//          the top 1,000 cover 86% of the text, near real Chinese (~90%).
//          Paragraphs of 50-300 characters, each at 24 px or 16 px (half
//          each), until 1e6 accesses. No punctuation.
// Usage: cache_policy [LATIN_FONT [CJK_FONT]]
#include <ft2build.h>
#include FT_FREETYPE_H

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <list>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace {

constexpr uint32_t kRecordBytes = 160;
constexpr size_t kAccesses = 1000000;

const char *const kEnglish[] = {
    "Chapter I. Loomings",
    "Call me Ishmael. Some years ago -- never mind how long precisely -- "
    "having little or no money in my purse, and nothing particular to "
    "interest me on shore, I thought I would sail about a little and see the "
    "watery part of the world. It is a way I have of driving off the spleen "
    "and regulating the circulation.",
    "It is a truth universally acknowledged, that a single man in possession "
    "of a good fortune, must be in want of a wife. However little known the "
    "feelings or views of such a man may be on his first entering a "
    "neighbourhood, this truth is so well fixed in the minds of the "
    "surrounding families, that he is considered the rightful property of "
    "some one or other of their daughters.",
    "\"My dear Mr. Bennet,\" said his lady to him one day, \"have you heard "
    "that Netherfield Park is let at last?\" Mr. Bennet replied that he had "
    "not. \"But it is,\" returned she; \"for Mrs. Long has just been here, "
    "and she told me all about it.\" Mr. Bennet made no answer.",
    "It was the best of times, it was the worst of times, it was the age of "
    "wisdom, it was the age of foolishness, it was the epoch of belief, it "
    "was the epoch of incredulity, it was the season of Light, it was the "
    "season of Darkness, it was the spring of hope, it was the winter of "
    "despair, we had everything before us, we had nothing before us, we were "
    "all going direct to Heaven, we were all going direct the other way.",
    "Chapter 1. Down the Rabbit-Hole (1865)",
    "Alice was beginning to get very tired of sitting by her sister on the "
    "bank, and of having nothing to do: once or twice she had peeped into "
    "the book her sister was reading, but it had no pictures or "
    "conversations in it, \"and what is the use of a book,\" thought Alice, "
    "\"without pictures or conversations?\"",
    "To Sherlock Holmes she is always THE woman. I have seldom heard him "
    "mention her under any other name. In his eyes she eclipses and "
    "predominates the whole of her sex. It was not that he felt any emotion "
    "akin to love for Irene Adler. All emotions, and that one particularly, "
    "were abhorrent to his cold, precise but admirably balanced mind.",
    "Four score and seven years ago our fathers brought forth on this "
    "continent, a new nation, conceived in Liberty, and dedicated to the "
    "proposition that all men are created equal. (Gettysburg, 19 November "
    "1863; 272 words.)",
};

uint64_t Next(uint64_t &state) { // splitmix64
  uint64_t z = (state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}
double Uniform(uint64_t &state) { return (Next(state) >> 11) * 0x1p-53; }

void Fail(const char *what) {
  std::fprintf(stderr, "cache_policy: %s\n", what);
  std::exit(1);
}

// A trace: accesses to dense item ids, and each item's cost in bytes.
struct Trace {
  std::vector<uint32_t> ids, cost;
  std::unordered_map<uint64_t, uint32_t> index; // (font size << 32 | glyph)
  void Access(FT_Face face, FT_UInt px, FT_UInt glyph) {
    const uint64_t key = (uint64_t)px << 32 | glyph;
    auto it = index.find(key);
    if (it == index.end()) {
      if (FT_Set_Pixel_Sizes(face, 0, px) ||
          FT_Load_Glyph(face, glyph, FT_LOAD_RENDER))
        Fail("cannot render a glyph");
      const FT_Bitmap &b = face->glyph->bitmap;
      cost.push_back(kRecordBytes + b.rows * (uint32_t)std::abs(b.pitch));
      it = index.emplace(key, (uint32_t)cost.size() - 1).first;
    }
    ids.push_back(it->second);
  }
};

Trace Latin(FT_Face face) {
  Trace t;
  uint64_t rng = 1;
  const size_t n = sizeof kEnglish / sizeof kEnglish[0];
  while (t.ids.size() < kAccesses) {
    const char *p = kEnglish[Next(rng) % n];
    const double r = Uniform(rng);
    const FT_UInt px = r < 0.7 ? 16 : r < 0.9 ? 24 : 36;
    for (; *p; ++p)
      t.Access(face, px, FT_Get_Char_Index(face, (unsigned char)*p));
  }
  return t;
}

Trace Cjk(FT_Face face) {
  std::vector<FT_UInt> glyphs; // mapped ideographs, then shuffled
  for (FT_ULong c = 0x4E00; c <= 0x9FFF; ++c)
    if (FT_UInt g = FT_Get_Char_Index(face, c))
      glyphs.push_back(g);
  uint64_t rng = 3;
  for (size_t i = glyphs.size() - 1; i > 0; --i)
    std::swap(glyphs[i], glyphs[Next(rng) % (i + 1)]);
  constexpr size_t kChars = 3500;
  if (glyphs.size() < kChars)
    Fail("the CJK font maps too few ideographs");
  std::vector<double> cdf(kChars);
  double sum = 0;
  for (size_t r = 0; r < kChars; ++r)
    cdf[r] = sum += 1.0 / (r + 1); // Zipf, exponent 1.0
  Trace t;
  rng = 2;
  while (t.ids.size() < kAccesses) {
    const FT_UInt px = Next(rng) % 2 ? 24 : 16;
    for (int len = 50 + Next(rng) % 251; len > 0; --len) {
      const double u = Uniform(rng) * sum;
      const size_t r =
          std::upper_bound(cdf.begin(), cdf.end(), u) - cdf.begin();
      t.Access(face, px, glyphs[std::min(r, kChars - 1)]);
    }
  }
  return t;
}

using Queue = std::list<uint32_t>;

// A byte-budgeted cache's bookkeeping; Access returns whether it hit.
// write_hits counts hits that write the policy's shared state.
class Policy {
public:
  Policy(const std::vector<uint32_t> &cost, uint64_t budget)
      : cost_(cost), budget_(budget), pos_(cost.size()), in_(cost.size()) {}
  virtual ~Policy() = default;
  virtual bool Access(uint32_t id) = 0;
  bool Has(uint32_t id) const { return in_[id]; }
  uint64_t write_hits = 0;

protected:
  bool Fits(uint32_t id) const { return used_ + cost_[id] <= budget_; }
  void Add(Queue &q, Queue::iterator at, uint32_t id) {
    pos_[id] = q.insert(at, id);
    in_[id] = 1;
    used_ += cost_[id];
  }
  Queue::iterator Remove(Queue &q, Queue::iterator at) {
    in_[*at] = 0;
    used_ -= cost_[*at];
    return q.erase(at);
  }
  const std::vector<uint32_t> &cost_;
  const uint64_t budget_;
  uint64_t used_ = 0;
  std::vector<Queue::iterator> pos_;
  std::vector<char> in_;
};

// Exact LRU: every hit moves the glyph to the head (under a lock, in a cache).
class Lru : public Policy {
public:
  using Policy::Policy;
  bool Access(uint32_t id) override {
    if (in_[id]) {
      ++write_hits;
      q_.splice(q_.begin(), q_, pos_[id]);
      return true;
    }
    while (!Fits(id) && !q_.empty())
      Remove(q_, std::prev(q_.end()));
    if (Fits(id))
      Add(q_, q_.begin(), id);
    return false;
  }

private:
  Queue q_; // head: most recent
};

// CLOCK: a ring and a hand; a hit sets the glyph's bit, the hand clears set
// bits and evicts the first glyph whose bit is clear. New glyphs go just
// behind the hand, bit clear. The ring is a list; end() wraps to begin().
class Clock : public Policy {
public:
  Clock(const std::vector<uint32_t> &cost, uint64_t budget)
      : Policy(cost, budget), ref_(cost.size()) {}
  bool Access(uint32_t id) override {
    if (in_[id]) {
      write_hits += !ref_[id];
      ref_[id] = 1;
      return true;
    }
    while (!Fits(id) && !ring_.empty()) {
      if (hand_ == ring_.end())
        hand_ = ring_.begin();
      if (ref_[*hand_])
        ref_[*hand_++] = 0;
      else
        hand_ = Remove(ring_, hand_);
    }
    if (Fits(id)) {
      Add(ring_, hand_, id);
      ref_[id] = 0;
    }
    return false;
  }

private:
  Queue ring_;
  Queue::iterator hand_ = ring_.end();
  std::vector<char> ref_;
};

// SIEVE: a FIFO queue, new glyphs at the head, visited bit clear; a hit sets
// the bit. The hand moves from the tail toward the head, clearing set bits,
// and evicts the first glyph whose bit is clear; it stays where it stopped
// (end() here: start again at the tail).
class Sieve : public Policy {
public:
  Sieve(const std::vector<uint32_t> &cost, uint64_t budget)
      : Policy(cost, budget), visited_(cost.size()) {}
  bool Access(uint32_t id) override {
    if (in_[id]) {
      write_hits += !visited_[id];
      visited_[id] = 1;
      return true;
    }
    while (!Fits(id) && !q_.empty()) {
      auto o = hand_ == q_.end() ? std::prev(q_.end()) : hand_;
      for (; visited_[*o]; o = Toward_head(o))
        visited_[*o] = 0;
      hand_ = o == q_.begin() ? q_.end() : std::prev(o);
      Remove(q_, o);
    }
    if (Fits(id)) {
      Add(q_, q_.begin(), id);
      visited_[id] = 0;
    }
    return false;
  }

private:
  Queue::iterator Toward_head(Queue::iterator o) {
    return o == q_.begin() ? std::prev(q_.end()) : std::prev(o);
  }
  Queue q_; // front: head (newest); back: tail
  Queue::iterator hand_ = q_.end();
  std::vector<char> visited_;
};

// S3-FIFO as in the paper's Algorithm 1 and its original code (libCacheSim
// S3FIFOv0): a small FIFO S (10% of the bytes), a main FIFO M (90%), a ghost
// FIFO G of keys holding at most as many as M holds glyphs. A hit raises the
// glyph's freq, capped at 3. A miss goes to M if its key is in G (and leaves
// G), else to S, freq 0. Eviction takes from M when M is over its share or S
// is empty, else from S. From S's tail: freq > 1 moves to M's head, freq 0
// (and may make M evict one), else the glyph leaves, its key to G. From M's
// tail: freq > 0 goes back to the head with freq - 1, else it leaves.
class S3Fifo : public Policy {
public:
  S3Fifo(const std::vector<uint32_t> &cost, uint64_t budget)
      : Policy(cost, budget), freq_(cost.size()), gpos_(cost.size()),
        in_ghost_(cost.size()), main_cap_(budget - budget / 10) {}
  bool Access(uint32_t id) override {
    if (in_[id]) {
      write_hits += freq_[id] < 3;
      freq_[id] = std::min(freq_[id] + 1, 3);
      return true;
    }
    const bool ghost = in_ghost_[id];
    if (ghost) {
      ghost_.erase(gpos_[id]);
      in_ghost_[id] = 0;
    }
    while (!Fits(id) && (!small_.empty() || !main_.empty()))
      if (main_bytes_ > main_cap_ || small_.empty())
        EvictMain();
      else
        EvictSmall();
    if (Fits(id)) {
      Add(ghost ? main_ : small_, (ghost ? main_ : small_).begin(), id);
      main_bytes_ += ghost ? cost_[id] : 0;
      freq_[id] = 0;
    }
    return false;
  }

private:
  void EvictSmall() {
    while (!small_.empty()) {
      const uint32_t t = small_.back();
      if (freq_[t] > 1) {
        main_.splice(main_.begin(), small_, std::prev(small_.end()));
        freq_[t] = 0;
        main_bytes_ += cost_[t];
        if (main_bytes_ > main_cap_)
          EvictMain();
        continue;
      }
      Remove(small_, std::prev(small_.end()));
      gpos_[t] = ghost_.insert(ghost_.begin(), t);
      in_ghost_[t] = 1;
      for (; ghost_.size() > main_.size(); ghost_.pop_back())
        in_ghost_[ghost_.back()] = 0;
      return;
    }
  }
  void EvictMain() {
    while (!main_.empty()) {
      const uint32_t t = main_.back();
      if (freq_[t] > 0) {
        --freq_[t];
        main_.splice(main_.begin(), main_, std::prev(main_.end()));
        continue;
      }
      main_bytes_ -= cost_[t];
      Remove(main_, std::prev(main_.end()));
      return;
    }
  }
  Queue small_, main_, ghost_; // front: head (newest)
  std::vector<int> freq_;
  std::vector<Queue::iterator> gpos_;
  std::vector<char> in_ghost_;
  const uint64_t main_cap_;
  uint64_t main_bytes_ = 0;
};

struct PolicyKind {
  const char *name;
  std::unique_ptr<Policy> (*make)(const std::vector<uint32_t> &, uint64_t);
};
template <class P>
std::unique_ptr<Policy> Make(const std::vector<uint32_t> &c, uint64_t b) {
  return std::make_unique<P>(c, b);
}
const PolicyKind kPolicies[] = {{"LRU", Make<Lru>},
                                {"CLOCK", Make<Clock>},
                                {"SIEVE", Make<Sieve>},
                                {"S3-FIFO", Make<S3Fifo>}};

// Hand-computed traces: items 'A'.., `cost` bytes each; the hit (H) and miss
// (M) pattern and the glyphs held at the end. ABCADCED, 1 byte each, budget
// 3: at D, all evict B (A was hit); then SIEVE's hand stands on C (hit since),
// the next toward the head is D, and E evicts D, where LRU and CLOCK evict A
// (CLOCK's hand passed A at D's miss and cleared its bit), so only SIEVE misses
// the last D. S3-FIFO at 10 bytes, 3 each (S's share 1, M's 9): A reaches freq
// 2 in S; D's miss moves A to M (freq 0) and sends B to G; B's miss (a ghost
// hit) sends C to G and B to M; C's likewise sends D to G; B hits in M; D's
// miss evicts A from M; E's reinserts B (freq 1 -> 0) and evicts C.
void SelfCheck() {
  struct Case {
    const char *trace, *pattern, *held; // in kPolicies' order
    uint32_t cost, budget;
  } const cases[] = {
      {"ABCADCED", "MMMHMHMH", "CDE", 1, 3},
      {"ABCADCED", "MMMHMHMH", "CDE", 1, 3},
      {"ABCADCED", "MMMHMHMM", "CDE", 1, 3},
      {"AAABCDBCBDE", "MHHMMMMMHMM", "BDE", 3, 10},
  };
  for (const Case &c : cases) {
    const std::vector<uint32_t> cost(26, c.cost);
    std::unique_ptr<Policy> p = kPolicies[&c - cases].make(cost, c.budget);
    std::string pattern, held;
    for (const char *s = c.trace; *s; ++s)
      pattern += p->Access(*s - 'A') ? 'H' : 'M';
    for (uint32_t i = 0; i < cost.size(); ++i)
      if (p->Has(i))
        held += (char)('A' + i);
    if (pattern != c.pattern || held != c.held) {
      std::fprintf(stderr, "self-check %s: %s held %s, expected %s held %s\n",
                   kPolicies[&c - cases].name, pattern.c_str(), held.c_str(),
                   c.pattern, c.held);
      std::abort();
    }
  }
}

void Report(const char *title, const Trace &t) {
  uint64_t footprint = 0;
  for (uint32_t c : t.cost)
    footprint += c;
  std::printf("### %s\n\n%zu accesses, %zu distinct glyphs, %llu bytes "
              "(%.1f KiB) of distinct glyphs; compulsory misses %.2f%%\n\n",
              title, t.ids.size(), t.cost.size(), (unsigned long long)footprint,
              footprint / 1024.0, 100.0 * t.cost.size() / t.ids.size());
  std::string head = "| budget | budget / footprint |", tables[2];
  for (const PolicyKind &k : kPolicies)
    head += std::string(" ") + k.name + " |";
  tables[0] = tables[1] =
      head + "\n| ---: | ---: | ---: | ---: | ---: | ---: |";
  char cell[64];
  for (uint64_t kib : {16, 64, 256, 1024, 4096, 16384}) {
    std::snprintf(cell, sizeof cell, "\n| %llu %s | %.2f |",
                  (unsigned long long)(kib < 1024 ? kib : kib / 1024),
                  kib < 1024 ? "KiB" : "MiB", kib * 1024.0 / footprint);
    tables[0] += cell;
    tables[1] += cell;
    for (const PolicyKind &k : kPolicies) {
      std::unique_ptr<Policy> p = k.make(t.cost, kib * 1024);
      size_t misses = 0;
      for (uint32_t id : t.ids)
        misses += !p->Access(id);
      const size_t hits = t.ids.size() - misses;
      std::snprintf(cell, sizeof cell, " %.2f |",
                    100.0 * misses / t.ids.size());
      tables[0] += cell;
      std::snprintf(cell, sizeof cell, " %.2f |",
                    hits ? 100.0 * p->write_hits / hits : 0.0);
      tables[1] += cell;
    }
  }
  std::printf("Miss ratio (%%):\n\n%s\n\nHits that write policy state (%% of "
              "hits):\n\n%s\n\n",
              tables[0].c_str(), tables[1].c_str());
}

} // namespace

int main(int argc, char **argv) {
  const auto start = std::chrono::steady_clock::now();
  auto seconds = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                         start)
        .count();
  };
  SelfCheck();
  const char *latin_path =
      argc > 1 ? argv[1] : "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf";
  const char *cjk_path =
      argc > 2 ? argv[2]
               : "/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc";
  FT_Library lib;
  FT_Face latin, cjk;
  if (FT_Init_FreeType(&lib) || FT_New_Face(lib, latin_path, 0, &latin) ||
      FT_New_Face(lib, cjk_path, 0, &cjk))
    Fail("cannot open the fonts (scripts/setup.sh bench installs them; "
         "`fc-list | grep -i cjk` finds another CJK path)");
  const Trace latin_trace = Latin(latin), cjk_trace = Cjk(cjk);
  const double traced = seconds();
  std::printf("Fonts: %s, %s (face 0)\n\n", latin_path, cjk_path);
  Report("Latin: DejaVu Sans, 16/24/36 px (70/20/10%)", latin_trace);
  Report("CJK: Noto Sans CJK, 3,500 ideographs, Zipf 1.0, 24/16 px", cjk_trace);
  std::printf("Run time: %.1f s (traces and costs %.1f s)\n", seconds(),
              traced);
  FT_Done_Face(latin);
  FT_Done_Face(cjk);
  FT_Done_FreeType(lib);
  return 0;
}
