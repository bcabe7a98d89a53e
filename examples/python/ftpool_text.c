/* SPDX-License-Identifier: MIT */
/*
 * ftpool_text: a CPython extension that renders a line of text through an
 * ftpool pool, or through a shared font of the pool (Font), from any number
 * of Python threads at once; a Font renders through the pool's glyph cache
 * (render.c: ftpool_font_advance to lay out, ftpool_font_glyph to draw).
 *
 * GIL rules, kept exact:
 *   - every ftpool and FreeType call runs with the GIL released
 *     (Py_BEGIN_ALLOW_THREADS), on inputs copied out of Python objects
 *     beforehand, so rendering never stops other Python threads. The one
 *     input not copied beforehand is a Font's font bytes: ftpool_blob_copy
 *     is itself the copy, made without the GIL from a buffer the call holds
 *     through the buffer protocol, which keeps the object from freeing or
 *     resizing that memory (a bytearray that another thread changes
 *     meanwhile gives a mixed copy, as with any call that releases the GIL
 *     over a buffer);
 *   - the configure callback is called by ftpool from inside those calls, on
 *     the calling thread, with the GIL released; it takes the GIL back with
 *     PyGILState_Ensure to call the Python callable. ftpool holds no lock
 *     across the callback and never makes another thread wait for it, so the
 *     callback waiting for the GIL cannot deadlock against a thread that holds
 *     the GIL and waits for this one (see README.md).
 *
 * Without the GIL (a Py_GIL_DISABLED build), the module's own state is safe
 * because a Pool's fields are written once in tp_new and only read after,
 * except `state`, which is atomic (see pool_enter); because the configure
 * callable is kept alive by the Pool's own reference for as long as any call
 * can reach the callback; and because a Font's fields, too, are written once
 * in tp_new and only read after, and every call on its ftpool_font (its
 * release in the destructor included) is counted in its Pool's `state`, so
 * that closing the Pool, which frees the font, never overlaps one and makes
 * every later one a no-op or an error.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <limits.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ftpool.h"
#include "render.h"

/* Returned by the configure trampoline when the Python callable failed; the
 * exception waits in pending_configure_error. */
#define CONFIGURE_RAISED (-1)

/*
 * The exception a configure callable raised, from the trampoline to the call
 * that made ftpool configure a library. Both run on the same thread (ftpool
 * configures a library on the thread that needs it), so a thread-local slot
 * carries it without a lock. A callback that itself renders through another
 * pool leaves this slot empty again before it returns: each call takes the
 * exception of its own configure right after its ftpool call.
 */
static _Thread_local PyObject *pending_configure_error;

/* The raised exception as one object (3.12's PyErr_GetRaisedException), and
 * back; the 3.11 spelling is deprecated from 3.12 on. */
static PyObject *take_raised_exception(void) {
#if PY_VERSION_HEX >= 0x030C0000
  return PyErr_GetRaisedException();
#else
  PyObject *type, *value, *traceback;
  PyErr_Fetch(&type, &value, &traceback);
  PyErr_NormalizeException(&type, &value, &traceback);
  if (traceback)
    PyException_SetTraceback(value, traceback);
  Py_XDECREF(type);
  Py_XDECREF(traceback);
  return value;
#endif
}

static void restore_raised_exception(PyObject *exception) {
#if PY_VERSION_HEX >= 0x030C0000
  PyErr_SetRaisedException(exception);
#else
  PyErr_Restore(Py_NewRef(Py_TYPE(exception)), exception,
                PyException_GetTraceback(exception));
#endif
}

/* Pool.state: calls in flight (>= 0), or POOL_CLOSED. */
#define POOL_CLOSED (-1)

typedef struct {
  PyObject ob_base; /* PyObject_HEAD, spelled out for clang-format */
  ftpool *pool;
  PyObject *configure; /* the callable, or NULL; owned */
  int hold_gil;        /* the negative control: keep the GIL in render */
  atomic_long state;
} PoolObject;

/* ftpool's configure callback: calls the Python callable with a dict about
 * the library, on the thread that will own it. */
