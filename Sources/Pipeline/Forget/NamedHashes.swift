import BlobStore
import Catalog
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Which of some images the cache's manifests still name, found in their bytes: every
/// post that uses an image names it by its SHA-256 (64 lower-case hex digits: the
/// media's `sha256`, its thumbnails' and pack's paths), so one pass over each file
/// for runs of exactly 64 such digits finds every use, by current posts and by the
/// older copies of posts the catalog does not index alike.
///
/// What `forget` asks before it deletes an image: no manifest post may still use it.
/// Read 4 MB (or a compressed manifest's frame) at a time, so a manifest of
/// gigabytes is never resident.
enum NamedHashes {
    static func find(_ candidates: Set<BlobHash>, inFiles paths: [String]) -> (named: Set<BlobHash>, unreadable: [String]) {
        guard !candidates.isEmpty else { return ([], []) }
        let wanted = Set(candidates.map(\.hex))
        var named = Set<BlobHash>()
        var unreadable: [String] = []
        let chunk = 4 << 20
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: chunk + 128, alignment: 16)
        defer { buffer.deallocate() }
        for path in paths {
            let fd = open(path, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else {
                unreadable.append(path)
                continue
            }
            defer { close(fd) }
            // A compressed manifest is read as its JSON, a frame at a time (checked:
            // a damaged frame makes the file unreadable, which keeps every image).
            var frames: (file: SeekableZstdFile, next: Int)?
            if SeekableZstd.isCompressed(fd) {
                guard let file = try? SeekableZstdFile(descriptor: fd, directory: (path as NSString).deletingLastPathComponent) else {
                    unreadable.append(path)
                    continue
                }
                frames = (file, 0)
            }
            /// The next piece of the JSON into `buffer` after `carried`: its length, 0 at
            /// the end, -1 when it cannot be read.
            func next(_ carried: Int) -> Int {
                guard let (file, first) = frames else { return read(fd, buffer.baseAddress! + carried, chunk) }
                var index = first
                while index < file.table.frameCount, file.table.decompressedStarts[index + 1] == file.table.decompressedStarts[index] {
                    index += 1  // an empty frame (another writer's): nothing to scan
                }
                guard index < file.table.frameCount else { return 0 }
                guard let bytes = try? file.frame(index), bytes.count <= chunk else { return -1 }
                frames = (file, index + 1)
                bytes.withUnsafeBytes { (buffer.baseAddress! + carried).copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
                return bytes.count
            }
            var carried = 0  // hex digits carried over from the last chunk (at most 64)
            var run = 0
            while true {
                let count = next(carried)
                if count < 0 {
                    if frames == nil, errno == EINTR { continue }
                    unreadable.append(path)
                    break
                }
                let end = carried + count
                var i = carried
                let bytes = UnsafeRawBufferPointer(buffer)
                func check(_ stop: Int) {
                    let hex = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[(stop - 64)..<stop]), as: UTF8.self)
                    if wanted.contains(hex), let hash = BlobHash(hex: hex) { named.insert(hash) }
                }
                while i < end {
                    let b = bytes[i]
                    if (0x30...0x39).contains(b) || (0x61...0x66).contains(b) {
                        run += 1
                    } else {
                        if run == 64 { check(i) }
                        run = 0
                    }
                    i += 1
                }
                if count == 0 {
                    if run == 64 { check(end) }
                    break
                }
                // Keep the run in progress (up to 64 digits) at the start of the next chunk.
                let keep = min(run, 65)
                if keep > 0 { memmove(buffer.baseAddress!, buffer.baseAddress! + end - keep, keep) }
                carried = keep
                run = keep
            }
        }
        return (named, unreadable)
    }
}
