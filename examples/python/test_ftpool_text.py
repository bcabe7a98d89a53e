# SPDX-License-Identifier: MIT
"""Tests of the ftpool_text extension: many Python threads at once, the
configure callback calling back into Python, the GIL released around
FreeType work, and shared fonts (Font). Run from this directory with the built module on the path,
as scripts/python_check.sh does:

    PYTHONPATH=../../build/python/lib /usr/bin/python3 -m unittest -v \
        test_ftpool_text
"""
import gc
import os
import pathlib
import subprocess
import sys
import textwrap
import threading
import time
import unittest
import weakref

import ftpool_text

DEJAVU = "/usr/share/fonts/truetype/dejavu/"
FONTS = [DEJAVU + name for name in
         ("DejaVuSans.ttf", "DejaVuSerif.ttf", "DejaVuSansMono.ttf")]
JOBS = [(font, size, text)
        for font in FONTS
        for size in (11, 24, 40)
        for text in ("Sphinx of quartz, judge my vow.",
                     "ÅÉÎõü ΩΣ ЖЯ 0123")]
THREADS = 8
BACKENDS = ("per_thread", "shared_mutex")


def join_fully(threads):
    """Joins the threads, then waits until each has really exited.

    Thread.join returns when the thread's Python part is over, before its
    thread-specific data destructors run, and ftpool's run there: a thread
    gives its context back on exit. ftpool_destroy must not overlap that
    (see ftpool.h), so a test that closes a pool after its threads waits
    for their kernel tasks to go, which happens after the destructors."""
    for t in threads:
        t.join()
    for t in threads:
        while os.path.exists("/proc/self/task/%d" % t.native_id):
            time.sleep(0.001)


def run_threads(target, count=THREADS):
    """Runs target(index) on count threads started together; returns the
    exceptions they raised."""
    errors = []
    start = threading.Barrier(count)

    def body(index):
        try:
            start.wait()
            target(index)
        except BaseException as e:  # reported by the calling test
            errors.append(e)

    threads = [threading.Thread(target=body, args=(i,)) for i in range(count)]
    for t in threads:
        t.start()
    join_fully(threads)
    return errors


def gil_enabled():
    return getattr(sys, "_is_gil_enabled", lambda: True)()


class ThreadsTest(unittest.TestCase):
    def test_eight_threads_match_single_threaded(self):
        with ftpool_text.Pool() as pool:
            expected = {job: pool.render(job[0], job[2], job[1])
                        for job in JOBS}
        for backend in BACKENDS:
            with self.subTest(backend=backend), \
                    ftpool_text.Pool(backend=backend) as pool:
                mismatches = []

                def work(index):
                    for round_ in range(3):
                        # Each thread its own order, so that different
                        # fonts and sizes are in flight at once.
                        shift = index * 5 + round_
                        for job in JOBS[shift % len(JOBS):] + \
                                JOBS[:shift % len(JOBS)]:
                            got = pool.render(job[0], job[2], job[1])
                            if got != expected[job]:
                                mismatches.append(job)

                self.assertEqual(run_threads(work), [])
                self.assertEqual(mismatches, [])
                stats = pool.stats()
                self.assertEqual(stats["faces_opened"],
                                 THREADS * 3 * len(JOBS))
                self.assertEqual(stats["faces_open"], 0)

    def test_renders_are_gray_images(self):
        with ftpool_text.Pool() as pool:
            width, height, pixels = pool.render(FONTS[0], "Hi", 32)
        self.assertGreater(width, 0)
        self.assertGreater(height, 0)
        self.assertEqual(len(pixels), width * height)
        self.assertEqual(max(pixels), 255)  # some ink, fully covered pixels


