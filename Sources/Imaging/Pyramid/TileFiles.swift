#if canImport(Glibc)
internal import Glibc
#elseif canImport(Musl)
internal import Musl
#elseif canImport(Darwin)
internal import Darwin
#endif

/// Plain POSIX file writing for pyramids, which write thousands of small files.
///
/// No temporary files, no fsync: tiles are derived data that can always be
/// rebuilt, and descriptors are written last so a pyramid interrupted midway
/// has no `.dzi`/`info.json` and reads as missing. A directory is created only
/// when opening a file in it fails with ENOENT, so a level's directory costs
/// one `mkdir` for the whole level rather than one per tile.
enum TileFiles {
    /// Writes `bytes` to `path`, replacing any existing file and creating
    /// missing parent directories.
    static func write(_ bytes: UnsafeRawBufferPointer, to path: String) throws(ImagingError) {
        var fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        if fd < 0, errno == ENOENT, let slash = path.lastIndex(of: "/") {
            try makeDirectories(String(path[..<slash]))
            fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        }
        guard fd >= 0 else { throw failure("cannot create", path) }
        var offset = 0
        while offset < bytes.count {
            let written = systemWrite(fd, bytes.baseAddress! + offset, bytes.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                let error = failure("cannot write", path)
                close(fd)
                throw error
            }
            offset += written
        }
        guard close(fd) == 0 else { throw failure("cannot finish writing", path) }
    }

    /// ``write(_:to:)`` for an array.
    static func write(_ bytes: [UInt8], to path: String) throws(ImagingError) {
        let result = bytes.withUnsafeBytes { raw in Result { () throws(ImagingError) in try write(raw, to: path) } }
        try result.get()
    }

    /// `mkdir -p`: creates `path` and any missing parents; existing directories are fine.
    static func makeDirectories(_ path: String) throws(ImagingError) {
        if mkdir(path, 0o755) == 0 || errno == EEXIST { return }
        guard errno == ENOENT, let slash = path.lastIndex(of: "/"), slash != path.startIndex else {
            throw failure("cannot create directory", path)
        }
        try makeDirectories(String(path[..<slash]))
        guard mkdir(path, 0o755) == 0 || errno == EEXIST else { throw failure("cannot create directory", path) }
    }

    /// An error naming the path and the system's reason, read from `errno`.
    private static func failure(_ what: String, _ path: String) -> ImagingError {
        let code = errno
        let reason = strerror(code).map { String(cString: $0) } ?? "error \(code)"
        return .encodeFailed("\(what) \(path): \(reason)")
    }
}

/// The C `write(2)`, reachable under another name inside ``TileFiles``, whose own `write` shadows it.
private func systemWrite(_ fd: Int32, _ buffer: UnsafeRawPointer, _ count: Int) -> Int {
    write(fd, buffer, count)
}
