/* SPDX-License-Identifier: MIT */
/*
 * What the operating system gives ftpool beyond C11 and pthreads: a font
 * file's identity and its bytes, and whether fork() exists. One
 * implementation per platform, each compiled to nothing on the others:
 * platform_posix.c (Linux, macOS, the BSDs) and platform_win32.c (Windows,
 * through mingw-w64). Paths are the caller's bytes on POSIX and UTF-8 on
 * Windows. docs/building.md lists what each platform is assumed to do.
 */
#ifndef FTPOOL_PLATFORM_H
#define FTPOOL_PLATFORM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Which version of which file a blob holds; all zero for bytes from memory.
 * POSIX: st_dev, st_ino, st_size, st_mtim, st_ctim. Windows: the volume's
 * serial number, the file index, the size, the last-write time and the
 * change time (100 ns ticks since 1601). The change time is there because
 * nobody can set it: ext4 hands a freed inode to the next file, so a file
 * replaced twice by rename can come back with its first inode, and tools
 * (cp -p, rsync, tar, SOURCE_DATE_EPOCH) give every version one size and
 * mtime; a rename or a write sets the ctime to now. */
struct file_identity {
  uint64_t device;
  uint64_t inode;
  size_t size;
  int64_t mtime_sec;
  long mtime_nsec;
  int64_t ctime_sec;
  long ctime_nsec;
};

/* A file open for reading: a descriptor on POSIX, a HANDLE on Windows. */
struct platform_file {
  intptr_t handle;
};

/* The identity of the regular file at path; false if there is none, it
 * cannot be read, or it does not fit in memory (size_t). */
bool ftpool__platform_file_identity(const char *path,
                                    struct file_identity *identity);

/* Opens the regular file at path for reading, with the identity of what was
 * opened (the bytes read are that version's); false as above. */
bool ftpool__platform_open(const char *path, struct platform_file *file,
                           struct file_identity *identity);

/* Reads the first size bytes of an open file; false on a short read. */
bool ftpool__platform_read(struct platform_file *file, void *bytes,
                           size_t size);

void ftpool__platform_close(struct platform_file *file);

/* A per-thread flag that stays set until the thread is gone, for
 * per_thread.c to tell that its key destructor already ran for the calling
 * thread. A _Thread_local on POSIX. On Windows, GCC emulates _Thread_local
 * with a pthread key whose destructor frees the thread's variables, maybe
 * before another library's destructor calls in, which would then find the
 * flag clear again: there it is a Win32 TLS slot, kept until the thread
 * ends. */
void ftpool__platform_mark_exiting(void);
bool ftpool__platform_exiting(void);

/* Whether FreeType opens a path as the caller gave it. On Windows its
 * FT_OPEN_PATHNAME reads the bytes in the ANSI code page, not UTF-8, so
 * ftpool reads the file itself (wide API) and gives FreeType the bytes. */
#ifdef _WIN32
#define FTPOOL_FREETYPE_OPENS_PATHS 0
#else
#define FTPOOL_FREETYPE_OPENS_PATHS 1
#endif

/* fork() and pthread_atfork exist on POSIX systems only; Windows has no
 * fork, so the handlers (fork.c, shared_mutex.c) are compiled out there and
 * a pool never sees a fork generation change. The negative control of
 * test/fork_test.cc builds without them too. */
#if !defined(_WIN32) && !defined(FTPOOL_NO_FORK_HANDLERS)
#define FTPOOL_FORK_HANDLERS 1
#else
#define FTPOOL_FORK_HANDLERS 0
#endif

#endif /* FTPOOL_PLATFORM_H */