static FT_Error configure_trampoline(FT_Library library, void *arg) {
  PyObject *callable = arg; /* kept alive by the Pool */
  FT_Int major, minor, patch;
  FT_Library_Version(library, &major, &minor, &patch);

  PyGILState_STATE gil = PyGILState_Ensure();
  PyObject *info =
      Py_BuildValue("{s:k,s:(iii)}", "thread_id", PyThread_get_thread_ident(),
                    "freetype_version", major, minor, patch);
  PyObject *result = info ? PyObject_CallOneArg(callable, info) : NULL;
  Py_XDECREF(info);
  if (result && result != Py_None) {
    PyErr_Format(PyExc_TypeError,
                 "the configure callback must return None, not %.100s",
                 Py_TYPE(result)->tp_name);
  }
  FT_Error error = 0;
  if (PyErr_Occurred()) {
    Py_XSETREF(pending_configure_error, take_raised_exception());
    error = CONFIGURE_RAISED;
  }
  Py_XDECREF(result);
  PyGILState_Release(gil);
  return error;
}

/* Sets the Python exception for a failed ftpool call; with the GIL. */
static PyObject *raise_status(ftpool_status status, FT_Error ft_error,
                              const char *path) {
  if (status == FTPOOL_ERR_CONFIGURE && pending_configure_error) {
    /* Re-raised unchanged in the thread that made the call. */
    restore_raised_exception(pending_configure_error);
    pending_configure_error = NULL;
    return NULL;
  }
  PyObject *type = PyExc_RuntimeError;
  switch (status) {
  case FTPOOL_ERR_OUT_OF_MEMORY:
    return PyErr_NoMemory();
  case FTPOOL_ERR_CANNOT_OPEN:
    type = PyExc_OSError;
    break;
  case FTPOOL_ERR_INVALID_ARGUMENT:
  case FTPOOL_ERR_UNKNOWN_FORMAT:
  case FTPOOL_ERR_BROKEN_FONT:
  case FTPOOL_ERR_FACE_INDEX:
  case FTPOOL_ERR_NOT_VARIABLE:
  case FTPOOL_ERR_INVALID_SIZE:
  case FTPOOL_ERR_GLYPH_INDEX:
  case FTPOOL_ERR_LOAD_FLAGS:
    type = PyExc_ValueError;
    break;
  default:
    break;
  }
  return PyErr_Format(type, "%s%s%s (FreeType error %d)", path ? path : "",
                      path ? ": " : "", ftpool_strerror(status), (int)ft_error);
}

/* Counts a call in flight and returns 1, unless the pool is closed (0):
 * close() refuses while any is, so ftpool_destroy never overlaps a call on
 * the pool. One atomic word, so this holds without the GIL too. */
static int pool_try_enter(PoolObject *self) {
  long state = atomic_load(&self->state);
  do {
    if (state == POOL_CLOSED)
      return 0;
  } while (!atomic_compare_exchange_weak(&self->state, &state, state + 1));
  return 1;
}

/* As pool_try_enter; 0, or -1 with ValueError when the pool is closed. */
static int pool_enter(PoolObject *self) {
  if (pool_try_enter(self))
    return 0;
  PyErr_SetString(PyExc_ValueError, "the pool is closed");
  return -1;
}

static void pool_leave(PoolObject *self) { atomic_fetch_sub(&self->state, 1); }