class ConfigureTest(unittest.TestCase):
    def test_called_once_per_library_on_its_thread(self):
        calls = []
        lock = threading.Lock()

        def configure(info):
            with lock:
                calls.append(info)

        with ftpool_text.Pool(configure) as pool:
            pool.render(FONTS[0], "main", 12)
            # Every worker holds its context until all have one, so none
            # can recycle another's: eight new contexts, and the main one,
            # each with two libraries (plain faces, font faces), both
            # configured on the context's first thread.
            all_have_one = threading.Barrier(THREADS)
            idents = set()

            def work(index):
                for _ in range(3):
                    pool.render(FONTS[index % len(FONTS)], "abc", 12)
                idents.add(threading.get_ident())
                all_have_one.wait()

            self.assertEqual(run_threads(work), [])
            self.assertEqual(len(calls), 2 * (THREADS + 1))
            self.assertEqual(pool.stats()["contexts"], THREADS + 1)
            self.assertEqual({c["thread_id"] for c in calls},
                             idents | {threading.get_ident()})
            self.assertEqual(len(calls[0]["freetype_version"]), 3)

    def test_shared_mutex_configures_its_library_in_the_constructor(self):
        calls = []
        with ftpool_text.Pool(calls.append, backend="shared_mutex") as pool:
            self.assertEqual(len(calls), 1)
            self.assertEqual(calls[0]["thread_id"], threading.get_ident())
            self.assertEqual(run_threads(
                lambda i: pool.render(FONTS[0], "x", 12)), [])
            self.assertEqual(len(calls), 1)

    def test_exception_is_raised_by_the_call_that_needed_the_library(self):
        failures = [ZeroDivisionError("first")]

        def configure(info):
            if failures:
                raise failures.pop()

        with ftpool_text.Pool(configure) as pool:
            # Not assertRaises, which drops the traceback.
            try:
                pool.render(FONTS[0], "x", 12)
                self.fail("no exception")
            except ZeroDivisionError as e:
                self.assertEqual(str(e), "first")
                # The traceback reaches into the callback.
                tb = e.__traceback__
                while tb.tb_next:
                    tb = tb.tb_next
                self.assertEqual(tb.tb_frame.f_code.co_name, "configure")
            # Nothing was kept: the thread's next call configures again.
            self.assertGreater(pool.render(FONTS[0], "x", 12)[0], 0)
            self.assertEqual(pool.stats()["contexts"], 1)

    def test_exception_in_many_threads(self):
        def configure(info):
            raise KeyError(info["thread_id"])

        with ftpool_text.Pool(configure) as pool:
            errors = run_threads(lambda i: pool.render(FONTS[0], "x", 12))
            self.assertEqual(len(errors), THREADS)
            for e in errors:
                self.assertIsInstance(e, KeyError)
            # Each thread got its own exception, not another thread's.
            self.assertEqual(len({e.args[0] for e in errors}), THREADS)
            self.assertEqual(pool.stats()["contexts"], 0)

    def test_exception_in_shared_mutex_constructor(self):
        def configure(info):
            raise ValueError("refused")

        with self.assertRaisesRegex(ValueError, "refused"):
            ftpool_text.Pool(configure, backend="shared_mutex")

    def test_must_return_none(self):
        with ftpool_text.Pool(lambda info: 0) as pool:
            with self.assertRaisesRegex(TypeError, "must return None"):
                pool.render(FONTS[0], "x", 12)

    def test_calling_the_pool_from_the_callback_is_refused(self):
        pools = []

        def configure(info):
            pools[0].render(FONTS[0], "x", 12)

        with ftpool_text.Pool(configure) as pool:
            pools.append(pool)
            with self.assertRaisesRegex(RuntimeError, "configure callback"):
                pool.render(FONTS[0], "x", 12)


# Thread A's first render blocks in the configure callback on an Event that
# the main thread sets only after other threads' renders and its own have
# returned. A pool whose first use waited for another thread's (a OnceLock)
# would deadlock here: the scenario runs in a child process, under a time
# limit. With the argument "serialised", every render goes through one lock,
# the simplest pool that waits for another thread's initialisation: the
# negative control, which must deadlock.
BLOCKED_CALLBACK = textwrap.dedent("""
    import os, sys, threading, ftpool_text
    FONT = %r
    go, a_inside = threading.Event(), threading.Event()
    a_ident = []
    def configure(info):
        if a_ident and info["thread_id"] == a_ident[0]:
            a_inside.set()
            if not go.wait(30):
                raise RuntimeError("nobody set the event")
    pool = ftpool_text.Pool(configure)
    render = pool.render
    if sys.argv[1:] == ["serialised"]:
        lock = threading.Lock()
        def render(*args):
            with lock:
                return pool.render(*args)
    def a():
        a_ident.append(threading.get_ident())
        render(FONT, "A", 20)
    ta = threading.Thread(target=a)
    ta.start()
    a_inside.wait()
    others = [threading.Thread(target=render, args=(FONT, "B", 20))
              for _ in range(3)]
    for t in others:
        t.start()
    for t in others:
        t.join()
    render(FONT, "main", 20)
    go.set()
    ta.join()
    print("done", flush=True)
    # No teardown: the deadlock alone is under test, and destroying the
    # pool here would have to wait for the threads' exits (join_fully).
    os._exit(0)
""") % FONTS[0]


