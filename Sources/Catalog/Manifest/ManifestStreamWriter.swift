import BlobStore
import Foundation
#if canImport(Glibc)
internal import Glibc
#endif

/// Writes a run's manifest as the run goes, in memory bounded by a buffer rather than
/// by the run: posts go to the file as they are made, included posts and failures to
/// spill files beside it, and the members known only at the end (failures, sources,
/// summary) come last (the order ``ManifestJSONWriter`` writes).
///
/// The file is written under a hidden temporary name in the manifests folder (which
/// no reader lists) and renamed into place by ``commit(to:)`` only when whole and
/// flushed: a reader never sees half a manifest, and a killed run leaves a hidden
/// file, never a truncated one under a real name.
///
/// The JSON is written as seekable zstd (``SeekableZstd``, a `.json.zst` file):
/// about a ninth of the JSON, a post still read back alone by its offset in the
/// JSON, and the whole still `zstd -dc <file> | jq` away. It stays pretty-printed,
/// a key a line: the bucket's copy is cut of local paths line by line
/// (`BucketManifest`), and the indents cost 15% after compression.
///
/// Frames an earlier manifest in the folder already holds are named, not written
/// (``FrameIndex``): a run repeated over the same posts adds a few kilobytes. A holder
/// replaced while the run writes (a `forget`) is copied in at the commit, from the file
/// the run read.
///
/// The tail can be written again (``writeTail(extraFailures:sources:summary:)``) until
/// the commit: a run publishing to object storage learns the outcome of the
/// manifest's own upload only after writing it.
public final class ManifestStreamWriter {
    /// The file being written, under its hidden name.
    public let temporaryURL: URL
    public private(set) var postCount = 0
    public private(set) var includedCount = 0
    public private(set) var failureCount = 0

    private var writer = ManifestJSONWriter()
    /// The file being written (replaced when holders are copied in).
    private let box: FileBox
    private var file: FileHandle { box.file }
    private let zstd: SeekableZstdWriter
    private let base: FrameIndex?
    private let included: Spill
    private let failures: Spill
    /// The writer's state and the file's frames before the tail, kept so the tail
    /// can be written again.
    private var beforeTail: (writer: ManifestJSONWriter, mark: SeekableZstdWriter.Mark)?
    private var committed = false

    /// Bytes gathered before they are written out.
    static let bufferSize = 1 << 20