static PyObject *Pool_new(PyTypeObject *type, PyObject *args,
                          PyObject *kwargs) {
  static char *keywords[] = {"configure", "backend", "hold_gil",
                             "glyph_cache_bytes", NULL};
  PyObject *configure = Py_None, *glyph_cache_bytes = Py_None;
  const char *backend_name = "per_thread";
  int hold_gil = 0;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|Os$pO", keywords, &configure,
                                   &backend_name, &hold_gil,
                                   &glyph_cache_bytes))
    return NULL;
  ftpool_config config;
  ftpool_config_init(&config);
  if (glyph_cache_bytes != Py_None) {
    config.glyph_cache_bytes = PyLong_AsSize_t(glyph_cache_bytes);
    if (config.glyph_cache_bytes == (size_t)-1 && PyErr_Occurred()) {
      if (PyErr_ExceptionMatches(PyExc_OverflowError)) {
        PyErr_Clear();
        PyErr_SetString(PyExc_ValueError,
                        "glyph_cache_bytes must be 0 or more, and fit a "
                        "size_t");
      }
      return NULL;
    }
  }
  if (strcmp(backend_name, "per_thread") == 0) {
    config.backend = FTPOOL_BACKEND_PER_THREAD;
  } else if (strcmp(backend_name, "shared_mutex") == 0) {
    config.backend = FTPOOL_BACKEND_SHARED_MUTEX;
  } else {
    return PyErr_Format(PyExc_ValueError,
                        "backend must be 'per_thread' or 'shared_mutex', "
                        "not '%.100s'",
                        backend_name);
  }
  if (configure != Py_None && !PyCallable_Check(configure))
    return PyErr_Format(PyExc_TypeError, "configure must be callable");

  PoolObject *self = (PoolObject *)type->tp_alloc(type, 0);
  if (!self)
    return NULL;
  self->hold_gil = hold_gil;
  atomic_init(&self->state, POOL_CLOSED); /* until the pool exists */
  if (configure != Py_None) {
    self->configure = Py_NewRef(configure);
    config.configure = configure_trampoline;
    config.configure_arg = configure;
  }
  ftpool_status status;
  FT_Error ft_error = 0;
  /* The shared-mutex backend runs the configure callback in here. */
  Py_BEGIN_ALLOW_THREADS;
  status = ftpool_create(&config, &self->pool);
  if (status != FTPOOL_OK)
    ft_error = ftpool_last_ft_error();
  Py_END_ALLOW_THREADS;
  if (status != FTPOOL_OK) {
    Py_DECREF(self);
    return raise_status(status, ft_error, NULL);
  }
  atomic_store(&self->state, 0);
  return (PyObject *)self;
}

/* Destroys the pool unless a call is in flight; 0, or -1 with an exception. */
static int pool_close(PoolObject *self) {
  long idle = 0;
  if (!atomic_compare_exchange_strong(&self->state, &idle, POOL_CLOSED)) {
    if (idle == POOL_CLOSED)
      return 0;
    PyErr_SetString(PyExc_RuntimeError,
                    "cannot close a pool while calls on it are in flight");
    return -1;
  }
  ftpool *pool = self->pool;
  self->pool = NULL;
  Py_BEGIN_ALLOW_THREADS;
  ftpool_destroy(pool);
  Py_END_ALLOW_THREADS;
  return 0;
}

static int Pool_traverse(PoolObject *self, visitproc visit, void *arg) {
  Py_VISIT(self->configure);
  return 0;
}

/* Only for an unreachable pool, so no call is in flight: destroy the pool
 * before dropping the callable it may call. */
static int Pool_clear(PoolObject *self) {
  if (pool_close(self) != 0)
    return -1;
  Py_CLEAR(self->configure);
  return 0;
}

static void Pool_dealloc(PoolObject *self) {
  PyObject_GC_UnTrack(self);
  if (Pool_clear(self) != 0)
    PyErr_WriteUnraisable((PyObject *)self);
  Py_TYPE(self)->tp_free((PyObject *)self);
}

/* Opens the face, renders, closes; without the GIL. */
static ftpool_status open_and_render(ftpool *pool, const char *path,
                                     const Py_UCS4 *text, Py_ssize_t n,
                                     int size, struct canvas *canvas,
                                     FT_Error *ft_error) {
  FT_Face face;
  ftpool_status status = ftpool_open_file(pool, path, 0, &face);
  if (status != FTPOOL_OK) {
    *ft_error = ftpool_last_ft_error();
    return status;
  }
  *ft_error = FT_Set_Pixel_Sizes(face, 0, (FT_UInt)size);
  if (!*ft_error)
    *ft_error = render_line(face, text, n, canvas);
  ftpool_close(pool, face);
  return *ft_error ? FTPOOL_ERR_FREETYPE : FTPOOL_OK;
}

/* The result of a render, with the GIL: (width, height, bytes), or the
 * exception for its status. Frees the canvas. */
static PyObject *render_result(ftpool_status status, FT_Error ft_error,
                               const char *path, struct canvas *canvas) {
  PyObject *result = NULL;
  if (status != FTPOOL_OK) {
    raise_status(status, ft_error, path);
  } else {
    result = Py_BuildValue("(iiy#)", canvas->width, canvas->height,
                           (const char *)canvas->pixels,
                           (Py_ssize_t)canvas->width * canvas->height);
  }
  free(canvas->pixels);
  canvas->pixels = NULL;
  return result;
}

