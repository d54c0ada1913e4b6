import BlobStore
import Foundation
import Hashing
import MediaFetch
import Synchronization

/// A bounded local copy of what was read from the store, so a tile server never
/// fetches the same bytes twice while they fit, and its disk use stays under
/// `--local-max` however much the store holds.
///
/// Whole objects (thumbnails, originals) and byte ranges of objects (a pack's
/// head and index, one tile of a pack) are kept as files under one folder and
/// evicted least recently used first. A range's file starts with the object's
/// whole size (8 bytes, little-endian), which a pack reader needs with its head.
/// Files are written under a temporary name and renamed, so a crash leaves at
/// worst a stray temporary file, swept on the next start; nothing here is ever
/// the only copy, so nothing is fsynced.
///
/// The bucket is not trusted (as restic and git trust no backend): a whole object
/// read with the hashes it must have is checked before it is kept or returned, and
/// a local copy is checked again when it is read back. Bytes that fail are never
/// kept or returned: a copy of them goes to `quarantine` for a person to look at,
/// and the caller gets ``StoreError/corrupt(key:)``.
public final class ReadThroughCache: Sendable {
    public let storage: any CacheStorage
    public let folder: URL
    /// The most bytes kept on disk.
    public let capacity: Int

    private struct Entry { var size: Int; var tick: UInt64 }
    private struct State {
        var entries: [String: Entry] = [:]
        var total = 0
        var tick: UInt64 = 0
        var absent: [String: Duration] = [:]

        /// Drops least recently used entries until `total` is at most `target`
        /// (never `sparing`); the names dropped, for their files to go.
        mutating func evict(downTo target: Int, sparing: String? = nil) -> [String] {
            guard total > target else { return [] }
            var victims: [String] = []
            for (key, entry) in entries.sorted(by: { $0.value.tick < $1.value.tick }) where total > target && key != sparing {
                entries[key] = nil
                total -= entry.size
                victims.append(key)
            }
            return victims
        }
    }

    private func unlinkAll(_ names: [String]) {
        for name in names { unlink(folder.appendingPathComponent(name).path) }
    }
    private let state = Mutex(State())
    private let inflight = Mutex<[String: Task<ReadResultBox, Never>]>([:])
    /// What "a while" is measured on: its uptime, so that a change of the system's date
    /// neither keeps a key another machine stored absent for the hour it went back nor
    /// keeps every remembered miss from expiring.
    private let clock: any WallClock
    /// How long a key the store did not have is believed absent (another machine may store it).
    public let absentFor: TimeInterval

    /// Counters for `/metrics` and the benchmarks.
    public struct Counters: Sendable, Equatable {
        public var hits = 0
        public var misses = 0
        public var evictions = 0
        public var bytes = 0
        /// Copies that failed their check, from the store or read back from the folder.
        public var corrupt = 0
    }
    private let counters = Mutex(Counters())

    /// Where bytes that failed their check are copied (`quarantine/bucket/<path>`), or nil.
    public let quarantine: URL?
    /// The most bytes this process copies into `quarantine`.
    static let quarantineLimit = 256 << 20
    private let quarantined = Mutex(0)

    public init(storage: any CacheStorage, folder: URL, capacity: Int, absentFor: TimeInterval = 30, quarantine: URL? = nil,
                clock: any WallClock = SystemWallClock()) throws {
        self.storage = storage
        self.quarantine = quarantine
        self.folder = folder.standardizedFileURL
        self.capacity = max(0, capacity)
        self.absentFor = absentFor
        self.clock = clock
        try FileManager.default.createDirectory(at: self.folder, withIntermediateDirectories: true)
        try scan()
    }

    public var statistics: Counters {
        var copy = counters.withLock { $0 }
        copy.bytes = state.withLock { $0.total }
        return copy
    }

