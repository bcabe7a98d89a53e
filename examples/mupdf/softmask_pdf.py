# SPDX-License-Identifier: MIT
"""Writes a PDF of text drawn into soft masks, for examples/mupdf/check.sh's
identity step: an alpha soft mask (/S /Alpha) is drawn on a pixmap with no
colour space, where MuPDF paints its run-length glyphs by its own rounding
(fz_paint_glyph_mask), so the port must not paint ftpool's masks there.
The corpus has no such page. One page per case, DejaVu Sans embedded:
opaque and half-transparent text, over a half-transparent rectangle or
alone, overlapping strings, small text, and a luminosity mask (grey).
Usage: python3 softmask_pdf.py OUT.pdf"""
import sys

from pdf_write import write_pdf

FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
CASES = [  # (mask type, the mask group's content)
    ("Alpha", "q /A gs 0 g 10 10 280 180 re f Q BT /F1 60 Tf 20 80 Td (AgW@e) Tj ET"),
    ("Alpha", "q /A gs BT /F1 60 Tf 20 80 Td (AgW@e) Tj ET Q"),
    ("Alpha", "q /A gs 0 g 10 10 280 180 re f BT /F1 60 Tf 20 80 Td (AgW@e) Tj ET Q"),
    ("Alpha", "BT /F1 60 Tf 20 80 Td (AgW@e) Tj ET BT /F1 60 Tf 27 86 Td (AgW@e) Tj ET"),
    ("Alpha", "q /A gs 0 g 10 10 280 180 re f Q BT /F1 8 Tf 20 80 Td (AgW@e small) Tj ET"),
    ("Luminosity", "1 g 0 0 300 200 re f 0 g BT /F1 60 Tf 20 80 Td (AgW@e) Tj ET"),
]

objs = []


def add(body):
    objs.append(body if isinstance(body, bytes) else body.encode("latin-1"))
    return len(objs)


def stream(data, extra=""):
    data = data if isinstance(data, bytes) else data.encode("latin-1")
    return add(b"<< /Length %d %s >>\nstream\n" % (len(data), extra.encode())
               + data + b"\nendstream")


font_bytes = open(FONT, "rb").read()
ff = stream(font_bytes, "/Length1 %d" % len(font_bytes))
desc = add("<< /Type /FontDescriptor /FontName /DejaVuSans /Flags 32"
           " /FontBBox [-1021 -463 1793 1232] /ItalicAngle 0 /Ascent 928"
           " /Descent -236 /CapHeight 700 /StemV 80 /FontFile2 %d 0 R >>" % ff)
font = add("<< /Type /Font /Subtype /TrueType /BaseFont /DejaVuSans /FirstChar 32"
           " /LastChar 126 /Widths [%s] /Encoding /WinAnsiEncoding"
           " /FontDescriptor %d 0 R >>" % (" ".join(["600"] * 95), desc))
pages = add(b"")  # set below, once the kids are known
kids = []
for kind, body in CASES:
    res = ("<< /Font << /F1 %d 0 R >> /ExtGState << /A << /ca 0.5 /CA 0.5 >> >> >>"
           % font)
    space = "/DeviceGray" if kind == "Luminosity" else "/DeviceRGB"
    group = stream(body, "/Type /XObject /Subtype /Form /BBox [0 0 300 200]"
                   " /Group << /S /Transparency /CS %s >> /Resources %s" % (space, res))
    gs = add("<< /SMask << /S /%s /G %d 0 R >> >>" % (kind, group))
    content = stream("q /SM gs 0.9 0.1 0.1 rg 0 0 300 200 re f Q")
    kids.append(add("<< /Type /Page /Parent %d 0 R /MediaBox [0 0 300 200]"
                    " /Contents %d 0 R /Resources << /ExtGState << /SM %d 0 R >> >> >>"
                    % (pages, content, gs)))
objs[pages - 1] = ("<< /Type /Pages /Kids [%s] /Count %d >>" % (
    " ".join("%d 0 R" % k for k in kids), len(kids))).encode()
catalog = add("<< /Type /Catalog /Pages %d 0 R >>" % pages)

write_pdf(sys.argv[1], objs, catalog)