    /// Starts a manifest in `directory` with the members a run knows when it starts;
    /// naming the frames of the folder's latest manifests unless `namingEarlierRuns` is false.
    public init(directory: URL, generatedAt: Date, tool: String, cacheRoot: String, namingEarlierRuns: Bool = true) throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        Self.sweep(directory)
        let stem = CacheKey.partialPrefix + String(UInt64.random(in: .min ... .max), radix: 16)
        temporaryURL = directory.appendingPathComponent(stem + CacheKey.manifestSuffix)
        // Locked while this writer lives: a sweep leaves this run's files alone.
        let file = try Self.createLocked(temporaryURL)
        box = FileBox(file)
        base = namingEarlierRuns ? FrameIndex(directory: directory) : nil
        zstd = SeekableZstdWriter(base: base) { [box] in try box.file.write(contentsOf: Data($0)) }
        do {
            included = try Spill(url: directory.appendingPathComponent(stem + ".included"))
            failures = try Spill(url: directory.appendingPathComponent(stem + ".failures"))
        } catch {
            try? box.file.close()
            try? FileManager.default.removeItem(at: temporaryURL)
            throw error
        }
        writer.beginStream(version: Manifest.currentVersion, generatedAt: generatedAt, tool: tool, cacheRoot: cacheRoot)
    }

    private final class FileBox {
        var file: FileHandle
        init(_ file: FileHandle) { self.file = file }
    }

    deinit {
        try? file.close()
        if !committed { try? FileManager.default.removeItem(at: temporaryURL) }
    }

    /// A post of the run's results (`tweets`).
    public func append(_ post: ManifestTweet) throws {
        writer.post(post)
        postCount += 1
        if writer.bytes.count >= Self.bufferSize { try zstd.write(writer.drain()) }
    }

    /// A post the results embed (`included_tweets`).
    public func appendIncluded(_ post: ManifestTweet) throws {
        try included.write { $0.post(post) }
        includedCount += 1
    }

    /// A URL the run could not cache (`failures`).
    public func appendFailure(_ failure: Manifest.Failure) throws {
        try failures.write { $0.failure(failure) }
        failureCount += 1
    }

    /// Writes the end of the manifest: the included posts and failures gathered so far
    /// (`extraFailures` after them), the sources and the summary. Called again, it
    /// replaces the tail it wrote before.
    public func writeTail(extraFailures: [Manifest.Failure] = [], sources: [Manifest.Source], summary: RunSummary) throws {
        if let beforeTail {
            writer = beforeTail.writer
            zstd.rewind(to: beforeTail.mark)
            try file.truncate(atOffset: UInt64(beforeTail.mark.compressedOffset))
            try file.seekToEnd()
        } else {
            writer.endArray(count: postCount)
            try zstd.write(writer.drain())
            beforeTail = (writer, try zstd.mark())
            try included.finish()
            try failures.finish()
        }
        writer.beginArray(named: "included_tweets")
        try zstd.write(writer.drain())
        try included.copy(to: zstd)
        writer.endArray(count: includedCount)
        writer.beginArray(named: "failures")
        try zstd.write(writer.drain())
        try failures.copy(to: zstd)
        // The array goes on after the elements copied into it.
        writer.continueArray(count: failureCount)
        for failure in extraFailures { writer.failure(failure) }
        writer.endArray(count: failureCount + extraFailures.count)
        writer.endStream(sources: sources, summary: summary)
        try zstd.write(writer.drain())
        try zstd.finish()
        try copyReplacedHolders()
    }

    /// Flushes the file and renames it to `url` (not replacing a file already there),
    /// then flushes the folder: once this returns, the manifest survives a power cut.
    public func commit(to url: URL) throws {
        precondition(beforeTail != nil, "writeTail before commit")
        // A manifest naming others is published under the forget lock (`TombstoneLog`):
        // a forget either saw it (and rewrites it before what it names) or finished
        // first (and what it replaced is copied in here).
        let lock = zstd.holders.isEmpty ? nil
            : try? TombstoneLog(cacheRoot: temporaryURL.deletingLastPathComponent().deletingLastPathComponent()).lock()
        defer { if let lock { FileSystem.unlock(lock) } }
        try copyReplacedHolders()
        try file.synchronize()
        // The spills stay until the name is taken: a name taken meanwhile means
        // writing the tail again, under the next one.
        guard link(temporaryURL.path, url.path) == 0 else {
            throw CocoaError(.fileWriteFileExists, userInfo: [NSFilePathErrorKey: url.path,
                NSLocalizedDescriptionKey: "could not name the manifest \(url.lastPathComponent): \(String(cString: strerror(errno)))"])
        }
        committed = true
        unlink(temporaryURL.path)
        try? included.remove()
        try? failures.remove()
        let folder = open(url.deletingLastPathComponent().path, O_RDONLY | O_DIRECTORY)
        if folder >= 0 {
            _ = fsync(folder)
            close(folder)
        }
    }

    /// Copies in the bytes this file names in holders replaced since the run read them
    /// (a `forget` rewrote them), from the files the run read: the manifest then reads
    /// whole, as the run wrote it. Done when the tail is written and again at the
    /// commit; the tail can still be written again after it.
    private func copyReplacedHolders() throws {
        guard let base, let beforeTail else { return }
        let replaced = base.replacedHolders(among: zstd.holders)
        guard !replaced.isEmpty else { return }
        let copy = temporaryURL.deletingLastPathComponent()
            .appendingPathComponent(temporaryURL.lastPathComponent + ".copy")
        let output = try Self.create(copy)
        do {
            // Every holder as the run read it (each frame is checked against its digest).
            let source = try SeekableZstdFile(descriptor: box.file.fileDescriptor, directory: base.directory,
                                              holders: base.descriptors.mapValues(\.fd))
            try source.rewrite(to: { try output.write(contentsOf: Data($0)) }, materializing: SeekableZstdFile.everything(of: Set(replaced.keys)))
            try output.synchronize()
            let written = try SeekableZstdFile(descriptor: output.fileDescriptor)
            guard let mark = SeekableZstdWriter.Mark(written.table, at: beforeTail.mark.decompressedOffset,
                                                     holders: zstd.holders.subtracting(replaced.keys)) else {
                throw CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: "\(temporaryURL.path): its tail moved when copied"])
            }
            _ = flock(output.fileDescriptor, LOCK_SH)
            guard rename(copy.path, temporaryURL.path) == 0 else {
                throw CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: "could not replace \(temporaryURL.path): \(String(cString: strerror(errno)))"])
            }
            self.beforeTail = (beforeTail.writer, mark)
        } catch {
            try? output.close()
            unlink(copy.path)
            throw error
        }
        try? box.file.close()
        box.file = output
        try box.file.seekToEnd()
        base.drop(Set(replaced.keys))
        zstd.dropHolders(Set(replaced.keys))
    }

    /// Hidden files a killed run left: a manifest never committed and its spills as
    /// soon as no run holds them (a writer keeps a shared lock on its `.partial-*.json.zst`
    /// while it lives, which the kernel lets go when the process dies, even by
    /// SIGKILL); a copy of standard input or a sync's download once a day old (a run
    /// still writing touches its files far more often than that). Each run sweeps as
    /// it starts, and so does `gc`.
    package static func sweep(_ directory: URL, olderThan age: TimeInterval = 86_400, now: Date = Date()) {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        var abandoned: [Substring: Bool] = [:]
        for name in names where name.hasPrefix(CacheKey.partialPrefix) {
            let stem = name.dropFirst().prefix { $0 != "." }
            let gone = abandoned[stem] ?? [CacheKey.manifestSuffix, ".json"].allSatisfy {
                Self.abandoned(directory.appendingPathComponent(".\(stem)\($0)"))
            }
            abandoned[stem] = gone
            if gone { unlink(directory.appendingPathComponent(name).path) }
        }
        // The JSON of a compressed manifest a reader was killed reading (`.expand-*`,
        // named for an instant where the file system has no `O_TMPFILE`): at once, as a
        // reader never needs its name.
        for name in names where name.hasPrefix(".expand-") { unlink(directory.appendingPathComponent(name).path) }
        for name in names where [".stdin-", ".sync-", creatingPrefix].contains(where: { name.hasPrefix($0) }) {
            let url = directory.appendingPathComponent(name)
            guard let modified = (try? FileManager.default.attributesOfItem(atPath: url.path))?[.modificationDate] as? Date,
                  now.timeIntervalSince(modified) > age
            else { continue }
            try? FileManager.default.removeItem(at: url)
        }
    }

    /// Whether no writer holds the manifest at `url` (or it is gone, leaving its spills).
    static func abandoned(_ url: URL) -> Bool {
        let fd = open(url.path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return errno == ENOENT }
        defer { close(fd) }
        return flock(fd, LOCK_EX | LOCK_NB) == 0
    }

    /// Creates `url` with this process's shared lock already on it: made under a name
    /// no sweep takes for a run's (``creatingPrefix``), locked, then renamed into
    /// place. A sweep never finds a live run's manifest unlocked: one that ran between
    /// the creation and the lock (while the run read the earlier runs' frames) took
    /// the file for a killed run's, and the run failed at its commit, its file gone.
    static func createLocked(_ url: URL) throws -> FileHandle {
        let directory = url.deletingLastPathComponent()
        let creating = directory.appendingPathComponent(creatingPrefix + String(UInt64.random(in: .min ... .max), radix: 16)).path
        let fd = open(creating, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: url.path,
                NSLocalizedDescriptionKey: "could not create \(creating): \(String(cString: strerror(errno)))"])
        }
        guard flock(fd, LOCK_SH) == 0, rename(creating, url.path) == 0 else {
            let reason = String(cString: strerror(errno))
            close(fd)
            unlink(creating)
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: url.path,
                NSLocalizedDescriptionKey: "could not create \(url.path): \(reason)"])
        }
        return FileHandle(fileDescriptor: fd, closeOnDealloc: true)
    }

    /// The name a run's manifest has for the instant before it is locked
    /// (``createLocked(_:)``); one a process killed in that instant left goes once a day old.
    static let creatingPrefix = ".creating-"

    private static func create(_ url: URL) throws -> FileHandle {
        guard FileManager.default.createFile(atPath: url.path, contents: nil) else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: url.path,
                NSLocalizedDescriptionKey: "could not create \(url.path)"])
        }
        return try FileHandle(forUpdating: url)
    }

    /// Elements written apart from the manifest, copied in at the end.
    private final class Spill {
        let url: URL
        let handle: FileHandle
        var writer = ManifestJSONWriter.element()

        init(url: URL) throws {
            self.url = url
            handle = try ManifestStreamWriter.create(url)
        }

        deinit {
            try? handle.close()
            try? FileManager.default.removeItem(at: url)
        }

        func write(_ body: (inout ManifestJSONWriter) -> Void) throws {
            body(&writer)
            if writer.bytes.count >= ManifestStreamWriter.bufferSize { try handle.write(contentsOf: writer.drain()) }
        }

        func finish() throws {
            try handle.write(contentsOf: writer.drain())
        }

        /// Appends everything written to `target`, a megabyte at a time.
        func copy(to target: SeekableZstdWriter) throws {
            try handle.seek(toOffset: 0)
            while let chunk = try handle.read(upToCount: ManifestStreamWriter.bufferSize), !chunk.isEmpty {
                try target.write(chunk)
            }
        }

        func remove() throws {
            try handle.close()
            try FileManager.default.removeItem(at: url)
        }
    }
}
