#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Writes docs/api.md, the API reference, from include/ftpool.h's comments.

The header is the one source: every declaration with the comment above it,
in the header's order. A public function without a comment is an error, so
the reference cannot silently fall behind.

Usage: scripts/api_doc.py HEADER            # the reference, on stdout
       scripts/api_doc.py HEADER --check MD  # exit 1 if MD is not current
"""
import re
import sys

GENERATED = ("<!-- Generated from include/ftpool.h by scripts/api_doc.py; "
             "edit the header, then run\n"
             "     scripts/api_doc.py include/ftpool.h > docs/api.md -->")

# Lines that only frame the declarations (the licence line included).
FRAME = re.compile(r'^(#ifndef FTPOOL_H|#define FTPOOL_H|#ifdef __cplusplus'
                   r'|extern "C" \{|\}|#endif.*|#include .*'
                   r'|/\* SPDX-License-Identifier: .* \*/)$')

NAME_PATTERNS = [
    re.compile(r'^#define (\w+)'),
    re.compile(r'^\} (\w+);', re.M),                # typedef enum/struct {..}
    re.compile(r'^typedef [^(;]*\(\*(\w+)\)'),      # function pointer
    re.compile(r'^typedef struct \w+ (\w+);'),      # opaque type
    re.compile(r'(\w+)\('),                         # function
]


def comment_text(lines):
    """The words of a /* ... */ block, without its frame."""
    text = []
    for line in lines:
        line = re.sub(r'^\s*/\*+ ?', '', line)
        line = re.sub(r'\s*\*/\s*$', '', line)
        line = re.sub(r'^\s*\* ?', '', line)
        text.append(line)
    while text and not text[0].strip():
        text.pop(0)
    while text and not text[-1].strip():
        text.pop()
    # The header's "*stats" is a pointer, not Markdown's emphasis.
    return '\n'.join(text).replace('*', '\\*')


def chunks(lines):
    """Blank-line separated groups of lines, frame lines dropped."""
    group = []
    for line in lines + ['']:
        if FRAME.match(line.strip()) and not line.startswith(' '):
            continue
        if line.strip():
            group.append(line)
        elif group:
            yield group
            group = []


def split_comment(group):
    """(the leading comment's lines, the code's lines)."""
    if not group[0].lstrip().startswith('/*'):
        return [], group
    for i, line in enumerate(group):
        if '*/' in line:
            return group[:i + 1], group[i + 1:]
    raise SystemExit('api_doc: unterminated comment: ' + group[0])


def name_of(code):
    text = '\n'.join(code)
    for pattern in NAME_PATTERNS:
        match = pattern.search(text)
        if match:
            return match.group(1)
    raise SystemExit('api_doc: cannot name this declaration:\n' + text)


def reference(header):
    lines = open(header, encoding='utf-8').read().split('\n')
    groups = list(chunks(lines))
    overview, _ = split_comment(groups.pop(0))
    out = [GENERATED, '', '# API reference', '',
           'Everything here is declared in `include/ftpool.h` (C11; C++ may '
           'include it too). The header comes first: its contract.', '',
           '## Contract', '', comment_text(overview), '', '## Declarations']
    undocumented = []
    for group in groups:
        comment, code = split_comment(group)
        if not code:
            out += ['', comment_text(comment)]
            continue
        name = name_of(code)
        if not comment and name.startswith('ftpool_') and '(' in code[0]:
            undocumented.append(name)
        out += ['', '### `%s`' % name, '', '```c'] + code + ['```']
        if comment:
            out += ['', comment_text(comment)]
    if undocumented:
        raise SystemExit('api_doc: no comment above: ' +
                         ', '.join(undocumented))
    return '\n'.join(out) + '\n'


def main(argv):
    if len(argv) == 2:
        sys.stdout.write(reference(argv[1]))
        return 0
    if len(argv) == 4 and argv[2] == '--check':
        current = open(argv[3], encoding='utf-8').read()
        if current == reference(argv[1]):
            return 0
        sys.stderr.write('%s is not the reference of %s: run\n'
                         '  scripts/api_doc.py include/ftpool.h > docs/api.md\n'
                         % (argv[3], argv[1]))
        return 1
    sys.stderr.write(__doc__)
    return 2


if __name__ == '__main__':
    sys.exit(main(sys.argv))
