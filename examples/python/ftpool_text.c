/*
 * ftpool_text: a CPython extension that renders a line of text through an
 * ftpool pool, from any number of Python threads at once.
 *
 * GIL rules, kept exact:
 *   - every ftpool and FreeType call runs with the GIL released
 *     (Py_BEGIN_ALLOW_THREADS), on inputs copied out of Python objects
 *     beforehand, so rendering never stops other Python threads;
 *   - the configure callback is called by ftpool from inside those calls, on
 *     the calling thread, with the GIL released; it takes the GIL back with
 *     PyGILState_Ensure to call the Python callable. ftpool holds no lock
 *     across the callback and never makes another thread wait for it, so the
 *     callback waiting for the GIL cannot deadlock against a thread that holds
 *     the GIL and waits for this one (see README.md).
 *
 * Without the GIL (a Py_GIL_DISABLED build), the module's own state is safe
 * because a Pool's fields are written once in tp_new and only read after,
 * except `state`, which is atomic (see pool_enter), and because the
 * configure callable is kept alive by the Pool's own reference for as long
 * as any call can reach the callback.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <limits.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ftpool.h"

#include FT_ADVANCES_H

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
    type = PyExc_ValueError;
    break;
  default:
    break;
  }
  return PyErr_Format(type, "%s%s%s (FreeType error %d)", path ? path : "",
                      path ? ": " : "", ftpool_strerror(status), (int)ft_error);
}

/* Counts a call in flight, unless the pool is closed: close() refuses while
 * any is, so ftpool_destroy never overlaps a call on the pool. One atomic
 * word, so this holds without the GIL too. */
static int pool_enter(PoolObject *self) {
  long state = atomic_load(&self->state);
  do {
    if (state == POOL_CLOSED) {
      PyErr_SetString(PyExc_ValueError, "the pool is closed");
      return -1;
    }
  } while (!atomic_compare_exchange_weak(&self->state, &state, state + 1));
  return 0;
}

static void pool_leave(PoolObject *self) { atomic_fetch_sub(&self->state, 1); }

static PyObject *Pool_new(PyTypeObject *type, PyObject *args,
                          PyObject *kwargs) {
  static char *keywords[] = {"configure", "backend", "hold_gil", NULL};
  PyObject *configure = Py_None;
  const char *backend_name = "per_thread";
  int hold_gil = 0;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|Os$p", keywords, &configure,
                                   &backend_name, &hold_gil))
    return NULL;
  ftpool_config config;
  ftpool_config_init(&config);
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

/* A rendered line: an 8-bit gray image, width * height bytes, row-major. */
struct canvas {
  int width, height;
  unsigned char *pixels;
};

/* Draws a glyph's bitmap with its origin at (x, baseline), clipped. */
static void draw(struct canvas *canvas, const FT_Bitmap *bitmap, int x, int y) {
  for (unsigned row = 0; row < bitmap->rows; row++) {
    int cy = y + (int)row;
    if (cy < 0 || cy >= canvas->height)
      continue;
    const unsigned char *src = bitmap->buffer + (ptrdiff_t)row * bitmap->pitch;
    unsigned char *dst = canvas->pixels + (size_t)cy * canvas->width;
    for (unsigned col = 0; col < bitmap->width; col++) {
      int cx = x + (int)col;
      if (cx >= 0 && cx < canvas->width && src[col] > dst[cx])
        dst[cx] = src[col];
    }
  }
}

/* Lays out and renders the text on a face, with plain pen advances; runs
 * without the GIL. Returns a FreeType error. */
static FT_Error render_line(FT_Face face, const Py_UCS4 *text, Py_ssize_t n,
                            int size, struct canvas *canvas) {
  FT_Error error = FT_Set_Pixel_Sizes(face, 0, (FT_UInt)size);
  if (error)
    return error;
  /* First the advances, which need no rendering, to size the canvas. */
  int64_t width = 0;
  for (Py_ssize_t i = 0; i < n; i++) {
    FT_Fixed advance;
    error = FT_Get_Advance(face, FT_Get_Char_Index(face, text[i]),
                           FT_LOAD_DEFAULT, &advance);
    if (error)
      return error;
    width += (advance + 0xffff) >> 16;
    if (width > INT_MAX)
      return FT_Err_Invalid_Argument;
  }
  int ascender = (int)(face->size->metrics.ascender >> 6);
  int descender = (int)(face->size->metrics.descender >> 6);
  canvas->width = (int)width;
  canvas->height = ascender > descender ? ascender - descender : 0;
  if (canvas->height && canvas->width > PY_SSIZE_T_MAX / canvas->height)
    return FT_Err_Out_Of_Memory;
  canvas->pixels = calloc((size_t)canvas->width * canvas->height + 1, 1);
  if (!canvas->pixels)
    return FT_Err_Out_Of_Memory;
  int pen = 0;
  for (Py_ssize_t i = 0; i < n; i++) {
    error = FT_Load_Char(face, text[i], FT_LOAD_RENDER);
    if (error)
      return error;
    FT_GlyphSlot g = face->glyph;
    draw(canvas, &g->bitmap, pen + g->bitmap_left, ascender - g->bitmap_top);
    pen += (int)((g->advance.x + 63) >> 6);
  }
  return 0;
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
  *ft_error = render_line(face, text, n, size, canvas);
  ftpool_close(pool, face);
  return *ft_error ? FTPOOL_ERR_FREETYPE : FTPOOL_OK;
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
  PyObject *result = NULL;
  if (status != FTPOOL_OK) {
    raise_status(status, ft_error, PyBytes_AS_STRING(path));
  } else {
    result = Py_BuildValue("(iiy#)", canvas.width, canvas.height,
                           (const char *)canvas.pixels,
                           (Py_ssize_t)canvas.width * canvas.height);
  }
  free(canvas.pixels);
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
        "Pool(configure=None, backend='per_thread', *, hold_gil=False)\n\n"
        "An ftpool pool. configure(info) is called once for every\n"
        "FreeType library the pool creates, on the thread that gets\n"
        "it, with a dict (thread_id, freetype_version); it must return\n"
        "None, and an exception it raises is raised by the call that\n"
        "needed the library. hold_gil=True keeps the GIL while\n"
        "rendering: a negative control for the tests only.",
    .tp_new = Pool_new,
    .tp_dealloc = (destructor)Pool_dealloc,
    .tp_traverse = (traverseproc)Pool_traverse,
    .tp_clear = (inquiry)Pool_clear,
    .tp_methods = Pool_methods,
};

static int module_exec(PyObject *module) {
  if (PyType_Ready(&PoolType) < 0)
    return -1;
  return PyModule_AddObjectRef(module, "Pool", (PyObject *)&PoolType);
}

static PyModuleDef_Slot module_slots[] = {
    {Py_mod_exec, module_exec},
#ifdef Py_mod_multiple_interpreters
    /* PyGILState_Ensure, in the configure trampoline, knows only the main
     * interpreter; and PoolType is a static type. */
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
