# SPDX-License-Identifier: MIT
"""Tests of ftpool_text's glyph cache: Font.render draws through the pool's
cache (ftpool_font_advance, ftpool_font_glyph) the same pixels as with
FreeType on the face (cached=False) and as Pool.render, from one thread and
from many, with the cache at its default budget, at one too small for the
text, and off; Pool.stats shows its counters. Run as test_ftpool_text is
(scripts/python_check.sh runs both):

    PYTHONPATH=../../build/python/lib /usr/bin/python3 -m unittest -v \\
        test_glyph_cache
"""
import threading
import unittest

import ftpool_text
from test_ftpool_text import BACKENDS, FONTS, TEXTS, THREADS, VARIABLE, \
    run_threads

GLYPH_STATS = ("glyph_hits", "glyph_misses", "glyph_uncached",
               "glyph_evictions", "glyph_entries", "glyph_bytes_cached",
               "glyph_bytes_awaiting")
DEFAULT, SMALL, OFF = None, 16 << 10, 0  # Pool(glyph_cache_bytes=...)
BUDGETS = {"default": DEFAULT, "small": SMALL, "off": OFF}
SIZES = (11, 24, 40)


def glyph_stats(pool):
    stats = pool.stats()
    return {key: stats[key] for key in GLYPH_STATS}


class CachedRenderTest(unittest.TestCase):
    def test_cached_renders_equal_uncached_ones(self):
        for backend in BACKENDS:
            for budget_name, budget in BUDGETS.items():
                with self.subTest(backend=backend, budget=budget_name), \
                        ftpool_text.Pool(backend=backend,
                                         glyph_cache_bytes=budget) as pool:
                    for path in FONTS:
                        for size in SIZES:
                            font = ftpool_text.Font(pool, path, size)
                            for text in TEXTS + ("", " ", "fi\u4e2d"):
                                uncached = font.render(text, cached=False)
                                self.assertEqual(font.render(text), uncached)
                                self.assertEqual(font.render(text, cached=True),
                                                 uncached)
                                self.assertEqual(
                                    pool.render(path, text, size), uncached)

    def test_variation_coordinates_are_part_of_the_key(self):
        with ftpool_text.Pool() as pool:
            light = ftpool_text.Font(pool, VARIABLE, 24, coords=[300])
            bold = ftpool_text.Font(pool, VARIABLE, 24, coords=[700])
            for font in (light, bold, light, bold):
                self.assertEqual(font.render("Hxg"),
                                 font.render("Hxg", cached=False))
            self.assertNotEqual(light.render("Hxg"), bold.render("Hxg"))

    def test_stats_count_hits_and_misses(self):
        with ftpool_text.Pool() as pool:
            self.assertEqual(set(GLYPH_STATS) - set(pool.stats()), set())
            font = ftpool_text.Font(pool, FONTS[0], 24)
            self.assertEqual(glyph_stats(pool)["glyph_misses"], 0)
            font.render("abcabc")
            first = glyph_stats(pool)
            # 'a', 'b', 'c': an advance and a glyph each, then hits.
            self.assertEqual(first["glyph_misses"], 6)
            self.assertEqual(first["glyph_hits"], 6)
            self.assertEqual(first["glyph_entries"], 6)
            self.assertGreater(first["glyph_bytes_cached"], 0)
            self.assertEqual(first["glyph_uncached"], 0)
            font.render("cab")
            second = glyph_stats(pool)
            self.assertEqual(second["glyph_misses"], 6)
            self.assertEqual(second["glyph_hits"], 12)
            # The uncached path does not touch the cache.
            font.render("xyz", cached=False)
            self.assertEqual(glyph_stats(pool), second)
            # Another font of the same file and size shares the glyphs.
            ftpool_text.Font(pool, FONTS[0], 24).render("abc")
            self.assertEqual(glyph_stats(pool)["glyph_misses"], 6)

    def test_cache_off_renders_every_glyph_once_a_render(self):
        # Each render is one acquire: its repeats of a character are hits
        # on the glyph that acquire got uncached.
        with ftpool_text.Pool(glyph_cache_bytes=OFF) as pool:
            font = ftpool_text.Font(pool, FONTS[1], 24)
            font.render(TEXTS[0])
            font.render(TEXTS[0])
            stats = glyph_stats(pool)
            self.assertEqual(stats["glyph_hits"] + stats["glyph_misses"],
                             4 * len(TEXTS[0]))
            self.assertEqual(stats["glyph_misses"], 4 * len(set(TEXTS[0])))
            self.assertEqual(stats["glyph_uncached"], stats["glyph_misses"])
            self.assertEqual(stats["glyph_entries"], 0)
            self.assertEqual(stats["glyph_bytes_cached"], 0)

    def test_glyph_cache_bytes_is_checked(self):
        with self.assertRaises(ValueError):
            ftpool_text.Pool(glyph_cache_bytes=-1)
        with self.assertRaises(ValueError):
            ftpool_text.Pool(glyph_cache_bytes=1 << 80)
        with self.assertRaises(TypeError):
            ftpool_text.Pool(glyph_cache_bytes="4 MiB")
        with ftpool_text.Pool(glyph_cache_bytes=1 << 20) as pool:
            font = ftpool_text.Font(pool, FONTS[0], 12)
            self.assertGreater(font.render("x")[0], 0)
        with self.assertRaises(TypeError):
            ftpool_text.Font(ftpool_text.Pool(), FONTS[0], 12).render(
                "x", True)  # cached is keyword-only


class ThreadedCacheTest(unittest.TestCase):
    def test_eight_threads_render_what_one_thread_renders(self):
        jobs = [(path, size, text) for path in FONTS for size in (11, 24)
                for text in TEXTS]
        for backend in BACKENDS:
            for budget_name, budget in BUDGETS.items():
                with self.subTest(backend=backend, budget=budget_name), \
                        ftpool_text.Pool(backend=backend,
                                         glyph_cache_bytes=budget) as pool:
                    fonts = {(path, size): ftpool_text.Font(pool, path, size)
                             for path in FONTS for size in (11, 24)}
                    # The reference: FreeType on the face, one thread.
                    expected = {job: fonts[job[:2]].render(job[2],
                                                           cached=False)
                                for job in jobs}
                    mismatches = []
                    all_rendered = threading.Barrier(THREADS)

                    def work(index):
                        for round_ in range(4):
                            shift = index * 3 + round_
                            for job in jobs[shift % len(jobs):] + \
                                    jobs[:shift % len(jobs)]:
                                if fonts[job[:2]].render(job[2]) != \
                                        expected[job]:
                                    mismatches.append(job)
                        all_rendered.wait()

                    self.assertEqual(run_threads(work), [])
                    self.assertEqual(mismatches, [])
                    stats = glyph_stats(pool)
                    self.assertGreater(stats["glyph_misses"], 0)
                    if budget == OFF:
                        self.assertEqual(stats["glyph_entries"], 0)
                        self.assertEqual(stats["glyph_uncached"],
                                         stats["glyph_misses"])
                    elif budget == SMALL:
                        self.assertGreater(stats["glyph_evictions"], 0)
                        self.assertGreater(stats["glyph_hits"], 0)
                        self.assertLessEqual(stats["glyph_bytes_cached"],
                                             SMALL)
                    else:
                        # Each glyph and advance rendered about once, then
                        # found by every thread.
                        self.assertGreater(stats["glyph_hits"],
                                           10 * stats["glyph_misses"])
                        self.assertEqual(stats["glyph_evictions"], 0)
                    del fonts


if __name__ == "__main__":
    unittest.main()
