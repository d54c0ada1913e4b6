#if canImport(Glibc)
import Glibc
#endif

/// The process's soft limit on open files, raised to its hard limit at start.
///
/// Why: a manifest that names frames of earlier runs opens those runs' files to read
/// them, and a collection followed daily for a year names hundreds; the server keeps
/// a socket a visitor besides. The soft limit is often 1,024 while the hard one is far
/// higher, and only the process itself may raise it (Go's runtime does the same).
enum DescriptorLimit {
    static func raise() {
        var limit = rlimit()
        guard getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur < limit.rlim_max else { return }
        limit.rlim_cur = limit.rlim_max
        _ = setrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit)
    }
}
