/* SPDX-License-Identifier: MIT */
/* platform.h on POSIX systems: stat() for identity, open/pread for bytes. */
#ifdef __APPLE__
/* macOS hides its names for st_mtim and st_ctim (st_mtimespec,
 * st_ctimespec) under _POSIX_C_SOURCE. */
#define _DARWIN_C_SOURCE
#endif
/* 64-bit off_t, ino_t and time_t where they have 32 bits by default (glibc
 * on 32-bit ARM and x86): stat() fails there with EOVERFLOW for a file
 * dated after January 2038, or whose inode number has over 32 bits (XFS,
 * overlays). Only this file sees struct stat: file_identity is 64-bit. */
#ifndef _FILE_OFFSET_BITS
#define _FILE_OFFSET_BITS 64
#endif
#ifndef _TIME_BITS
#define _TIME_BITS 64
#endif

#include "platform.h"

#ifndef _WIN32
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#ifdef __APPLE__
#define MTIME(st) ((st)->st_mtimespec)
#define CTIME(st) ((st)->st_ctimespec)
#else
#define MTIME(st) ((st)->st_mtim) /* POSIX 2008 */
#define CTIME(st) ((st)->st_ctim)
#endif

static bool identity_of(const struct stat *st, struct file_identity *id) {
  /* Through size_t and back: a file too large to load is refused here. */
  if (!S_ISREG(st->st_mode) || st->st_size < 0 ||
      (off_t)(size_t)st->st_size != st->st_size)
    return false;
  *id = (struct file_identity){.device = (uint64_t)st->st_dev,
                               .inode = (uint64_t)st->st_ino,
                               .size = (size_t)st->st_size,
                               .mtime_sec = (int64_t)MTIME(st).tv_sec,
                               .mtime_nsec = MTIME(st).tv_nsec,
                               .ctime_sec = (int64_t)CTIME(st).tv_sec,
                               .ctime_nsec = CTIME(st).tv_nsec};
  return true;
}

bool ftpool__platform_file_identity(const char *path,
                                    struct file_identity *identity) {
  struct stat st;
  return stat(path, &st) == 0 && identity_of(&st, identity);
}

bool ftpool__platform_open(const char *path, struct platform_file *file,
                           struct file_identity *identity) {
  /* O_CLOEXEC: a thread that forks and execs meanwhile does not inherit it. */
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return false;
  struct stat st;
  if (fstat(fd, &st) != 0 || !identity_of(&st, identity)) {
    close(fd);
    return false;
  }
  file->handle = fd;
  return true;
}

bool ftpool__platform_read(struct platform_file *file, void *bytes,
                           size_t size) {
  size_t done = 0;
  while (done < size) {
    ssize_t got = pread((int)file->handle, (unsigned char *)bytes + done,
                        size - done, (off_t)done);
    if (got < 0 && errno == EINTR)
      continue;
    if (got <= 0)
      return false;
    done += (size_t)got;
  }
  return true;
}

void ftpool__platform_close(struct platform_file *file) {
  close((int)file->handle);
}

static _Thread_local bool exiting;

void ftpool__platform_mark_exiting(void) { exiting = true; }

bool ftpool__platform_exiting(void) { return exiting; }

#endif /* !_WIN32 */
