// SPDX-License-Identifier: MIT
#include "bench/cache_texts.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>

#include FT_MODULE_H

namespace ftpool_bench {
namespace {

// A paragraph of English: pangrams, so that most letters occur.
const char kEnglish[] =
    "The quick brown fox jumps over the lazy dog while five boxing "
    "wizards jump quickly. Sphinx of black quartz, judge my vow! Pack "
    "my box with five dozen liquor jugs; how vexingly quick daft zebras "
    "jump. Jackdaws love my big sphinx of quartz, and a wizard's job is "
    "to vex chumps quickly in fog at 10:45 PM.";

// 400 distinct ideographs, every 9th of GB2312's 3755 common ones (level
// 1), in clauses of 20 between a comma and a full stop: the working set of
// a page of CJK text, not a text that means anything.
const char kCjk[] = "啊蔼俺凹芭拔白班伴膀胞宝悲备绷笔庇避卞鳖，摈并搏泊步财蚕藏"
                    "册碴搀颤厂嘲彻陈乘吃齿虫。"
                    "筹厨矗船吹淳辞葱促粹措呆待胆当岛得堤嫡缔，电叼爹钉董抖犊度"
                    "堆囤躲鹅鄂二珐凡坊纺吠分。"
                    "愤疯否氟弗府阜咐干敢港镐疙个埂躬钩辜古刮，棺灌归跪果害函焊"
                    "毫菏河很哄侯瑚虎猾淮唤黄。"
                    "幌回会魂惑稽姬及脊悸妓荚驾兼硷鉴剑浆降骄，角叫劫解诫紧烬鲸"
                    "颈竞久咎菊巨剧攫均郡凯慷。"
                    "靠咳垦口裤快旷傀扩啦阑滥劳乐肋黎礼历隶廉，练晾辽烈鳞龄另瘤"
                    "隆陋鲁录屡挛伦锣麻买蔓忙。"
                    "茂酶昧檬糜密缅妙明蘑墨拇慕钠南呢尼年捏狞，脓虐殴怕潘旁泡沛"
                    "棚砒疲片频凭魄菩瀑柒齐启。"
                    "讫迁潜呛敲翘钦寝晴丘蛆趣拳榷瓤热妊融茹褥，弱叁嫂刹苫赡赏芍"
                    "蛇设神生圣十史世噬室售输。"
                    "薯述恕霜顺思伺宋俗肃碎蓑他苔摊谈塘淌逃誊，体填眺廷瞳痛徒推"
                    "拖拓歪完腕忘围伟喂温嗡卧。"
                    "屋捂物硒希犀系暇锨闲腺镶想萧淆楔斜泻忻刑，姓修戌叙轩绚循讯"
                    "芽讶蜒掩雁鸯氧瑶药也一夷。"
                    "彝抑疫诣荫寅鹰赢臃永由右盂愉禹遇浴元猿约，耘晕宰脏蚤则喳咋"
                    "寨崭樟帐沼哲斟疹征症肢执。";

unsigned Decode(const unsigned char *&p) {
  unsigned c = *p++;
  if (c < 0x80)
    return c;
  int more = c >= 0xF0 ? 3 : c >= 0xE0 ? 2 : 1;
  c &= 0x3Fu >> more;
  while (more-- && *p)
    c = (c << 6) | (*p++ & 0x3Fu);
  return c;
}

bool Load(CacheText &t) {
  std::ifstream in(t.path, std::ios::binary | std::ios::ate);
  if (!in)
    return false;
  t.bytes.resize(size_t(in.tellg()));
  in.seekg(0);
  if (!in.read(reinterpret_cast<char *>(t.bytes.data()),
               std::streamsize(t.bytes.size())))
    return false;
  FT_Library library;
  FT_Face face;
  if (FT_Init_FreeType(&library))
    return false;
  bool ok =
      FT_New_Memory_Face(library, t.bytes.data(),
                         static_cast<FT_Long>(t.bytes.size()), 0, &face) == 0;
  if (ok) {
    for (auto *p = reinterpret_cast<const unsigned char *>(t.utf8); *p;)
      t.glyphs.push_back(FT_Get_Char_Index(face, Decode(p)));
    std::vector<FT_UInt> sorted = t.glyphs;
    std::sort(sorted.begin(), sorted.end());
    t.distinct =
        size_t(std::unique(sorted.begin(), sorted.end()) - sorted.begin());
    ok = std::find(t.glyphs.begin(), t.glyphs.end(), 0u) == t.glyphs.end();
  }
  FT_Done_FreeType(library);
  return ok;
}

void *Alloc(FT_Memory, long size) {
  return ftc_zeroing ? std::calloc(1, size_t(size)) : std::malloc(size_t(size));
}
void Free(FT_Memory, void *block) { std::free(block); }
void *Realloc(FT_Memory, long, long size, void *block) {
  return std::realloc(block, size_t(size));
}
FT_MemoryRec_ ftc_memory = {nullptr, Alloc, Free, Realloc};

FT_Error Requester(FTC_FaceID id, FT_Library library, FT_Pointer,
                   FT_Face *face) {
  const auto *t = static_cast<const CacheText *>(id);
  return FT_New_Memory_Face(library, t->bytes.data(),
                            static_cast<FT_Long>(t->bytes.size()), 0, face);
}

} // namespace

thread_local bool ftc_zeroing = false;

FT_Memory FtcMemory() { return &ftc_memory; }

FT_Error NewFtc(FT_Library library, size_t max_bytes, FTC_Manager *manager,
                FTC_SBitCache *sbits) {
  ftc_zeroing = true;
  FT_Error error =
      FTC_Manager_New(library, 0, 0, max_bytes, Requester, nullptr, manager);
  if (!error) {
    error = FTC_SBitCache_New(*manager, sbits);
    if (error)
      FTC_Manager_Done(*manager);
  }
  ftc_zeroing = false;
  return error;
}

FT_Error NewFtcLibrary(FT_Library *library) {
  FT_Error error = FT_New_Library(FtcMemory(), library);
  if (!error) {
    FT_Add_Default_Modules(*library);
    FT_Set_Default_Properties(*library);
  }
  return error;
}

std::vector<CacheText> &CacheTexts() {
  static std::vector<CacheText> texts = [] {
    std::vector<CacheText> found;
    const CacheText candidates[] = {
        {"english",
         "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
         kEnglish,
         size_t(4) << 20,
         {},
         {},
         0},
        {"cjk",
         "/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc",
         kCjk,
         size_t(128) << 10,
         {},
         {},
         0},
    };
    for (const CacheText &c : candidates) {
      CacheText t = c;
      if (Load(t))
        found.push_back(std::move(t));
      else
        std::fprintf(stderr,
                     "cached_text: %s: cannot read %s, or a "
                     "character has no glyph\n",
                     t.name, t.path);
    }
    return found;
  }();
  return texts;
}

void Canvas::Blit(const unsigned char *buffer, int rows, int width, int pitch,
                  int left, int top, long advance) {
  if (((pen_ + advance) >> 6) > kWidth) { // the next line
    pen_ = 0;
    line_ = (line_ + 1) % kLines;
  }
  int x = int(pen_ >> 6) + left;
  int y = line_ * kLineHeight + kBaseline - top;
  int from = std::max(0, -x), to = std::min(width, kWidth - x);
  for (int r = 0; r < rows && from < to; r++) {
    if (y + r < 0 || y + r >= kHeight)
      continue;
    std::memcpy(&pixels_[size_t(y + r) * kWidth + size_t(x + from)],
                buffer + long(r) * pitch + from, size_t(to - from));
  }
  pen_ += advance;
}

} // namespace ftpool_bench