    /// The whole object at `path` (cache-relative), or nil when the store has none.
    ///
    /// With `expecting`, the bytes must hash to one of those SHA-256s (an original's
    /// name, the hash a thumbnail's maker recorded): a local copy that does not is
    /// dropped and read again, and a bucket's copy that does not throws
    /// ``StoreError/corrupt(key:)`` and is neither kept nor remembered.
    public func object(_ path: String, limit: Int, expecting: Set<BlobHash>? = nil) async throws(StoreError) -> [UInt8]? {
        let name = Self.fileName(path, range: nil)
        if let bytes = hit(name) {
            if Self.sound(bytes, expecting) { return bytes }
            counters.withLock { $0.corrupt += 1 }
            forget(path)
        }
        guard let result = try await once(name, { [storage] () throws(StoreError) -> ObjectBytes? in
            try await storage.read(path, maxBytes: limit)
        }) else { return nil }
        guard result.objectSize <= limit else { throw .server(status: 413, code: "TooLarge", message: "\(path) is over \(limit) bytes") }
        guard Self.sound(result.bytes, expecting) else {
            counters.withLock { $0.corrupt += 1 }
            keepInQuarantine(path, result.bytes)
            throw .corrupt(key: path)
        }
        keep(name, result.bytes)
        return result.bytes
    }

    /// The object at `path` as its bytes arrive, for answering before a large
    /// object is whole: the local copy when it is sound, else the store's
    /// (``CacheStorage/stream(_:maxBytes:stall:)``); nil when the store has none.
    ///
    /// The bytes must hash to one of `expecting`, and the check holds as far as a
    /// stream can: every piece but the last is passed on as it comes, the last only
    /// once the whole hashed right. Bytes that do not end the stream with
    /// ``StoreError/corrupt(key:)`` one piece short, so a reader told the size
    /// never takes them for the object; they are neither kept nor remembered.
    public func stream(_ path: String, limit: Int, expecting: Set<BlobHash>, stall: Duration)
        async throws(StoreError) -> ObjectStream?
    {
        func whole(_ bytes: [UInt8]) -> ObjectStream {
            ObjectStream(size: bytes.count, chunks: AsyncThrowingStream { continuation in
                continuation.yield(bytes)
                continuation.finish()
            })
        }
        let name = Self.fileName(path, range: nil)
        if let bytes = hit(name) {
            if Self.sound(bytes, expecting) { return whole(bytes) }
            counters.withLock { $0.corrupt += 1 }
            forget(path)
        }
        // Each stream holds its object in memory until it is checked, and is not shared:
        // past a few at once, readers share one whole read (``object(_:limit:expecting:)``)
        // as before, so many visitors asking cold originals cannot multiply the memory.
        let admitted = streaming.withLock { count -> Bool in
            guard count < Self.maxStreams else { return false }
            count += 1
            return true
        }
        guard admitted else {
            return try await object(path, limit: limit, expecting: expecting).map(whole)
        }
        let source: ObjectStream?
        do { source = try await storage.stream(path, maxBytes: limit, stall: stall) } catch {
            streaming.withLock { $0 -= 1 }
            throw error
        }
        guard let source else {
            streaming.withLock { $0 -= 1 }
            return nil
        }
        let (chunks, output) = AsyncThrowingStream<[UInt8], any Error>.makeStream()
        let relay = Task { [self] in
            let failure = await pass(source, to: output, path: path, expecting: expecting)
            // The slot is free before the reader sees the end, so its next stream is admitted.
            streaming.withLock { $0 -= 1 }
            if let failure { output.finish(throwing: failure) } else { output.finish() }
        }
        output.onTermination = { _ in relay.cancel() }
        return ObjectStream(size: source.size, chunks: chunks)
    }

    /// Passes `source` on to `output`, every piece but the last as it comes, the last
    /// once the whole hashed to one of `expecting` (then the copy is kept); the error it
    /// ends with, if any.
    private func pass(_ source: ObjectStream, to output: AsyncThrowingStream<[UInt8], any Error>.Continuation, path: String,
                      expecting: Set<BlobHash>) async -> (any Error)? {
        var hasher = SHA256()
        var whole: [UInt8] = []
        whole.reserveCapacity(source.size)
        var held: [UInt8]? = nil
        do {
            for try await chunk in source.chunks where !chunk.isEmpty {
                if let previous = held { output.yield(previous) }
                hasher.update(data: chunk)
                whole += chunk
                held = chunk
            }
        } catch {
            return error
        }
        // A reader that left ends the loop early: what came is not the object.
        guard !Task.isCancelled, whole.count == source.size else { return CancellationError() }
        guard expecting.contains(BlobHash(digest: hasher.finalize())) else {
            counters.withLock { $0.corrupt += 1 }
            keepInQuarantine(path, whole)
            return StoreError.corrupt(key: path)
        }
        keep(Self.fileName(path, range: nil), whole)
        if let held { output.yield(held) }
        return nil
    }

