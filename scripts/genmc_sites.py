#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Lists every ordered atomic site in lib/: each call of an atomics.h wrapper
whose order is release, acquire, acq_rel or seq_cst, and each fence, with
the weaker orders scripts/genmc_check.sh tries in its place.

One line a control: "FILE:LINE OP TO<TAB>KEY". LINE is the line of the
call's closing parenthesis, which is what clang's __LINE__ gives a macro
call spread over lines (test/genmc/weaken.h matches on it). KEY names the
site in docs/design.md's table without its line, which moves with every
edit: "FILE FUNCTION OP", with " #K" for the K-th (from 2) call of OP in
that function.

Usage: scripts/genmc_sites.py [LIB_DIR]
"""
import os
import re
import sys

# Each ordered wrapper of lib/atomics.h, and what its control weakens it to:
# one step down, and for acq_rel each half alone.
WEAKER = {
    "word_store_release": ["relaxed"],
    "word_exchange_acquire": ["relaxed"],
    "word_cas_acquire": ["relaxed"],
    "word_cas_release": ["relaxed"],
    "ptr_store_release": ["relaxed"],
    "ptr_load_acquire": ["relaxed"],
    "ptr_cas_release": ["relaxed"],
    "ptr_cas_acquire": ["relaxed"],
    "ptr_cas_acq_rel": ["release", "acquire"],
    "ptr_exchange_acquire": ["relaxed"],
    "refcount_store_release": ["relaxed"],
    "refcount_cas_acquire": ["relaxed"],
    "refcount_sub_acq_rel": ["release", "acquire"],
    "u64_load_acquire": ["relaxed"],
    "u64_store_release": ["relaxed"],
    "u64_add_release": ["relaxed"],
    "u64_cas_acquire": ["relaxed"],
    "u64_cas_release": ["relaxed"],
    "fence_release": ["none"],
    "fence_seq_cst": ["acq_rel"],
}
CALL = re.compile(r"\b(" + "|".join(WEAKER) + r")\s*\(")
FUNCTION = re.compile(r"^(?:[A-Za-z_][\w \*]*?[ \*])?(\w+)\(")


def strip_comments(text):
    """Blanks comments and string literals, keeping every newline."""
    def blank(m):
        return re.sub(r"[^\n]", " ", m.group(0))
    return re.sub(r'/\*.*?\*/|//[^\n]*|"(\\.|[^"\\\n])*"', blank, text,
                  flags=re.S)


def sites(path):
    text = strip_comments(open(path).read())
    lines = text.split("\n")
    for m in CALL.finditer(text):
        depth, i = 0, m.end() - 1
        while True:
            depth += {"(": 1, ")": -1}.get(text[i], 0)
            if depth == 0:
                break
            i += 1
        name_line = text.count("\n", 0, m.start()) + 1
        line = text.count("\n", 0, i) + 1
        function = "?"
        for k in range(name_line - 1, -1, -1):
            f = FUNCTION.match(lines[k])
            if f:
                function = f.group(1)
                break
        for to in WEAKER[m.group(1)]:
            yield os.path.basename(path), line, m.group(1), to, function, name_line


def main():
    lib = sys.argv[1] if len(sys.argv) > 1 else "lib"
    for name in sorted(os.listdir(lib)):
        if name == "atomics.h" or not name.endswith((".c", ".h")):
            continue
        calls = {}
        for f, line, op, to, function, name_line in sites(
                os.path.join(lib, name)):
            k = calls.setdefault((function, op, to), set())
            k.add(line)
            key = f"{f} {function} {op}" + (f" #{len(k)}" if len(k) > 1 else "")
            print(f"{f}:{line} {op} {to}\t{key}")


main()
