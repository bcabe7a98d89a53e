# SPDX-License-Identifier: MIT
"""Writes the font check's control: a one-page PDF whose text is in
Helvetica, not embedded, which builds with no built-in font cannot draw
(examples/mupdf/measure_locks.sh and bench.sh require their message filter
to fail it). Usage: python3 control_pdf.py OUT.pdf"""
import sys

from pdf_write import write_pdf

content = b"BT /F1 24 Tf 20 40 Td (Hello) Tj ET"
objs = [b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 100]"
        b" /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>",
        b"<< /Length %d >>\nstream\n" % len(content) + content + b"\nendstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"]
write_pdf(sys.argv[1], objs, 1)