static PyObject *Pool_render(PoolObject *self, PyObject *args) {
  PyObject *path;
  PyObject *text;
  int size;
  if (!PyArg_ParseTuple(args, "O&Ui:render", PyUnicode_FSConverter, &path,
                        &text, &size))
    return NULL;
  if (size < 1 || size > 4096) {
    Py_DECREF(path);
    return PyErr_Format(PyExc_ValueError, "size must be 1 to 4096 pixels");
  }
  /* The inputs, copied out of Python objects while the GIL is held: the path
   * in the bytes object `path` (immutable, and ours), the text as UCS-4. */
  Py_ssize_t n = PyUnicode_GET_LENGTH(text);
  Py_UCS4 *codepoints = PyUnicode_AsUCS4Copy(text);
  if (!codepoints || pool_enter(self) != 0) {
    PyMem_Free(codepoints);
    Py_DECREF(path);
    return NULL;
  }
  struct canvas canvas = {0, 0, NULL};
  FT_Error ft_error = 0;
  ftpool_status status;
  if (self->hold_gil) {
    status = open_and_render(self->pool, PyBytes_AS_STRING(path), codepoints, n,
                             size, &canvas, &ft_error);
  } else {
    Py_BEGIN_ALLOW_THREADS;
    status = open_and_render(self->pool, PyBytes_AS_STRING(path), codepoints, n,
                             size, &canvas, &ft_error);
    Py_END_ALLOW_THREADS;
  }
  pool_leave(self);
  PyMem_Free(codepoints);
  PyObject *result =
      render_result(status, ft_error, PyBytes_AS_STRING(path), &canvas);
  Py_DECREF(path);
  return result;
}

static int set_count(PyObject *dict, const char *key, size_t value) {
  PyObject *v = PyLong_FromSize_t(value);
  int rc = v ? PyDict_SetItemString(dict, key, v) : -1;
  Py_XDECREF(v);
  return rc;
}

