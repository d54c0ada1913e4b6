#ifndef TC_FS_H
#define TC_FS_H
/*
 * Opening a file strictly inside a directory, for the tile server.
 *
 * openat2(2) with RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS makes the kernel refuse
 * any path that would leave `dirfd` ("..", an absolute path) or pass through a
 * symlink anywhere along the way, in one call and without the check/use race a
 * realpath() comparison has. glibc has no wrapper for it and syscall(2) is
 * variadic, which Swift cannot call, hence this shim.
 */

/* Returns an O_RDONLY|O_CLOEXEC|O_NONBLOCK file descriptor (non-blocking, so a
 * planted FIFO cannot hang the caller before it checks the file type), or -1
 * with errno set. Where openat2 is missing (ENOSYS) or filtered (EPERM) it falls back to walking the path one
 * component at a time with O_NOFOLLOW, refusing "." and ".." components. */
int tc_open_beneath(int dirfd, const char *relative_path);

#endif