def run_blocked_callback(timeout, *args):
    env = dict(os.environ,
               PYTHONPATH=os.path.dirname(ftpool_text.__file__))
    return subprocess.run([sys.executable, "-c", BLOCKED_CALLBACK, *args],
                          env=env, capture_output=True, text=True,
                          timeout=timeout)


class GilTest(unittest.TestCase):
    def test_callback_blocked_on_another_thread_does_not_deadlock(self):
        try:
            child = run_blocked_callback(60)
        except subprocess.TimeoutExpired:
            self.fail("deadlock: the child did not finish in 60 s")
        self.assertEqual(child.returncode, 0, child.stderr)
        self.assertEqual(child.stdout, "done\n")

    def test_negative_control_serialised_first_use_deadlocks(self):
        with self.assertRaises(subprocess.TimeoutExpired):
            run_blocked_callback(3, "serialised")

    def ticks_during_a_long_render(self, render):
        """Calls render(text) on a line long enough to take 0.15 s or more
        while a pure Python thread counts; returns how many of its ticks
        fell inside the middle half of the render."""
        text = "Sphinx of quartz, judge my vow. " * 100
        while True:
            ticks = []
            stop = threading.Event()

            def count():
                while not stop.is_set():
                    ticks.append(time.monotonic())

            counter = threading.Thread(target=count)
            counter.start()
            while not ticks:  # the counter runs before the render starts
                time.sleep(0.001)
            start = time.monotonic()
            render(text)
            end = time.monotonic()
            stop.set()
            counter.join()
            if end - start >= 0.15:
                quarter = (end - start) / 4
                return sum(start + quarter < t < end - quarter for t in ticks)
            text *= 2

    def renders(self, pool):
        """Pool.render and Font.render of FONTS[1] at 24 px, by name."""
        font = ftpool_text.Font(pool, FONTS[1], 24)
        return {"Pool": lambda text: pool.render(FONTS[1], text, 24),
                "Font": font.render}

    def test_render_releases_the_gil(self):
        with ftpool_text.Pool() as pool:
            for name, render in self.renders(pool).items():
                with self.subTest(render=name):
                    self.assertGreater(
                        self.ticks_during_a_long_render(render), 0)

    @unittest.skipUnless(gil_enabled(), "no GIL to hold")
    def test_negative_control_render_holding_the_gil_stops_python(self):
        with ftpool_text.Pool(hold_gil=True) as pool:
            for name, render in self.renders(pool).items():
                with self.subTest(render=name):
                    self.assertEqual(
                        self.ticks_during_a_long_render(render), 0)


class LifetimeAndErrorsTest(unittest.TestCase):
    def test_closed_pool_refuses_calls(self):
        pool = ftpool_text.Pool()
        pool.close()
        pool.close()  # a no-op
        with self.assertRaisesRegex(ValueError, "closed"):
            pool.render(FONTS[0], "x", 12)
        with self.assertRaisesRegex(ValueError, "closed"):
            pool.stats()

    def test_close_refused_while_a_render_is_in_flight(self):
        inside, go = threading.Event(), threading.Event()

        def configure(info):
            inside.set()
            go.wait(30)

        with ftpool_text.Pool(configure) as pool:
            t = threading.Thread(target=pool.render, args=(FONTS[0], "x", 12))
            t.start()
            inside.wait()
            with self.assertRaisesRegex(RuntimeError, "in flight"):
                pool.close()
            go.set()
            join_fully([t])

    def test_callback_cycle_is_collected(self):
        # holder -> pool -> configure -> holder: only the garbage collector
        # frees it (through Pool's tp_traverse and tp_clear), and must
        # destroy the pool before it drops the callable.
        class Holder:
            def configure(self, info):
                pass

        holder = Holder()
        holder.pool = ftpool_text.Pool(holder.configure)
        holder.pool.render(FONTS[0], "x", 12)
        alive = weakref.ref(holder)
        del holder
        self.assertIsNotNone(alive())
        gc.collect()
        self.assertIsNone(alive())

    def test_errors(self):
        with ftpool_text.Pool() as pool:
            with self.assertRaises(OSError):
                pool.render("/nonexistent.ttf", "x", 12)
            with self.assertRaisesRegex(ValueError, "format"):
                pool.render(__file__, "x", 12)
            with self.assertRaises(ValueError):
                pool.render(FONTS[0], "x", 0)
            self.assertEqual(pool.render(FONTS[0], "", 12)[0], 0)
        with self.assertRaises(ValueError):
            ftpool_text.Pool(backend="none")
        with self.assertRaises(TypeError):
            ftpool_text.Pool(configure=42)


