# SPDX-License-Identifier: MIT
"""Draws and measures text with many fonts, sizes, modes and layouts on one
thread, and compares the results of Pillow builds: the port, with its glyph
cache and without, must give stock Pillow's results exactly.

Pillow's own tests compare most drawings with reference images within a
tolerance, so a bitmap that moved by a pixel may still pass them; this
compares every image byte for byte, and every bounding box and length.

--dump OUT.json: runs the cases with the Pillow build on PYTHONPATH and
writes one result per case: a digest of the image and of the numbers, or
the exception. The fonts are Pillow's own test fonts (every file of
Tests/fonts that FreeType reads: TrueType, CFF, variable, embedded bitmap
strikes of 1, 2, 4 and 8 bits, CBDT, sbix and COLR colour fonts, WOFF),
DejaVu Sans and a variable font with axes and named instances set. Each
font at three sizes, basic layout and Raqm, modes "L", "1" and "RGBA"
(embedded colour), several texts and anchors; a stroke (which the cache
leaves to FreeType), right-to-left and vertical text with Raqm.

--compare A.json B.json...: every dump must equal the first; prints the
differences and PASS or FAIL, exit status 0 on PASS.

--make-foreground-font BungeeColor.ttf OUT.ttf (needs fontTools): Pillow's
COLR test font with each glyph's first layer painted in the foreground
colour (palette index 0xFFFF), which FreeType takes from the face
(FT_Palette_Set_Foreground_Color, Pillow's ink): drawn in two inks, its
glyphs differ, so a cache that kept the first ink's would show here. Pass
it to --dump with --foreground-font.

Usage: python compare_drawings.py --dump OUT.json --tests Pillow/Tests/fonts
           --dejavu DejaVuSans.ttf --variable VF.otf [--foreground-font F.ttf]
       python compare_drawings.py --compare stock.json port.json ...
       python compare_drawings.py --make-foreground-font IN.ttf OUT.ttf
"""

import argparse
import glob
import hashlib
import json
import os
import sys

TEXTS = (
    "Sphinx of black quartz, judge my vow",
    "AV To Wa ffi fl 0123456789",
    "y\u0305g \u00e9\u00e8 \u0141\u00f3d\u017a",  # combining, accents
    "\U0001f600\u2603\u00a0\ufffd AB\ue901",  # emoji, symbols, missing glyphs
    "",
)
RTL = "\u0627\u0644\u0639\u0631\u0628\u064a\u0629 \u0645\u0631\u062d\u0628\u0627"
ANCHORS = ("la", "ms", "mm", "rb", "lt", "rd")
SIZES = (11, 24, 48)
# Bitmap-only fonts, at their strikes' sizes (as Pillow's tests draw them).
STRIKES = {"CBDTTestFont.ttf": (64,), "EBDTTestFont.ttf": (64,),
           "chromacheck-sbix.woff": (300,)}
MODES = ("L", "1", "RGBA")


def digest(*parts):
    h = hashlib.sha256()
    for p in parts:
        h.update(p if isinstance(p, bytes) else repr(p).encode())
        h.update(b"\0")
    return h.hexdigest()[:20]


def outcome(fn):
    try:
        return fn()
    except Exception as e:  # noqa: BLE001: the exception is the result
        return f"{type(e).__name__}: {e}"


def fonts(args):
    """(name, path or bytes, variation) for each font file."""
    found = [("dejavu", args.dejavu, None)]
    patterns = ("*.ttf", "*.otf", "*.woff", "*.woff2", "DejaVuSans/*.ttf")
    paths = sorted({p for pat in patterns for p in glob.glob(os.path.join(args.tests, pat))})
    for p in paths:
        found.append((os.path.relpath(p, args.tests), p, None))
    for axes in ([300], [700]):
        found.append((f"variable-axes-{axes[0]}", args.variable, ("axes", axes)))
    found.append(("variable-named", args.variable, ("name", b"Extra Bold")))
    adobe = os.path.join(args.tests, "AdobeVFPrototype.ttf")
    found.append(("adobe-axes", adobe, ("axes", [500, 50])))
    found.append(("adobe-named", adobe, ("name", b"Black")))
    tiny = os.path.join(args.tests, "TINY5x3GX.ttf")
    found.append(("tiny-axes", tiny, ("axes", [15, 100])))
    if args.foreground_font:
        found.append(("colr-foreground", args.foreground_font, None))
    return found


def make_foreground_font(source, out):
    from fontTools.ttLib import TTFont

    font = TTFont(source)
    for layers in font["COLR"].ColorLayers.values():
        layers[0].colorID = 0xFFFF
    font.save(out)
    return 0


