#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Checks the MuPDF port (examples/mupdf/ftpool-port.patch, ftpool issue 27):
#   1. the builds (examples/mupdf/build.sh, cached under build/mupdf/): stock,
#      port, port-tsan and port-tsan-control; the port's mutool must link
#      ftpool and stock's must not; the TSan ones must be instrumented and
#      load FreeType's TSan build (scripts/freetype_tsan.sh);
#   2. identity: every page of the corpus (examples/mupdf/corpus.sh, 1294
#      pages) drawn by stock's and by the port's `mutool draw -B 128` at 72
#      dpi in grey and 150 dpi in RGB (each its own glyph painter: one
#      channel, and three as the bench draws) and at -T 1, 2 and 8 must give
#      the same pixels: the MD5 of each page's PNM, streamed (-o - -F pnm),
#      never written out; and so must the pages of
#      examples/mupdf/softmask_pdf.py (text drawn into soft masks, which the
#      corpus lacks). Each port run is compared with stock's at the
#      same -T. Stock's threads do not always draw a page the same
#      (debian-edu-doc-en's page 71 at 72 dpi and -T 2 comes out one of two
#      ways, text or no text), so a page that differs is drawn again by
#      stock, alone, up to 30 times: it passes if stock draws the port's
#      pixels too. Either way the check prints file, page, resolution and
#      -T, and keeps both PNMs in build/mupdf/check/;
#   3. the threaded run: the port built with ThreadSanitizer (MuPDF, ftpool
#      and FreeType) draws every page at 72 dpi with `-T 4 -B 64` (bands
#      of 64 rows: four workers really draw at once), and TSan must report
#      nothing (halt_on_error=1, exitcode=66). examples/mupdf/tsan.supp
#      suppresses three races of MuPDF's own, in code the port does not
#      touch, which stock has too (docs/mupdf.md); their counts are printed;
#   4. the negative control: port-tsan-control (the port plus
#      examples/mupdf/control-shared-face.patch: every glyph drawn on the
#      font's one FT_Face by every thread, no lock) draws 10 pages the same
#      way, and TSan must report (exit 66) through font.c, so that step 3's
#      silence means something.
# Every mutool run must exit 0 and print nothing on stderr but the harmless
# lines of examples/mupdf/messages.sh.
# Prints the time of each step and the check's wall time: about 6 minutes
# on 2 cores once built (identity 3.5, the threaded run 2-3.5); the first
# builds take about 5 more.
# Usage: examples/mupdf/check.sh
set -euo pipefail

cd "$(dirname "$0")/../.."
root=$PWD
[ $# -eq 0 ] || {
  echo "usage: $0" >&2
  exit 2
}

began=$SECONDS
failures=()
summaries=()
keep=$root/build/mupdf/check
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# What may be printed with nothing wrong (messages.sh).
. "$root"/examples/mupdf/messages.sh

# clean ERRFILE WHAT: fails, showing them, on messages that are not harmless.
clean() {
  if grep -vE "$harmless" "$1" | grep -q .; then
    grep -vE "$harmless" "$1" | sort | uniq -c | sort -rn | head -5 | sed 's/^/      /'
    failures+=("$2: unexpected messages (above)")
    return 1
  fi
}

echo "== builds"
start=$SECONDS
declare -A bin
for v in stock port port-tsan port-tsan-control; do
  bin[$v]=$(examples/mupdf/build.sh "$v")/mutool
done
# A port that silently built stock MuPDF would pass everything. (Into files:
# grep -q on a pipe would stop nm early, and pipefail would fail it.)
symbols() { nm "${bin[$1]}" >"$work/$1.nm"; }
symbols port
symbols stock
grep -q ' T ftpool_font_acquire$' "$work"/port.nm ||
  failures+=("port: mutool does not link ftpool")
if grep -q ' T ftpool_font_acquire$' "$work"/stock.nm; then
  failures+=("stock: mutool links ftpool")
fi
for v in port-tsan port-tsan-control; do
  symbols "$v"
  grep -q ' U __tsan_init$' "$work/$v.nm" ||
    failures+=("$v: mutool is not built with ThreadSanitizer")
  ldd "${bin[$v]}" >"$work/$v.ldd"
  grep -q "=> $root/build/freetype-tsan/install/lib/libfreetype" "$work/$v.ldd" ||
    failures+=("$v: mutool does not load FreeType's TSan build")
