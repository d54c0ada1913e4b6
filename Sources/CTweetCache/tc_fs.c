#define _GNU_SOURCE
#include "tc_fs.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifdef __linux__
#include <linux/openat2.h>
#endif

static int open_walk(int dirfd, const char *path) {
    char component[256];
    int current = dirfd;
    const char *p = path;
    if (*p == '/') { errno = EXDEV; return -1; }
    for (;;) {
        const char *slash = strchr(p, '/');
        size_t len = slash ? (size_t)(slash - p) : strlen(p);
        if (len == 0 || len >= sizeof component) {
            if (current != dirfd) close(current);
            errno = len == 0 ? ENOENT : ENAMETOOLONG;
            return -1;
        }
        memcpy(component, p, len);
        component[len] = 0;
        if (strcmp(component, ".") == 0 || strcmp(component, "..") == 0) {
            if (current != dirfd) close(current);
            errno = EXDEV;
            return -1;
        }
        int flags = O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | (slash ? O_DIRECTORY : 0);
        int next = openat(current, component, flags);
        int saved = errno;
        if (current != dirfd) close(current);
        if (next < 0) { errno = saved; return -1; }
        if (!slash) return next;
        current = next;
        p = slash + 1;
    }
}

int tc_open_beneath(int dirfd, const char *relative_path) {
#if defined(__linux__) && defined(SYS_openat2)
    struct open_how how;
    memset(&how, 0, sizeof how);
    how.flags = O_RDONLY | O_CLOEXEC | O_NONBLOCK;
    how.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS;
    long fd = syscall(SYS_openat2, dirfd, relative_path, &how, sizeof how);
    /* ENOSYS: an old kernel; EPERM: a seccomp profile that predates openat2. */
    if (fd >= 0 || (errno != ENOSYS && errno != EPERM)) return (int)fd;
#endif
    return open_walk(dirfd, relative_path);
}