    /// Streams from the store at once (``stream(_:limit:expecting:stall:)``).
    static let maxStreams = 4
    private let streaming = Mutex(0)

    static func sound(_ bytes: [UInt8], _ expecting: Set<BlobHash>?) -> Bool {
        guard let expecting else { return true }
        return expecting.contains(BlobHash(hashing: bytes))
    }

    /// A copy of bytes that failed their check, for a person to look at: once per
    /// path, never over a file already there.
    private func keepInQuarantine(_ path: String, _ bytes: [UInt8]) {
        // A bucket full of garbage must not fill this disk: copies stop past a bound.
        guard let quarantine, quarantined.withLock({ total in
            guard total + bytes.count <= Self.quarantineLimit else { return false }
            total += bytes.count
            return true
        }) else { return }
        let url = quarantine.appendingPathComponent(path)
        guard !FileManager.default.fileExists(atPath: url.path) else { return }
        try? FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try? Data(bytes).write(to: url, options: .withoutOverwriting)
    }

    /// `length` bytes at `offset` of the object at `path` and the object's size, or
    /// nil when the store has no such object.
    public func range(_ path: String, offset: Int, length: Int) async throws(StoreError) -> ObjectBytes? {
        let name = Self.fileName(path, range: offset..<(offset + length))
        if let stored = hit(name), stored.count >= 8 {
            let size = stored.prefix(8).enumerated().reduce(0) { $0 | Int($1.element) << (8 * $1.offset) }
            return ObjectBytes(bytes: Array(stored.dropFirst(8)), objectSize: size)
        }
        guard let result = try await once(name, { [storage] () throws(StoreError) -> ObjectBytes? in
            try await storage.read(path, range: offset..<(offset + length), maxBytes: length + 1024)
        }) else { return nil }
        var stored = (0..<8).map { UInt8(truncatingIfNeeded: result.objectSize >> (8 * $0)) }
        stored += result.bytes
        keep(name, stored)
        return result
    }

    /// Keeps bytes made here from the store's (a tile cut on request) under `path`.
    public func keep(_ path: String, bytes: [UInt8]) { keep(Self.fileName(path, range: nil), bytes) }

    /// Drops every local copy of `path`, whole or in ranges (a pack replaced or
    /// deleted in the store is read afresh, not served from a stale head).
    public func forget(_ path: String) {
        let victims = state.withLock { state -> [String] in
            let names = state.entries.keys.filter { $0 == path || $0.hasPrefix(path + "@") }
            for name in names {
                if let entry = state.entries.removeValue(forKey: name) { state.total -= entry.size }
            }
            state.absent = state.absent.filter { $0.key != path && !$0.key.hasPrefix(path + "@") }
            return names
        }
        unlinkAll(victims)
    }

    /// The local copy of `path` when there is one.
    public func local(_ path: String) -> [UInt8]? { hit(Self.fileName(path, range: nil)) }

    // MARK: - Files

    /// `a/b/c.pack` → `a/b/c.pack`; with a range, `a/b/c.pack@0+4096`.
    static func fileName(_ path: String, range: Range<Int>?) -> String {
        guard let range else { return path }
        return "\(path)@\(range.lowerBound)+\(range.count)"
    }

    private func hit(_ name: String) -> [UInt8]? {
        let known = state.withLock { state -> Bool in
            guard var entry = state.entries[name] else { return false }
            state.tick += 1
            entry.tick = state.tick
            state.entries[name] = entry
            return true
        }
        guard known, let data = FileManager.default.contents(atPath: folder.appendingPathComponent(name).path) else {
            counters.withLock { $0.misses += 1 }
            return nil
        }
        counters.withLock { $0.hits += 1 }
        return [UInt8](data)
    }