VARIABLE = "/usr/share/fonts/truetype/inter-vf/Inter-roman.var.ttf"
TEXTS = ("Sphinx of quartz, judge my vow.", "ÅÉÎõü ΩΣ ЖЯ 0123")
# The Debian package of each font read, for the one line a bare system gets
# instead of an OSError that names no package.
FONT_PACKAGES = {**{font: "fonts-dejavu-core" for font in FONTS},
                 VARIABLE: "fonts-inter-variable"}


def setUpModule():
    for font, package in FONT_PACKAGES.items():
        if not os.path.isfile(font):
            raise RuntimeError(
                f"install {package}: scripts/setup.sh ({font} is missing)")


class FontTest(unittest.TestCase):
    def test_eight_threads_on_one_font_match_one_thread(self):
        for backend in BACKENDS:
            with self.subTest(backend=backend), \
                    ftpool_text.Pool(backend=backend) as pool:
                font = ftpool_text.Font(pool, FONTS[0], 24)
                expected = {text: font.render(text) for text in TEXTS}
                # The same image as Pool.render draws.
                for text in TEXTS:
                    self.assertEqual(expected[text],
                                     pool.render(FONTS[0], text, 24))
                mismatches = []
                all_rendered = threading.Barrier(THREADS)

                def work(index):
                    for round_ in range(10):
                        text = TEXTS[(index + round_) % len(TEXTS)]
                        if font.render(text) != expected[text]:
                            mismatches.append(text)
                    # Alive together, the threads hold a context each.
                    all_rendered.wait()

                self.assertEqual(run_threads(work), [])
                self.assertEqual(mismatches, [])
                stats = pool.stats()
                self.assertEqual(stats["fonts"], 1)
                if backend == "per_thread":
                    # One instance per thread, and the main thread's.
                    self.assertEqual(stats["font_instances"], THREADS + 1)
                    self.assertEqual(stats["font_instances_created"],
                                     THREADS + 1)
                    self.assertEqual(stats["font_faces"], THREADS + 1)
                else:
                    self.assertEqual(stats["font_instances"], 1)
                self.assertGreater(stats["font_instance_bytes"], 0)
                del font
                stats = pool.stats()
                self.assertEqual(stats["fonts"], 0)
                # The threads are gone: the release closed their instances.
                self.assertEqual(stats["font_instances"], 0)

    def test_bytes_paths_index_and_coordinates(self):
        with ftpool_text.Pool() as pool:
            expected = ftpool_text.Font(pool, FONTS[0], 24).render(TEXTS[0])
            with open(FONTS[0], "rb") as f:
                data = f.read()
            for source in (data, bytearray(data), memoryview(data),
                           pathlib.Path(FONTS[0])):
                with self.subTest(source=type(source).__name__):
                    font = ftpool_text.Font(pool, source, 24, index=0)
                    self.assertEqual(font.render(TEXTS[0]), expected)
            light = ftpool_text.Font(pool, VARIABLE, 24, coords=[300])
            bold = ftpool_text.Font(pool, VARIABLE, 24, coords=(700.0,))
            self.assertNotEqual(light.render("Hxg"), bold.render("Hxg"))
            self.assertEqual(
                bold.render("Hxg"),
                ftpool_text.Font(pool, VARIABLE, 24, coords=[700]).render(
                    "Hxg"))
            self.assertIs(bold.pool, pool)
            self.assertEqual(bold.size, 24)

    def test_fonts_made_and_dropped_on_other_threads(self):
        with ftpool_text.Pool() as pool:
            handed = [None] * THREADS

            def make(index):
                handed[index] = ftpool_text.Font(pool, FONTS[index % 3], 20)

            self.assertEqual(run_threads(make), [])
            self.assertEqual(pool.stats()["fonts"], THREADS)

            def render_and_drop(index):
                # Another thread's font, rendered and dropped here.
                font = handed[(index + 1) % THREADS]
                handed[(index + 1) % THREADS] = None
                self.assertGreater(font.render("abc")[0], 0)
                del font

            self.assertEqual(run_threads(render_and_drop), [])
            stats = pool.stats()
            self.assertEqual(stats["fonts"], 0)
            # Every thread has exited: their instances went with the fonts.
            self.assertEqual(stats["font_instances"], 0)

    def test_errors(self):
        with ftpool_text.Pool() as pool:
            with self.assertRaises(OSError):
                ftpool_text.Font(pool, "/nonexistent.ttf", 12)
            with self.assertRaisesRegex(ValueError, "format"):
                ftpool_text.Font(pool, __file__, 12)
            with self.assertRaisesRegex(ValueError, "format"):
                ftpool_text.Font(pool, b"not a font" * 100, 12)
            with self.assertRaisesRegex(ValueError, "index"):
                ftpool_text.Font(pool, FONTS[0], 12, index=3)
            with self.assertRaisesRegex(ValueError, "variation"):
                ftpool_text.Font(pool, FONTS[0], 12, coords=[500])
            with self.assertRaisesRegex(ValueError, "variation"):
                ftpool_text.Font(pool, VARIABLE, 12, coords=[500, 1])
            with self.assertRaises(ValueError):
                ftpool_text.Font(pool, VARIABLE, 12, coords=[float("nan")])
            with self.assertRaises(TypeError):
                ftpool_text.Font(pool, VARIABLE, 12, coords=["bold"])
            with self.assertRaises(ValueError):
                ftpool_text.Font(pool, FONTS[0], 0)
            with self.assertRaises(TypeError):
                ftpool_text.Font(pool, 42, 12)
            with self.assertRaises(TypeError):
                ftpool_text.Font("not a pool", FONTS[0], 12)
            font = ftpool_text.Font(pool, FONTS[0], 12)
            with self.assertRaises(TypeError):
                font.render(b"bytes")
            self.assertEqual(font.render("")[0], 0)
            self.assertEqual(pool.stats()["fonts"], 1)

    def test_configure_exception_is_raised_by_font_calls(self):
        calls = []
        main = threading.get_ident()

        def configure(info):
            calls.append(info)
            if len(calls) == 1:  # the main thread's first try
                raise KeyError("create")
            # The worker's first library: counted by thread, as each
            # context configures two.
            if info["thread_id"] != main and \
                    [c["thread_id"] for c in calls].count(info["thread_id"]) == 1:
                raise KeyError("render")

        with ftpool_text.Pool(configure) as pool:
            with self.assertRaisesRegex(KeyError, "create"):
                ftpool_text.Font(pool, FONTS[0], 12)
            font = ftpool_text.Font(pool, FONTS[0], 12)
            errors = run_threads(lambda i: font.render("x"), count=1)
            self.assertEqual([str(e) for e in errors], ["'render'"])

    def test_closing_the_pool_frees_its_fonts(self):
        pool = ftpool_text.Pool()
        font = ftpool_text.Font(pool, FONTS[0], 12)
        other = ftpool_text.Font(pool, FONTS[1], 12)
        pool.close()  # not refused: the fonts go with the pool
        with self.assertRaisesRegex(ValueError, "closed"):
            font.render("x")
        with self.assertRaisesRegex(ValueError, "closed"):
            ftpool_text.Font(pool, FONTS[0], 12)
        self.assertIs(font.pool, pool)
        del font, other  # nothing to release: the pool's destroy freed them

    def test_a_font_keeps_its_pool(self):
        font = ftpool_text.Font(ftpool_text.Pool(), FONTS[0], 12)
        self.assertGreater(font.render("x")[0], 0)
        stats = font.pool.stats()
        self.assertEqual((stats["fonts"], stats["font_instances"]), (1, 1))
        del font  # the last reference to the pool: it is destroyed too

    def test_close_refused_while_a_font_render_is_in_flight(self):
        inside, go = threading.Event(), threading.Event()
        main = threading.get_ident()

        def configure(info):
            # The main thread's two libraries are configured at once; the
            # worker's first one holds its render in flight.
            if info["thread_id"] != main:
                inside.set()
                go.wait(30)

        with ftpool_text.Pool(configure) as pool:
            font = ftpool_text.Font(pool, FONTS[0], 12)
            t = threading.Thread(target=font.render, args=("x",))
            t.start()
            inside.wait()
            with self.assertRaisesRegex(RuntimeError, "in flight"):
                pool.close()
            go.set()
            join_fully([t])

    def test_cycle_through_a_font_is_collected(self):
        # holder -> font -> pool -> configure -> holder.
        class Holder:
            def configure(self, info):
                pass

        holder = Holder()
        holder.font = ftpool_text.Font(
            ftpool_text.Pool(holder.configure), FONTS[0], 12)
        holder.font.render("x")
        alive = weakref.ref(holder)
        del holder
        self.assertIsNotNone(alive())
        gc.collect()
        self.assertIsNone(alive())


if __name__ == "__main__":
    unittest.main()