static PyObject *Pool_stats(PoolObject *self, PyObject *unused) {
  (void)unused;
  if (pool_enter(self) != 0)
    return NULL;
  ftpool_stats s;
  Py_BEGIN_ALLOW_THREADS;
  ftpool_get_stats(self->pool, &s);
  Py_END_ALLOW_THREADS;
  pool_leave(self);
  PyObject *d = PyDict_New();
  if (!d)
    return NULL;
#define COUNT(field)                                                           \
  if (set_count(d, #field, s.field) != 0)                                      \
    goto fail;
  COUNT(contexts)
  COUNT(contexts_owned)
  COUNT(contexts_recycled)
  COUNT(contexts_adopted)
  COUNT(contexts_abandoned_at_fork)
  COUNT(contexts_quarantined)
  COUNT(faces_open)
  COUNT(faces_opened)
  COUNT(faces_closed)
  COUNT(closes_deferred)
  COUNT(closes_drained)
  COUNT(blob_hits)
  COUNT(blob_misses)
  COUNT(blob_loads)
  COUNT(blob_evictions)
  COUNT(blob_bytes_cached)
  COUNT(blob_bytes_live)
  COUNT(blob_headers)
  COUNT(fonts)
  COUNT(font_instances)
  COUNT(font_instances_created)
  COUNT(font_instances_reused)
  COUNT(font_instances_evicted)
  COUNT(font_instance_bytes)
  COUNT(font_faces)
  COUNT(glyph_hits)
  COUNT(glyph_misses)
  COUNT(glyph_uncached)
  COUNT(glyph_evictions)
  COUNT(glyph_entries)
  COUNT(glyph_bytes_cached)
  COUNT(glyph_bytes_awaiting)
  COUNT(glyph_uncached_stalled)
  COUNT(glyph_readers_pinned)
  COUNT(glyph_oldest_pin_age)
#undef COUNT
  return d;
fail:
  Py_DECREF(d);
  return NULL;
}

static PyObject *Pool_close(PoolObject *self, PyObject *unused) {
  (void)unused;
  return pool_close(self) == 0 ? Py_NewRef(Py_None) : NULL;
}

static PyObject *Pool_enter(PoolObject *self, PyObject *unused) {
  (void)unused;
  return Py_NewRef(self);
}

static PyObject *Pool_exit(PoolObject *self, PyObject *args) {
  (void)args;
  return Pool_close(self, NULL);
}

static PyMethodDef Pool_methods[] = {
    {"render", (PyCFunction)Pool_render, METH_VARARGS,
     "render(path, text, size) -> (width, height, bytes)\n\n"
     "Renders one line of text from the font file at `path`, `size` pixels\n"
     "high, as 8-bit gray, width * height bytes, row-major."},
    {"stats", (PyCFunction)Pool_stats, METH_NOARGS,
     "stats() -> dict: the pool's counters (ftpool_stats)."},
    {"close", (PyCFunction)Pool_close, METH_NOARGS,
     "close(): frees the pool's libraries; refused while a call is in "
     "flight. Closing twice is a no-op."},
    {"__enter__", (PyCFunction)Pool_enter, METH_NOARGS, NULL},
    {"__exit__", (PyCFunction)Pool_exit, METH_VARARGS, NULL},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject PoolType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "ftpool_text.Pool",
    .tp_basicsize = sizeof(PoolObject),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
    .tp_doc =
        "Pool(configure=None, backend='per_thread', *, hold_gil=False,\n"
        "     glyph_cache_bytes=None)\n\n"
        "An ftpool pool. configure(info) is called once for every\n"
        "FreeType library the pool creates, on the thread that gets\n"
        "it, with a dict (thread_id, freetype_version); it must return\n"
        "None, and an exception it raises is raised by the call that\n"
        "needed the library. hold_gil=True keeps the GIL while\n"
        "rendering: a negative control for the tests only.\n"
        "glyph_cache_bytes is the budget of the pool's glyph cache, which\n"
        "Font.render reads (None: ftpool's default, 4 MiB; 0: off).",
    .tp_new = Pool_new,
    .tp_dealloc = (destructor)Pool_dealloc,
    .tp_traverse = (traverseproc)Pool_traverse,
    .tp_clear = (inquiry)Pool_clear,
    .tp_methods = Pool_methods,
};

/* A shared font of a pool: any number of threads render with it at once,
 * each on the face ftpool keeps for it (its instance). */
typedef struct {
  PyObject ob_base; /* PyObject_HEAD, spelled out for clang-format */
  /* Owned: the pool outlives the font's C object, and its `state` says
   * whether that object still exists (closing the pool frees it). */
  PoolObject *pool;
  ftpool_font *font;
  int size;
} FontObject;

/* Copies a sequence of numbers to 16.16 design coordinates; with the GIL.
 * Returns a PyMem block (NULL for None or an empty sequence), or NULL with
 * an exception. */
static FT_Fixed *coords_from_sequence(PyObject *sequence, FT_UInt *count) {
  *count = 0;
  if (sequence == Py_None)
    return NULL;
  PyObject *items = PySequence_Fast(sequence, "coords must be a sequence");
  if (!items)
    return NULL;
  Py_ssize_t n = PySequence_Fast_GET_SIZE(items);
  FT_Fixed *coords = n ? PyMem_New(FT_Fixed, n) : NULL;
  if (n && !coords) {
    Py_DECREF(items);
    return (FT_Fixed *)PyErr_NoMemory();
  }
  for (Py_ssize_t i = 0; i < n; i++) {
    double value = PyFloat_AsDouble(PySequence_Fast_GET_ITEM(items, i));
    if (value == -1.0 && PyErr_Occurred())
      break;
    if (!(value > -32768.0 && value < 32768.0)) { /* 16.16, NaN refused */
      PyErr_SetString(PyExc_ValueError,
                      "coords must lie between -32768 and 32768");
      break;
    }
    /* Rounded to nearest, without libm's lround. */
    coords[i] = (FT_Fixed)(value * 65536.0 + (value < 0 ? -0.5 : 0.5));
  }
  Py_DECREF(items);
  if (PyErr_Occurred()) {
    PyMem_Free(coords);
    return NULL;
  }
  *count = (FT_UInt)n;
  return coords;
}

/* Makes the font from a path, or from bytes copied into a blob; without
 * the GIL. */
static ftpool_status make_font(ftpool *pool, const char *path,
                               const Py_buffer *bytes, FT_Long index,
                               const FT_Fixed *coords, FT_UInt num_coords,
                               int size, ftpool_font **font,
                               FT_Error *ft_error) {
  ftpool_blob *blob = NULL;
  ftpool_status status = FTPOOL_OK;
  if (!path)
    status = ftpool_blob_copy(pool, bytes->buf, (size_t)bytes->len, &blob);
  if (status == FTPOOL_OK) {
    ftpool_font_desc desc;
    ftpool_font_desc_init(&desc);
    desc.path = path;
    desc.blob = blob;
    desc.face_index = index;
    desc.coords = coords;
    desc.num_coords = num_coords;
    desc.pixel_height = (FT_UInt)size;
    status = ftpool_font_create(pool, &desc, font);
  }
  if (status != FTPOOL_OK)
    *ft_error = ftpool_last_ft_error();
  ftpool_blob_release(blob); /* the font took its own reference */
  return status;
}

static PyObject *Font_new(PyTypeObject *type, PyObject *args,
                          PyObject *kwargs) {
  static char *keywords[] = {"pool", "source", "size", "index", "coords", NULL};
  PyObject *pool, *source, *coords_arg = Py_None;
  int size;
  long index = 0;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O!Oi|$lO:Font", keywords,
                                   &PoolType, &pool, &source, &size, &index,
                                   &coords_arg))
    return NULL;
  if (size < 1 || size > 4096)
    return PyErr_Format(PyExc_ValueError, "size must be 1 to 4096 pixels");
  /* The inputs: a path, encoded into the bytes object `path`, or font
   * bytes, held through the buffer protocol (copied once, by
   * ftpool_blob_copy); the coordinates, converted. */
  PyObject *path = NULL;
  Py_buffer bytes = {0};
  int is_bytes = PyObject_CheckBuffer(source);
  if (is_bytes ? PyObject_GetBuffer(source, &bytes, PyBUF_SIMPLE) != 0
               : !PyUnicode_FSConverter(source, &path))
    return NULL;
  FT_UInt num_coords;
  FT_Fixed *coords = coords_from_sequence(coords_arg, &num_coords);
  FontObject *self = NULL;
  if (coords || !PyErr_Occurred())
    self = (FontObject *)type->tp_alloc(type, 0);
  if (self) {
    self->pool = (PoolObject *)Py_NewRef(pool);
    self->size = size;
    if (pool_enter(self->pool) != 0) {
      Py_CLEAR(self);
    } else {
      const char *c_path = path ? PyBytes_AS_STRING(path) : NULL;
      FT_Error ft_error = 0;
      ftpool_status status;
      Py_BEGIN_ALLOW_THREADS;
      status = make_font(self->pool->pool, c_path, &bytes, (FT_Long)index,
                         coords, num_coords, size, &self->font, &ft_error);
      Py_END_ALLOW_THREADS;
      pool_leave(self->pool);
      if (status != FTPOOL_OK) {
        raise_status(status, ft_error, c_path);
        Py_CLEAR(self);
      }
    }
  }
  PyMem_Free(coords);
  if (is_bytes)
    PyBuffer_Release(&bytes);
  Py_XDECREF(path);
  return (PyObject *)self;
}

