import BlobStore
import Catalog
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A copy of a run's manifest where its user asks for one (`--manifest PATH`), beside
/// the run's own under `manifests/`, which the catalog and `sync` read.
///
/// The copy is the plain JSON a script expects at `run.json`; a PATH ending in `.zst`
/// gets the compressed file (``Catalog/SeekableZstd``), whole: what the run named in
/// earlier runs is copied in, so the copy reads anywhere.
///
/// Scripts archive a run's manifest next to its inputs, often on another disk, so the
/// copy is written in the target's own folder and renamed over it: a reader of PATH
/// sees the old file or the whole new one, never a part, and a file already there is
/// replaced. The target is checked before the run starts, so a mistyped folder costs
/// a message, not a run's downloads.
public struct ManifestCopy: Sendable {
    public let target: URL

    /// Checks that `path` can be written: its folder exists and takes a new file, and
    /// it is not a folder itself.
    public init(path: URL) throws(PipelineError) {
        let target = path.standardizedFileURL
        self.target = target
        let folder = target.deletingLastPathComponent()
        var isFolder: ObjCBool = false
        if FileManager.default.fileExists(atPath: target.path, isDirectory: &isFolder), isFolder.boolValue {
            throw Self.error(target, "it is a folder")
        }
        guard FileManager.default.fileExists(atPath: folder.path, isDirectory: &isFolder) else {
            throw Self.error(target, "the folder \(folder.path) does not exist")
        }
        guard isFolder.boolValue else { throw Self.error(target, "\(folder.path) is not a folder") }
        // Whether a new file can be made there is asked of the file system itself:
        // permissions, read-only mounts and full quotas all answer the same way.
        let probe = Self.temporaryName(for: target, purpose: "check")
        let fd = open(probe.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw Self.error(target, String(cString: strerror(errno))) }
        close(fd)
        unlink(probe.path)
    }

    /// Copies `source` to the target: into a hidden file in the target's folder,
    /// flushed, then renamed over the target and the folder flushed.
    public func write(from source: URL) throws(PipelineError) {
        let temporary = Self.temporaryName(for: target, purpose: "copy")
        do {
            try Self.copy(source.path, to: temporary.path, compressed: target.path.hasSuffix(".zst"))
            guard rename(temporary.path, target.path) == 0 else { throw BlobStoreError.lastSystemError("rename to", path: target.path) }
            try FileSystem.syncDirectory(target.deletingLastPathComponent().path)
        } catch {
            unlink(temporary.path)
            throw .manifest("\(error)")
        }
    }

    /// The bytes of `source` in a new file at `temporary` (uncompressed unless
    /// `compressed`: the target is a `.zst`), flushed to disk.
    private static func copy(_ source: String, to temporary: String, compressed: Bool) throws {
        let input = try FileSystem.openFile(source, flags: O_RDONLY, operation: "open")
        defer { close(input) }
        let output = try FileSystem.openFile(temporary, flags: O_WRONLY | O_CREAT | O_EXCL, operation: "create")
        defer { close(output) }
        let folder = (source as NSString).deletingLastPathComponent
        if SeekableZstd.isCompressed(input) {
            let file = try SeekableZstdFile(descriptor: input, directory: folder)
            if !compressed {
                try file.expand(to: output, path: temporary)
                try FileSystem.sync(output, path: temporary)
                return
            }
            if try file.writeWhole(to: { try FileSystem.writeAll(output, $0, path: temporary) }) {
                try FileSystem.sync(output, path: temporary)
                return
            }
        }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
        defer { buffer.deallocate() }
        while case let count = try FileSystem.readSome(input, into: buffer, path: source), count > 0 {
            try FileSystem.writeAll(output, UnsafeRawBufferPointer(rebasing: buffer[0..<count]), path: temporary)
        }
        try FileSystem.sync(output, path: temporary)
    }

    private static func temporaryName(for target: URL, purpose: String) -> URL {
        target.deletingLastPathComponent()
            .appendingPathComponent(".\(target.lastPathComponent).\(purpose)-\(UInt64.random(in: .min ... .max))")
    }

    private static func error(_ path: URL, _ why: String) -> PipelineError {
        .manifest("\(path.path): \(why)")
    }
}