done
echo "   stock, port, port-tsan, port-tsan-control ready in $((SECONDS - start))s"

# The corpus: "PATH PAGES" (PAGES: mutool's page count).
pages_of() { # FILE
  "${bin[stock]}" info "$1" 2>/dev/null | awk '/^Pages:/ { print $2 }'
}
start=$SECONDS
examples/mupdf/corpus.sh >"$work"/corpus.spec
: >"$work"/corpus
pages_total=0
while read -r _ path spec; do
  n=$(pages_of "$path")
  [ "$spec" = 1-N ] || {
    echo "mupdf_check: $path: page range $spec (this check renders 1-N)" >&2
    exit 1
  }
  echo "$path $n" >>"$work"/corpus
  pages_total=$((pages_total + n))
done <"$work"/corpus.spec
files=$(wc -l <"$work"/corpus)
# Identity also draws text into soft masks, which the corpus lacks: an alpha
# mask has no colour space, and MuPDF rounds its own glyphs there.
python3 examples/mupdf/softmask_pdf.py "$work"/softmask.pdf
cp "$work"/corpus "$work"/identity
echo "$work/softmask.pdf $(pages_of "$work"/softmask.pdf)" >>"$work"/identity

# Reads a stream of PNMs on stdin, prints "PAGE MD5" per image (PAGE from
# FIRST up); with EXPECTED (such lines) and DIR, writes each image whose MD5
# differs to DIR/PAGE.pnm.
hasher='
import hashlib, sys
page, expected, keep = int(sys.argv[1]), {}, None
if len(sys.argv) > 2:
    expected = dict(l.split() for l in open(sys.argv[2]))
    keep = sys.argv[3]
inp = sys.stdin.buffer
def token():
    t = b""
    while True:
        c = inp.read(1)
        if not c:
            return t
        if c == b"#" and not t:
            inp.readline()
        elif c.isspace():
            if t:
                return t
        else:
            t += c
while True:
    magic = token()
    if not magic:
        break
    if magic not in (b"P5", b"P6"):
        sys.exit("pnm_md5: page %d: not a PNM (%r)" % (page, magic[:8]))
    w, h, maxval = int(token()), int(token()), int(token())
    header = b"%s\n%d %d\n%d\n" % (magic, w, h, maxval)
    left = w * h * (3 if magic == b"P6" else 1) * (2 if maxval > 255 else 1)
    md5, data = hashlib.md5(header), []
    while left:
        chunk = inp.read(min(left, 1 << 20))
        if not chunk:
            sys.exit("pnm_md5: page %d: truncated" % page)
        md5.update(chunk)
        if keep:
            data.append(chunk)
        left -= len(chunk)
    digest = md5.hexdigest()
    print(page, digest)
    if keep and expected.get(str(page)) != digest:
        with open("%s/%d.pnm" % (keep, page), "wb") as f:
            f.write(header + b"".join(data))
    page += 1
'

# The colour space each resolution is drawn in.
colours() { # RES
  if [ "$1" = 72 ]; then echo gray; else echo rgb; fi
}

# render MUTOOL RES T FILE OUT [EXPECTED DIR]: every page's MD5 into OUT;
# fails on a bad exit status or message.
render() {
  local mutool=$1 res=$2 t=$3 file=$4 out=$5 codes
  shift 5
  set +e
  "$mutool" draw -q -r "$res" -c "$(colours "$res")" -B 128 -T "$t" -F pnm -o - "$file" 1-N \
    2>"$work"/err | python3 -c "$hasher" 1 "$@" >"$out"
  codes=("${PIPESTATUS[@]}")
  set -e
  if [ "${codes[0]}" -ne 0 ] || [ "${codes[1]}" -ne 0 ]; then
    tail -5 "$work"/err | sed 's/^/      /'
    failures+=("$mutool draw -r $res -T $t $file: exit ${codes[*]}")
    return 1
  fi
  # A message is a failure, but the pages are compared all the same.
  clean "$work"/err "$mutool draw -r $res -T $t $file" || true
}