static int Font_traverse(FontObject *self, visitproc visit, void *arg) {
  Py_VISIT(self->pool);
  return 0;
}

/* No tp_clear: the pool must stay until the destructor, which asks it
 * whether the font still exists. A cycle through a font is broken at its
 * pool's configure callable. */
static void Font_dealloc(FontObject *self) {
  PyObject_GC_UnTrack(self);
  /* When the pool was closed first, its destroy freed the font. */
  if (self->font && pool_try_enter(self->pool)) {
    Py_BEGIN_ALLOW_THREADS;
    ftpool_font_release(self->font);
    Py_END_ALLOW_THREADS;
    pool_leave(self->pool);
  }
  Py_XDECREF(self->pool);
  Py_TYPE(self)->tp_free((PyObject *)self);
}

/* Acquires the calling thread's face, renders (through the glyph cache, or
 * with FreeType on the face), gives it back; without the GIL, and on one
 * thread, as ftpool requires. The cached glyphs are read before the
 * give-back, which is where they may go. */
static ftpool_status acquire_and_render(ftpool_font *font, int cached,
                                        const Py_UCS4 *text, Py_ssize_t n,
                                        struct canvas *canvas,
                                        FT_Error *ft_error) {
  FT_Face face;
  ftpool_status status = ftpool_font_acquire(font, &face);
  if (status != FTPOOL_OK) {
    *ft_error = ftpool_last_ft_error();
    return status;
  }
  if (cached) {
    status = render_line_cached(font, face, text, n, canvas, ft_error);
  } else {
    *ft_error = render_line(face, text, n, canvas);
    status = *ft_error ? FTPOOL_ERR_FREETYPE : FTPOOL_OK;
  }
  ftpool_font_give_back(font, face);
  return status;
}