def dump(args):
    from PIL import Image, ImageDraw, ImageFont, features

    results = {}
    layouts = {"basic": ImageFont.Layout.BASIC}
    if features.check("raqm"):
        layouts["raqm"] = ImageFont.Layout.RAQM
    for name, path, variation in fonts(args):
        for size in STRIKES.get(name, SIZES):
            for layout_name, layout in layouts.items():
                key = f"{name} {size}px {layout_name}"

                def make():
                    font = ImageFont.truetype(path, size, layout_engine=layout)
                    if variation and variation[0] == "axes":
                        font.set_variation_by_axes(variation[1])
                    elif variation:
                        font.set_variation_by_name(variation[1])
                    return font

                font = outcome(make)
                if isinstance(font, str):
                    results[key] = font
                    continue
                cases = []
                for t, text in enumerate(TEXTS):
                    for mode in MODES:
                        anchor = ANCHORS[(t + len(mode)) % len(ANCHORS)]
                        cases.append((text, mode, {"anchor": anchor}))
                # Another ink: colour layers painted in the foreground colour
                # must not come back in the first one's.
                cases.append((TEXTS[3], "RGBA", {"fill": (200, 30, 30, 255)}))
                cases.append((TEXTS[0], "L", {"stroke_width": 1}))
                cases.append((TEXTS[1], "RGBA", {"stroke_width": 2, "anchor": "mm"}))
                if layout_name == "raqm":
                    cases.append((RTL, "L", {"direction": "rtl"}))
                    cases.append((TEXTS[1], "L", {"features": ["-kern", "-liga"]}))
                    cases.append((TEXTS[0][:12], "L", {"direction": "ttb", "anchor": "mt"}))
                for text, mode, kw in cases:
                    case = f"{key} {mode} {kw} {text!r}"
                    results[case] = outcome(lambda: draw(font, size, text, mode, kw))
    with open(args.dump, "w") as f:
        json.dump({"python": sys.version.split()[0], "results": results}, f, indent=0)
    print(f"compare_drawings: {len(results)} results in {args.dump}")
    return 0


def draw(font, size, text, mode, kw):
    from PIL import Image, ImageDraw

    direction = kw.get("direction")
    features = kw.get("features")
    stroke = kw.get("stroke_width", 0)
    anchor = kw.get("anchor")
    metrics_mode = "RGBA" if mode == "RGBA" else mode
    bbox = font.getbbox(text, metrics_mode, direction, features,
                        stroke_width=stroke, anchor=anchor)
    length = font.getlength(text, metrics_mode, direction, features)
    margin = size * 2
    width = max(1, min(4000, bbox[2] - bbox[0] + 2 * margin))
    height = max(1, min(4000, bbox[3] - bbox[1] + 2 * margin))
    origin = (margin - bbox[0], margin - bbox[1])
    if mode == "RGBA":
        im = Image.new("RGBA", (width, height), (255, 255, 255, 0))
        fill = kw.get("fill", (40, 90, 200, 255))
    else:
        im = Image.new(mode, (width, height), 0)
        fill = 255 if mode == "L" else 1
    ImageDraw.Draw(im).text(origin, text, fill=fill, font=font, anchor=anchor,
                            direction=direction, features=features,
                            stroke_width=stroke, stroke_fill=fill,
                            embedded_color=mode == "RGBA")
    return digest(bbox, length, im.size, im.tobytes())


def compare(paths):
    dumps = []
    for p in paths:
        with open(p) as f:
            dumps.append(json.load(f)["results"])
    first = dumps[0]
    failed = False
    for p, d in zip(paths[1:], dumps[1:]):
        differ = sorted(k for k in first.keys() | d.keys() if first.get(k) != d.get(k))
        errors = sum(1 for v in d.values() if ":" in v)
        print(f"{p}: {len(d)} results ({errors} exceptions, as in the first: "
              f"{sum(1 for v in first.values() if ':' in v)}), "
              f"{len(differ)} differ from {paths[0]}")
        for k in differ[:20]:
            print(f"  {k}\n    {first.get(k)}\n    {d.get(k)}")
        failed |= bool(differ)
    print("compare_drawings:", "FAIL" if failed else "PASS")
    return 1 if failed else 0


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--dump", help="write this build's results here")
    p.add_argument("--tests", help="Pillow's Tests/fonts")
    p.add_argument("--dejavu")
    p.add_argument("--variable")
    p.add_argument("--foreground-font")
    p.add_argument("--compare", nargs="+", metavar="JSON")
    p.add_argument("--make-foreground-font", nargs=2, metavar=("IN", "OUT"))
    args = p.parse_args()
    if args.compare:
        return compare(args.compare)
    if args.make_foreground_font:
        return make_foreground_font(*args.make_foreground_font)
    if not (args.dump and args.tests and args.dejavu and args.variable):
        p.error("--dump needs --tests, --dejavu and --variable")
    return dump(args)


if __name__ == "__main__":
    sys.exit(main())
