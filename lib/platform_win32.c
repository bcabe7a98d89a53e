/* SPDX-License-Identifier: MIT */
/*
 * platform.h on Windows: paths are UTF-8, converted to UTF-16 for the wide
 * API; a file's identity is its volume's serial number and its file index
 * (what st_dev and st_ino are on POSIX), its size, its last-write time and
 * its change time (st_ctim's equivalent; 0 where the file system keeps none,
 * as FAT).
 * Files are opened sharing read, write and delete, so that an open in
 * progress never makes another program's replace-by-rename fail.
 */
#include "platform.h"

#ifdef _WIN32
#include <stdlib.h>
#include <windows.h>

#include "atomics.h"

/* A UTF-16 copy of a UTF-8 path: on the stack up to MAX_PATH characters,
 * else on the heap (a failure there reads as a file that cannot be opened). */
struct wide_path {
  wchar_t *chars;
  wchar_t small[MAX_PATH];
};

static bool widen(const char *path, struct wide_path *wide) {
  wide->chars = wide->small;
  /* MB_ERR_INVALID_CHARS: bytes that are not UTF-8 name no file. */
  int length =
      MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, path, -1, NULL, 0);
  if (length <= 0)
    return false;
  if (length > MAX_PATH &&
      !(wide->chars = malloc((size_t)length * sizeof *wide->chars)))
    return false;
  return MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, path, -1,
                             wide->chars, length) == length;
}

static void wide_path_free(struct wide_path *wide) {
  if (wide->chars && wide->chars != wide->small)
    free(wide->chars);
}

/* access 0 asks for the file's attributes only. A directory does not open
 * (that needs FILE_FLAG_BACKUP_SEMANTICS), so it reads as no regular file. */
static HANDLE open_path(const char *path, DWORD access) {
  struct wide_path wide;
  HANDLE handle = INVALID_HANDLE_VALUE;
  if (widen(path, &wide))
    handle = CreateFileW(wide.chars, access,
                         FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE,
                         NULL, OPEN_EXISTING, FILE_ATTRIBUTE_NORMAL, NULL);
  wide_path_free(&wide);
  return handle;
}

static bool identity_of(HANDLE handle, struct file_identity *id) {
  BY_HANDLE_FILE_INFORMATION info;
  FILE_BASIC_INFO basic;
  if (GetFileType(handle) != FILE_TYPE_DISK ||
      !GetFileInformationByHandle(handle, &info) ||
      (info.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY) ||
      !GetFileInformationByHandleEx(handle, FileBasicInfo, &basic,
                                    sizeof basic))
    return false;
  uint64_t size = (uint64_t)info.nFileSizeHigh << 32 | info.nFileSizeLow;
  uint64_t written = (uint64_t)info.ftLastWriteTime.dwHighDateTime << 32 |
                     info.ftLastWriteTime.dwLowDateTime;
  uint64_t changed = (uint64_t)basic.ChangeTime.QuadPart;
  /* Through size_t and back: a file too large to load is refused here. */
  if ((uint64_t)(size_t)size != size)
    return false;
  *id = (struct file_identity){.device = info.dwVolumeSerialNumber,
                               .inode = (uint64_t)info.nFileIndexHigh << 32 |
                                        info.nFileIndexLow,
                               .size = (size_t)size,
                               .mtime_sec = (int64_t)(written / 10000000),
                               .mtime_nsec = (long)(written % 10000000) * 100,
                               .ctime_sec = (int64_t)(changed / 10000000),
                               .ctime_nsec = (long)(changed % 10000000) * 100};
  return true;
}

bool ftpool__platform_file_identity(const char *path,
                                    struct file_identity *identity) {
  HANDLE handle = open_path(path, 0);
  if (handle == INVALID_HANDLE_VALUE)
    return false;
  bool ok = identity_of(handle, identity);
  CloseHandle(handle);
  return ok;
}

bool ftpool__platform_open(const char *path, struct platform_file *file,
                           struct file_identity *identity) {
  HANDLE handle = open_path(path, GENERIC_READ);
  if (handle == INVALID_HANDLE_VALUE)
    return false;
  if (!identity_of(handle, identity)) {
    CloseHandle(handle);
    return false;
  }
  file->handle = (intptr_t)handle;
  return true;
}

bool ftpool__platform_read(struct platform_file *file, void *bytes,
                           size_t size) {
  HANDLE handle = (HANDLE)file->handle;
  size_t done = 0;
  while (done < size) {
    /* ReadFile counts in DWORDs: at most 1 GiB a call. */
    DWORD want = size - done > (1u << 30) ? (1u << 30) : (DWORD)(size - done);
    DWORD got = 0;
    if (!ReadFile(handle, (unsigned char *)bytes + done, want, &got, NULL) ||
        got == 0)
      return false;
    done += got;
  }
  return true;
}

void ftpool__platform_close(struct platform_file *file) {
  CloseHandle((HANDLE)file->handle);
}

/* The TLS slot of the exiting flag, plus one; 0 until the first thread
 * exits. Allocated by racing to publish, as the default pool is: no caller
 * waits for another. Relaxed: the index is all that is published. */
static atomic_word exiting_slot;

void ftpool__platform_mark_exiting(void) {
  uintptr_t slot = word_load_relaxed(&exiting_slot);
  if (!slot) {
    DWORD mine = TlsAlloc();
    /* Out of slots (1088 a process): the flag stays clear, and a late
     * destructor's call attaches, as in libc's last round (design.md). */
    if (mine == TLS_OUT_OF_INDEXES)
      return;
    if (word_cas_relaxed(&exiting_slot, &slot, (uintptr_t)mine + 1))
      slot = (uintptr_t)mine + 1;
    else
      TlsFree(mine); /* slot holds the winner's */
  }
  TlsSetValue((DWORD)(slot - 1), (void *)1);
}

bool ftpool__platform_exiting(void) {
  uintptr_t slot = word_load_relaxed(&exiting_slot);
  return slot && TlsGetValue((DWORD)(slot - 1));
}

#endif /* _WIN32 */