static PyObject *Font_render(FontObject *self, PyObject *args,
                             PyObject *kwargs) {
  static char *keywords[] = {"text", "cached", NULL};
  PyObject *text;
  int cached = 1;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "U|$p:render", keywords, &text,
                                   &cached))
    return NULL;
  /* The input, copied out while the GIL is held: the text as UCS-4. */
  Py_ssize_t n = PyUnicode_GET_LENGTH(text);
  Py_UCS4 *codepoints = PyUnicode_AsUCS4Copy(text);
  if (!codepoints || pool_enter(self->pool) != 0) {
    PyMem_Free(codepoints);
    return NULL;
  }
  struct canvas canvas = {0, 0, NULL};
  FT_Error ft_error = 0;
  ftpool_status status;
  if (self->pool->hold_gil) {
    status = acquire_and_render(self->font, cached, codepoints, n, &canvas,
                                &ft_error);
  } else {
    Py_BEGIN_ALLOW_THREADS;
    status = acquire_and_render(self->font, cached, codepoints, n, &canvas,
                                &ft_error);
    Py_END_ALLOW_THREADS;
  }
  pool_leave(self->pool);
  PyMem_Free(codepoints);
  return render_result(status, ft_error, NULL, &canvas);
}

static PyObject *Font_get_pool(FontObject *self, void *closure) {
  (void)closure;
  return Py_NewRef(self->pool);
}

static PyObject *Font_get_size(FontObject *self, void *closure) {
  (void)closure;
  return PyLong_FromLong(self->size);
}

static PyMethodDef Font_methods[] = {
    {"render", (PyCFunction)(void (*)(void))Font_render,
     METH_VARARGS | METH_KEYWORDS,
     "render(text, *, cached=True) -> (width, height, bytes)\n\n"
     "Renders one line of text at the font's size on the calling thread's\n"
     "face of the font, as Pool.render does: through the pool's glyph\n"
     "cache (ftpool_font_advance, ftpool_font_glyph), or with cached=False\n"
     "with FreeType on the face. Both draw the same pixels."},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef Font_getset[] = {
    {"pool", (getter)Font_get_pool, NULL, "The Pool the font belongs to.",
     NULL},
    {"size", (getter)Font_get_size, NULL, "The size in pixels.", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyTypeObject FontType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "ftpool_text.Font",
    .tp_basicsize = sizeof(FontObject),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
    .tp_doc = "Font(pool, source, size, *, index=0, coords=None)\n\n"
              "A font shared by any number of threads, each rendering on a\n"
              "face of its own. source is a path (str or os.PathLike) or the\n"
              "font's bytes (any bytes-like object, copied once); size is in\n"
              "pixels; index is FreeType's face index; coords are variation\n"
              "design coordinates (numbers, one per axis). Closing the pool\n"
              "frees the font: its render then raises ValueError.",
    .tp_new = Font_new,
    .tp_dealloc = (destructor)Font_dealloc,
    .tp_traverse = (traverseproc)Font_traverse,
    .tp_methods = Font_methods,
    .tp_getset = Font_getset,
};

static int module_exec(PyObject *module) {
  if (PyType_Ready(&PoolType) < 0 || PyType_Ready(&FontType) < 0)
    return -1;
  if (PyModule_AddObjectRef(module, "Pool", (PyObject *)&PoolType) < 0)
    return -1;
  return PyModule_AddObjectRef(module, "Font", (PyObject *)&FontType);
}

static PyModuleDef_Slot module_slots[] = {
    {Py_mod_exec, module_exec},
#ifdef Py_mod_multiple_interpreters
    /* PyGILState_Ensure, in the configure trampoline, knows only the main
     * interpreter; and PoolType and FontType are static types. */
    {Py_mod_multiple_interpreters, Py_MOD_MULTIPLE_INTERPRETERS_NOT_SUPPORTED},
#endif
#ifdef Py_GIL_DISABLED
    /* The module does not need the GIL: see the comment at the top. */
    {Py_mod_gil, Py_MOD_GIL_NOT_USED},
#endif
    {0, NULL},
};

static PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT,
    .m_name = "ftpool_text",
    .m_doc = "Renders text through an ftpool pool from many threads.",
    .m_size = 0,
    .m_slots = module_slots,
};

PyMODINIT_FUNC PyInit_ftpool_text(void) {
  return PyModuleDef_Init(&module_def);
}
