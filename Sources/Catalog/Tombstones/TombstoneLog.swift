public import Foundation
import BlobStore
#if canImport(Glibc)
internal import Glibc
#endif

/// The cache's record of forgotten posts: `<cache>/tombstones.jsonl`, one JSON object
/// per line (``Tombstone``), only ever appended to.
///
/// Appends are one `write` of whole lines to a file opened `O_APPEND`, then `fsync`:
/// a crash leaves every line whole but perhaps the last, which the reader skips and
/// reports. The log is written before anything is removed, so a `forget` killed at
/// any point is finished by the next one (``pendingMarker``).
public struct TombstoneLog: Sendable {
    public let url: URL

    /// `tombstones.jsonl`, in the cache root.
    public static let fileName = "tombstones.jsonl"
    /// Stands while a `forget` is carrying out the log: the next one applies the whole
    /// log to every manifest and page again, so nothing a killed one left half done stays.
    public static let pendingName = "tombstones.pending"

    public init(cacheRoot: URL) {
        url = cacheRoot.appendingPathComponent(Self.fileName)
    }

    public var pendingMarker: URL { url.deletingLastPathComponent().appendingPathComponent(Self.pendingName) }

    /// Every tombstone, and the lines that are not one (a line cut by a crash, or
    /// written by someone else), by line number.
    public func read() throws(CatalogError) -> (tombstones: [Tombstone], problems: [String]) {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            if !FileManager.default.fileExists(atPath: url.path) { return ([], []) }
            throw .tombstones(path: url.path, message: (error as NSError).localizedDescription)
        }
        return Self.parse(data)
    }

    /// The keys of every tombstone: what fetches, syncs and streams leave out.
    public func keys() throws(CatalogError) -> Set<PostIdentity> {
        Set(try read().tombstones.map(\.key))
    }

    static func parse(_ data: Data) -> (tombstones: [Tombstone], problems: [String]) {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        var tombstones: [Tombstone] = []
        var problems: [String] = []
        for (n, line) in data.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).enumerated()
        where !line.allSatisfy({ $0 == 0x20 || $0 == 0x0D }) {
            do {
                tombstones.append(try decoder.decode(Tombstone.self, from: Data(line)))
            } catch {
                problems.append("line \(n + 1): not a tombstone")
            }
        }
        return (tombstones, problems)
    }

    /// The lines of `tombstones`, as the log and a bucket's tombstone objects hold them.
    public static func lines(_ tombstones: [Tombstone]) -> Data {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        var data = Data()
        for tombstone in tombstones {
            // Encoding a struct of strings and a date cannot fail.
            data.append((try? encoder.encode(tombstone)) ?? Data())
            data.append(UInt8(ascii: "\n"))
        }
        return data
    }

    /// Parses lines a bucket's tombstone object holds.
    public static func parse(lines data: Data) -> [Tombstone] { parse(data).tombstones }

    /// Appends `tombstones` durably (creating the log).
    public func append(_ tombstones: [Tombstone]) throws(CatalogError) {
        guard !tombstones.isEmpty else { return }
        let path = url.path
        do {
            let created = !FileManager.default.fileExists(atPath: path)
            let fd = try FileSystem.openFile(path, flags: O_WRONLY | O_CREAT | O_APPEND, operation: "open")
            defer { close(fd) }
            // A line cut by a crash is ended first, so it spoils only itself.
            var bytes = [UInt8](Self.lines(tombstones))
            var info = stat()
            if fstat(fd, &info) == 0, info.st_size > 0, Self.lastByte(fd, size: Int(info.st_size)) != UInt8(ascii: "\n") {
                bytes.insert(UInt8(ascii: "\n"), at: 0)
            }
            try FileSystem.writeAll(fd, bytes: bytes, path: path)
            try FileSystem.sync(fd, path: path)
            if created { try FileSystem.syncDirectory(url.deletingLastPathComponent().path) }
        } catch {
            throw .tombstones(path: path, message: "\(error)")
        }
    }

    private static func lastByte(_ fd: Int32, size: Int) -> UInt8? {
        var byte: UInt8 = 0
        return pread(fd, &byte, 1, off_t(size - 1)) == 1 ? byte : nil
    }

    /// What a `forget` under way still has to finish, kept in the marker: the
    /// manifests it rewrites (to put back in a bucket), the images it may delete, the
    /// URLs whose index rows go. A forget killed after the catalog lost the posts
    /// could not find these again; the next one reads them here.
    public struct PendingWork: Codable, Sendable, Equatable {
        public var manifests: [String] = []
        public var hashes: [String] = []
        public var urls: [String] = []

        public init(manifests: [String] = [], hashes: [String] = [], urls: [String] = []) {
            self.manifests = manifests
            self.hashes = hashes
            self.urls = urls
        }

        public func merged(with other: PendingWork) -> PendingWork {
            PendingWork(manifests: Array(Set(manifests + other.manifests)).sorted(), hashes: Array(Set(hashes + other.hashes)).sorted(),
                        urls: Array(Set(urls + other.urls)).sorted())
        }
    }

    /// Marks a `forget` under way with what it still has to do (durably: written
    /// beside, fsynced, renamed, the folder fsynced).
    public func setPending(_ work: PendingWork) throws(CatalogError) {
        let marker = pendingMarker
        do {
            try JSONEncoder().encode(work).write(to: marker, options: .atomic)
            let fd = try FileSystem.openFile(marker.path, flags: O_RDONLY, operation: "open")
            defer { close(fd) }
            try FileSystem.sync(fd, path: marker.path)
            try FileSystem.syncDirectory(marker.deletingLastPathComponent().path)
        } catch {
            throw .tombstones(path: marker.path, message: "\(error)")
        }
    }

    /// The work a forget cut short left, or nil when none is under way (an empty
    /// marker, or one from before work lists, is an empty list: every tombstone is
    /// applied again).
    public func pendingWork() -> PendingWork? {
        guard let data = FileManager.default.contents(atPath: pendingMarker.path) else { return nil }
        return (try? JSONDecoder().decode(PendingWork.self, from: data)) ?? PendingWork()
    }

    /// Ends the mark: the forget is done.
    public func clearPending() throws(CatalogError) {
        if unlink(pendingMarker.path) != 0, errno != ENOENT {
            throw .tombstones(path: pendingMarker.path, message: String(cString: strerror(errno)))
        }
    }

    /// One forget at a time over a cache (a user's, a run's end, a sync's): an
    /// exclusive lock on `tombstones.lock`, held until ``unlock(_:)``. Two forgets
    /// rewriting one manifest would each copy the old file, and the last rename would
    /// bring back what the first removed.
    public func lock() throws(CatalogError) -> Int32 {
        let path = url.deletingLastPathComponent().appendingPathComponent("tombstones.lock").path
        do { return try FileSystem.lockExclusively(path) } catch {
            throw .tombstones(path: path, message: error.description)
        }
    }

    public func unlock(_ fd: Int32) { FileSystem.unlock(fd) }

    public var isPending: Bool { FileManager.default.fileExists(atPath: pendingMarker.path) }

    /// The log's size in bytes (0 when there is none): it only grows, so a run that
    /// sees it change knows a `forget` happened meanwhile.
    public var size: Int {
        var info = stat()
        return stat(url.path, &info) == 0 ? Int(info.st_size) : 0
    }
}
