# SPDX-License-Identifier: MIT
"""The PDF writer of examples/mupdf's generated test PDFs (control_pdf.py,
softmask_pdf.py): numbered objects, their cross-reference table and the
trailer."""


def write_pdf(path, objs, root):
    """Writes objs (bytes, object 1 first) to path; root: the catalog's
    object number."""
    pdf, offsets = bytearray(b"%PDF-1.7\n"), []
    for i, o in enumerate(objs):
        offsets.append(len(pdf))
        pdf += b"%d 0 obj\n" % (i + 1) + o + b"\nendobj\n"
    xref = len(pdf)
    pdf += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objs) + 1)
    pdf += b"".join(b"%010d 00000 n \n" % o for o in offsets)
    pdf += b"trailer\n<< /Size %d /Root %d 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objs) + 1, root, xref)
    with open(path, "wb") as f:
        f.write(pdf)
