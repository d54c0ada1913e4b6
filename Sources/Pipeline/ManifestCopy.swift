import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A copy of a run's manifest where its user asks for one (`--manifest PATH`), beside
/// the run's own under `manifests/`, which the catalog and `sync` read.
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
        do throws(PipelineError) {
            try Self.copy(source, to: temporary)
            guard rename(temporary.path, target.path) == 0 else {
                throw Self.error(target, String(cString: strerror(errno)))
            }
        } catch {
            unlink(temporary.path)
            throw error
        }
        let folder = open(target.deletingLastPathComponent().path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if folder >= 0 {
            _ = fsync(folder)
            close(folder)
        }
    }

    private static func copy(_ source: URL, to temporary: URL) throws(PipelineError) {
        let input = open(source.path, O_RDONLY | O_CLOEXEC)
        guard input >= 0 else { throw error(source, String(cString: strerror(errno))) }
        defer { close(input) }
        let output = open(temporary.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard output >= 0 else { throw error(temporary, String(cString: strerror(errno))) }
        defer { close(output) }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
        defer { buffer.deallocate() }
        while true {
            let count = read(input, buffer.baseAddress, buffer.count)
            if count == 0 { break }
            if count < 0 {
                if errno == EINTR { continue }
                throw error(source, String(cString: strerror(errno)))
            }
            var written = 0
            while written < count {
                let n = Glibc.write(output, buffer.baseAddress! + written, count - written)
                if n < 0 {
                    if errno == EINTR { continue }
                    throw error(temporary, String(cString: strerror(errno)))
                }
                written += n
            }
        }
        guard fsync(output) == 0 else { throw error(temporary, String(cString: strerror(errno))) }
    }

    private static func temporaryName(for target: URL, purpose: String) -> URL {
        target.deletingLastPathComponent()
            .appendingPathComponent(".\(target.lastPathComponent).\(purpose)-\(UInt64.random(in: .min ... .max))")
    }

    private static func error(_ path: URL, _ why: String) -> PipelineError {
        .manifest("\(path.path): \(why)")
    }
}