    private func keep(_ name: String, _ bytes: [UInt8]) {
        guard bytes.count <= capacity else { return }
        let url = folder.appendingPathComponent(name)
        let temporary = folder.appendingPathComponent(".tmp-\(UUID().uuidString)")
        do {
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try FileSystem.writeUnflushed(bytes, to: temporary.path)
            guard rename(temporary.path, url.path) == 0 else { throw CocoaError(.fileWriteUnknown) }
        } catch {
            try? FileManager.default.removeItem(at: temporary)
            return
        }
        let evicted = state.withLock { state -> [String] in
            state.tick += 1
            if let old = state.entries[name] { state.total -= old.size }
            state.entries[name] = Entry(size: bytes.count, tick: state.tick)
            state.total += bytes.count
            // Down to 90%: the sort is paid once per tenth of the capacity, not once per insert.
            guard state.total > capacity else { return [] }
            return state.evict(downTo: capacity - capacity / 10, sparing: name)
        }
        unlinkAll(evicted)
        if !evicted.isEmpty { counters.withLock { $0.evictions += evicted.count } }
    }

    /// Rebuilds the bookkeeping from the folder (least recently written first) and
    /// sweeps temporary files; trims to the capacity, which may have shrunk.
    private func scan() throws {
        let keys: [URLResourceKey] = [.fileSizeKey, .contentModificationDateKey, .isRegularFileKey]
        guard let walker = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: keys) else { return }
        var found: [(name: String, size: Int, date: Date)] = []
        let base = folder.path + "/"
        for case let url as URL in walker {
            let values = try? url.resourceValues(forKeys: Set(keys))
            guard values?.isRegularFile == true else { continue }
            if url.lastPathComponent.hasPrefix(".tmp-") {
                try? FileManager.default.removeItem(at: url)
                continue
            }
            let path = url.standardizedFileURL.path
            guard path.hasPrefix(base) else { continue }
            found.append((String(path.dropFirst(base.count)), values?.fileSize ?? 0, values?.contentModificationDate ?? .distantPast))
        }
        let victims = state.withLock { state -> [String] in
            for file in found.sorted(by: { $0.date < $1.date }) {
                state.tick += 1
                state.entries[file.name] = Entry(size: file.size, tick: state.tick)
                state.total += file.size
            }
            return state.evict(downTo: capacity)
        }
        unlinkAll(victims)
    }

    // MARK: - One request per name

    private struct ReadResultBox: Sendable { var result: Result<ObjectBytes?, StoreError> }

    /// Runs `read` once for however many callers want `name` at the same moment,
    /// and remembers for a while that the store has no such key.
    private func once(
        _ name: String, _ read: @escaping @Sendable () async throws(StoreError) -> ObjectBytes?
    ) async throws(StoreError) -> ObjectBytes? {
        let current = clock.uptime()
        let window = Duration.seconds(absentFor)
        let absent = state.withLock { state -> Bool in
            guard let since = state.absent[name] else { return false }
            if current - since < window { return true }
            state.absent[name] = nil
            return false
        }
        if absent { return nil }
        let (task, owner) = inflight.withLock { tasks -> (Task<ReadResultBox, Never>, Bool) in
            if let running = tasks[name] { return (running, false) }
            let task = Task { () -> ReadResultBox in
                do throws(StoreError) { return ReadResultBox(result: .success(try await read())) } catch {
                    return ReadResultBox(result: .failure(error))
                }
            }
            tasks[name] = task
            return (task, true)
        }
        let box = await task.value
        if owner {
            inflight.withLock { $0[name] = nil }
            if case .success(nil) = box.result {
                state.withLock { state in
                    state.absent[name] = current
                    // Keys walked once and never again must not pile up: past a few
                    // thousand, the expired ones go.
                    if state.absent.count > 4096 {
                        state.absent = state.absent.filter { current - $0.value < window }
                    }
                }
            }
        }
        return try box.result.get()
    }
}
