# SPDX-License-Identifier: MIT
# Sourced by examples/mupdf's check, bench and measure_locks: the messages
# `mutool draw` may print on stderr with nothing wrong. Any other fails the
# run (a missing font above all: the builds have none built in). MuPDF's
# own: no ICC in Debian's build, a dangling link in a corpus PDF, the
# repeat counter, and the store's when two band workers decode one image at
# once (each stores it, MuPDF keeps one; stock prints it too).
# shellcheck shell=bash disable=SC2034 # used by the scripts that source it
harmless='^warning: (ICC support is not available|undefined link destination|\.\.\. repeated [0-9]+ times\.\.\.|found duplicate fz_image in the store)$'