echo "== identity: $files files, $pages_total pages, and softmask_pdf.py's, 72 dpi grey and 150 dpi RGB, -T 1 2 8, port against stock"
rm -rf "$keep"
compared=0 identical=0 varies=0
for res in 72 150; do
  for t in 1 2 8; do
    run_start=$SECONDS
    while read -r path n <&3; do
      render "${bin[stock]}" "$res" "$t" "$path" "$work"/stock.md5 || continue
      diffs=$work/diffs
      rm -rf "$diffs" && mkdir -p "$diffs"
      render "${bin[port]}" "$res" "$t" "$path" "$work"/port.md5 \
        "$work"/stock.md5 "$diffs" || continue
      [ "$(wc -l <"$work"/stock.md5)" -eq "$n" ] ||
        failures+=("stock: $path at $res dpi -T $t: $(wc -l <"$work"/stock.md5) of $n pages")
      [ "$(wc -l <"$work"/port.md5)" -eq "$n" ] ||
        failures+=("port: $path at $res dpi -T $t: $(wc -l <"$work"/port.md5) of $n pages")
      same=$(awk 'NR == FNR { s[$1] = $2; next } s[$1] == $2' \
        "$work"/stock.md5 "$work"/port.md5 | wc -l)
      compared=$((compared + n)) identical=$((identical + same))
      [ "$same" -ne "$n" ] || continue
      # The differing pages: the port's kept by the hasher. Stock drawn
      # again, that page alone, up to 30 times: its own pixels kept, and
      # does it ever draw the port's? Stock's threads do not always draw a
      # page the same (debian-edu-doc-en's page 71 at 72 dpi -T 2, even
      # without its text: -K); a page passes if stock draws the port's
      # pixels in a run of its own. Only the first 5 differing pages of a
      # run: after them, a port that differs everywhere fails at once.
      name=$(echo "${path#/usr/share/}" | tr / _)
      dir=$keep/$name-r$res-T$t
      mkdir -p "$dir"
      retried=0
      for f in $(find "$diffs" -name "*.pnm" | sort -V); do
        page=$(basename "$f" .pnm)
        if [ "$retried" -eq 5 ]; then
          echo "   DIFFERENT: $path at $res dpi -T $t: $(find "$diffs" -name "*.pnm" | wc -l)" \
            "more pages, not drawn again"
          failures+=("identity: $path at $res dpi -T $t: more pages differ from stock's")
          break
        fi
        retried=$((retried + 1))
        mv "$f" "$dir/$page-port.pnm"
        want=$(awk -v p="$page" '$1 == p { print $2 }' "$work"/port.md5)
        had=$(awk -v p="$page" '$1 == p { print $2 }' "$work"/stock.md5)
        tries=0 seen=0
        while [ "$tries" -lt 30 ] &&
          { [ "$seen" -eq 0 ] || [ ! -e "$dir/$page-stock.pnm" ]; }; do
          tries=$((tries + 1))
          "${bin[stock]}" draw -q -r "$res" -c "$(colours "$res")" -B 128 -T "$t" -F pnm -o - \
            "$path" "$page" 2>/dev/null >"$work"/again.pnm || true
          case "$(md5sum <"$work"/again.pnm)" in
          "$want "*) [ "$seen" -ne 0 ] || seen=$tries ;;
          "$had "*) cp "$work"/again.pnm "$dir/$page-stock.pnm" ;;
          esac
        done
        where="(${dir#"$root"/}/$page-stock.pnm, $page-port.pnm)"
        if [ "$seen" -ne 0 ]; then
          varies=$((varies + 1))
          echo "   stock varies: $path page $page, $res dpi, -T $t: stock drew" \
            "the port's pixels in its own run $seen of $tries $where"
        else
          echo "   DIFFERENT: $path page $page, $res dpi, -T $t: stock never" \
            "drew the port's pixels in $tries runs $where"
          failures+=("identity: $path page $page at $res dpi -T $t differs from stock's")
        fi
      done
    done 3<"$work"/identity
    echo "   $res dpi -T $t: done in $((SECONDS - run_start))s"
  done
