import BlobStore
import Foundation
#if canImport(Glibc)
internal import Glibc
#endif

/// The frames of earlier manifests by their content: what a new manifest may name
/// instead of writing again (``SeekableZstdWriter``).
///
/// Built from the newest few compressed manifests of a folder. A frame is always found
/// where its bytes are, never through another reference, so a reader follows at most
/// one step. The holders are kept open while the writer lives: a holder replaced under
/// a run (`forget` rewrites manifests) is noticed at the run's commit
/// (``replacedHolders()``), and its old bytes are still there to be copied in.
package final class FrameIndex {
    /// Where a frame's bytes are: `length` bytes at `offset` of the manifest `holder`.
    package struct Location: Sendable, Equatable {
        package var holder: String
        package var offset: Int
        package var length: Int
    }

    let directory: String
    private var locations: [BlobHash: Location] = [:]
    /// Each holder's descriptor and its inode when it was read.
    private(set) package var descriptors: [String: (fd: Int32, inode: UInt64)] = [:]

    /// Manifests looked at: a repeated search is most often the run before, and a few
    /// searches taken in turn are still found.
    package static let manifestsRead = 4

    /// The frames of the newest ``manifestsRead`` compressed manifests in `directory`
    /// that have digests. A manifest that does not read is passed over.
    package init(directory: URL) {
        self.directory = directory.path
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? [])
            .filter { CacheKey.isManifestName($0) && $0.hasSuffix(CacheKey.manifestSuffix) }
            .sorted(by: >)
        var read = 0
        for name in names where read < Self.manifestsRead {
            if (try? add(name)) == true { read += 1 }
        }
    }

    /// An empty index (a writer that names nothing).
    package init() { directory = "" }

    deinit {
        for (fd, _) in descriptors.values { close(fd) }
    }

    package var isEmpty: Bool { locations.isEmpty }
    package var frameCount: Int { locations.count }

    /// Where bytes with SHA-256 `digest` are, if any manifest read holds them as a frame.
    package func location(of digest: BlobHash) -> Location? { locations[digest] }

    /// Whether the frame at `location` holds exactly `bytes`: decompressed and compared,
    /// so a holder whose digests lie (a damaged or altered file) is never named.
    func holds(_ location: Location, _ bytes: UnsafeRawBufferPointer) -> Bool {
        guard let file = files[location.holder], let index = file.table.entry(startingAt: location.offset),
              index < file.table.frameCount, file.table.range(of: index).count == bytes.count,
              (try? file.reference(index)) == .some(nil), let frame = try? file.frame(index)
        else { return false }
        return frame.withUnsafeBytes { $0.elementsEqual(bytes) }
    }

    /// The holders whose file is no longer the one read (replaced by a rewrite), with
    /// the descriptor of the one read.
    package func replacedHolders(among names: Set<String>) -> [String: Int32] {
        var replaced: [String: Int32] = [:]
        for name in names {
            guard let (fd, inode) = descriptors[name] else { continue }
            var info = stat()
            if stat(directory + "/" + name, &info) != 0 || UInt64(info.st_ino) != inode { replaced[name] = fd }
        }
        return replaced
    }

    /// Stops naming the frames of `holders`.
    package func drop(_ holders: Set<String>) {
        locations = locations.filter { !holders.contains($0.value.holder) }
    }

    /// Adds the frames of manifest `name` and of those it refers to; whether it has digests.
    private func add(_ name: String) throws -> Bool {
        guard let file = try open(name) else { return false }
        guard file.table.digests.count == file.table.frameCount, file.table.frameCount > 0 else { return false }
        for index in 0..<file.table.frameCount {
            if let reference = try file.reference(index) {
                // The holder's own frames, where the bytes are (each compared byte for
                // byte before it is named: ``holds(_:_:)``).
                guard let holder = try open(reference.holder),
                      let first = holder.table.entry(startingAt: reference.offset),
                      let end = holder.table.entry(startingAt: reference.offset + reference.length),
                      end <= holder.table.digests.count
                else { continue }
                for k in first..<end {
                    let range = holder.table.range(of: k)
                    insert(holder.table.digests[k], Location(holder: reference.holder, offset: range.lowerBound, length: range.count))
                }
            } else {
                let range = file.table.range(of: index)
                insert(file.table.digests[index], Location(holder: name, offset: range.lowerBound, length: range.count))
            }
        }
        return true
    }

    private func insert(_ digest: BlobHash, _ location: Location) {
        if locations[digest] == nil { locations[digest] = location }
    }

    private var files: [String: SeekableZstdFile] = [:]

    /// Manifest `name`, opened once and kept open (nil when it cannot be, or is not a
    /// regular file). Its own frames are all the index reads of it.
    private func open(_ name: String) throws -> SeekableZstdFile? {
        if let file = files[name] { return file }
        guard let (fd, _, inode) = try? FileSystem.openRegularFile(directory + "/" + name, operation: "read") else { return nil }
        guard let file = try? SeekableZstdFile(descriptor: fd) else {
            close(fd)
            return nil
        }
        descriptors[name] = (fd, inode)
        files[name] = file
        return file
    }
}