done
echo "   $compared pages compared, $identical identical," \
  "$varies as stock draws them in other runs of its own," \
  "$((compared - identical - varies)) different, in $((SECONDS - start))s"
summaries+=("identity: $compared pages compared (stock and port, 2 resolutions x 3 -T): $identical identical, $varies as stock draws them in other runs, $((compared - identical - varies)) different")

# tsan MUTOOL FILE PAGES REPORT: mutool draw -r 72 -T 4 -B 64 under TSan,
# with examples/mupdf/tsan.supp; prints its exit status; stderr into REPORT.
tsan() {
  local status=0
  TSAN_OPTIONS="halt_on_error=1 exitcode=66 report_signal_unsafe=0 print_suppressions=1 suppressions=$root/examples/mupdf/tsan.supp" \
    "$1" draw -q -r 72 -B 64 -T 4 "$2" "$3" 2>"$4" >/dev/null || status=$?
  echo "$status"
}

echo "== threaded: port-tsan, every page, 72 dpi, -T 4 -B 64"
start=$SECONDS
tsan_pages=0 verdict=PASS
mkdir -p "$keep"
: >"$work"/suppressed
while read -r path n <&3; do
  file_start=$SECONDS
  err=$work/tsan.err
  status=$(tsan "${bin[port-tsan]}" "$path" 1-N "$err")
  # TSan's count of the races it suppressed (MuPDF's own: tsan.supp).
  sed -n '/^ThreadSanitizer: Matched/,$ { /^[0-9]* race:/p }' "$err" >>"$work"/suppressed
  sed -i '/^ThreadSanitizer: Matched/,$ d' "$err"
  if grep -q 'ThreadSanitizer' "$err" || [ "$status" -ne 0 ]; then
    verdict=FAIL
    report=$keep/tsan-$(echo "${path#/usr/share/}" | tr / _).txt
    cp "$err" "$report"
    grep -m3 '^SUMMARY: ThreadSanitizer' "$report" | sed 's/^/      /' || true
    failures+=("port-tsan: $path: exit $status (report: ${report#"$root"/})")
    continue
  fi
  clean "$err" "port-tsan: $path" || verdict=FAIL
  tsan_pages=$((tsan_pages + n))
  echo "   $path: $n pages, no report, in $((SECONDS - file_start))s"
done 3<"$work"/corpus
suppressed=$(awk '{ n[$2] += $1 } END { for (s in n) { printf "%s%s %d", sep, s, n[s]; sep = ", " } }' \
  "$work"/suppressed)
echo "   $verdict: $tsan_pages pages without a report, in $((SECONDS - start))s" \
  "(MuPDF's own races suppressed: ${suppressed:-none})"
summaries+=("threaded: port-tsan: $verdict, $tsan_pages of $pages_total pages rendered by 4 threads with no TSan report")

echo "== negative control: port-tsan-control (one shared face, no lock)"
start=$SECONDS
# The corpus's first CJK document (the Chinese Debian Reference).
control=$(awk '$1 == "cjk" { print $2; exit }' "$work"/corpus.spec)
report=$keep/tsan-control.txt
status=$(tsan "${bin[port-tsan-control]}" "$control" 1-10 "$report")
# The report must be the shared face's: a stack through font.c.
what=$(sed -n 's/^SUMMARY: ThreadSanitizer: \(.*\) [^ ]* in \([^ ]*\)$/\1 in \2/p' "$report" | head -1)
if [ "$status" -eq 66 ] && [ -n "$what" ] && grep -q ' source/fitz/font\.c:' "$report"; then
  verdict="caught (exit 66: $what, through font.c)"
else
  verdict="NOT caught (exit $status${what:+, $what not through font.c})"
  failures+=("control: TSan did not report the shared face's race (${report#"$root"/})")
fi
echo "   $verdict, in $((SECONDS - start))s (report: ${report#"$root"/})"
summaries+=("control: ${control##*/} pages 1-10 on one shared face: $verdict")

echo "== summary (wall time $((SECONDS - began))s)"
printf '   %s\n' "${summaries[@]}"
if [ ${#failures[@]} -gt 0 ]; then
  printf 'mupdf_check: FAIL: %s\n' "${failures[@]}"
  exit 1
fi
echo "mupdf_check: PASS"
