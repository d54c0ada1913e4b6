public import Foundation
public import LiveSearch
public import MediaFetch
public import TweetModel

/// Gathers what the followed streams deliver into batches, and has each batch cached
/// by one run (one manifest) while the streams go on.
///
/// A batch closes at ``Options/batchPosts`` posts or ``Options/batchInterval`` after
/// its first event, whichever comes first, so `serve` and the readers list a post
/// within about that interval. Batches are cached one run at a time, in order; when
/// runs fall behind, the batches waiting are cached together by the next run. Memory
/// holds no posts: each event goes to its batch's file as it arrives.
///
/// ``finish()`` (SIGINT, SIGTERM) seals the open batch, caches it and saves the
/// cursors; after a kill, ``recover()`` caches what the last run left pending.
public actor StreamCollector {
    public struct Options: Sendable {
        public var batchPosts = 1000
        public var batchInterval: Duration = .seconds(60)
        public init() {}
    }

    /// A batch to cache: its files (JSON Lines of posts) and the deletions they carried.
    public struct Batch: Sendable {
        public var files: [URL]
        public var posts: Int
        public var deletions: [StreamDeletion]
    }

    /// Caches a batch (a run over its files, then the deletions); true when the run
    /// wrote its manifest, so the cursors may move past it.
    public typealias Flush = @Sendable (Batch) async -> Bool

    let cacheRoot: URL
    /// Names the batches' files: `results/streams/<name>-<UTC>-<n>.jsonl`.
    let name: String
    let options: Options
    let clock: any WallClock
    let flush: Flush
    private var checkpoint: StreamCheckpoint
    private var spool: StreamSpool?
    /// When the open batch was opened, on the clock's uptime: a change of the system's
    /// date neither holds a batch back for the hour it went back nor seals it early.
    private var spoolOpened: Duration = .zero
    private var sequence = 1
    /// The newest cursor delivered, by stream (saved with the batch that holds its events).
    private var cursors: [String: String] = [:]
    private var sealed: [(spool: StreamSpool, cursors: [String: String])] = []
    private var worker: Task<Void, Never>?
    private var problems: @Sendable (String) -> Void

    /// Totals, for messages and tests.
    public private(set) var received = 0
    public private(set) var batchesCached = 0

    public init(cacheRoot: URL, name: String, options: Options = Options(), clock: any WallClock = SystemWallClock(),
                problems: @escaping @Sendable (String) -> Void = { _ in }, flush: @escaping Flush) {
        self.cacheRoot = cacheRoot
        self.name = name
        self.options = options
        self.clock = clock
        self.flush = flush
        self.problems = problems
        checkpoint = StreamCheckpoint.load(cacheRoot: cacheRoot)
        cursors = checkpoint.cursors
    }

    /// Where a stream resumes: the cursor after its last cached batch.
    public func cursor(for key: String) -> String? { checkpoint.cursors[key] }

    /// Caches the batches a killed watch left pending (their files hold every event
    /// it had received). Returns how many posts they held.
    @discardableResult
    public func recover() async -> Int {
        let pending = checkpoint.pending
        guard !pending.isEmpty else { return 0 }
        var files: [URL] = []
        var deletions: [StreamDeletion] = []
        var posts = 0
        for entry in pending {
            let url = cacheRoot.appendingPathComponent(entry.file)
            StreamSpool.adopt(url)
            guard let data = try? Data(contentsOf: url) else { continue }
            posts += data.reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) }
            if !data.isEmpty { files.append(url) }
            deletions += Self.readDeletions(of: url)
        }
        guard await flush(Batch(files: files, posts: posts, deletions: deletions)) else { return 0 }
        for entry in pending {
            for (key, value) in entry.cursors ?? [:] { checkpoint.cursors[key] = value }
            try? FileManager.default.removeItem(at: StreamSpool.deletesURL(of: cacheRoot.appendingPathComponent(entry.file)))
        }
        checkpoint.pending.removeAll { entry in pending.contains(entry) }
        save()
        return posts
    }

    /// Takes one event of the stream `key` (whose posts are of `network`).
    public func receive(_ event: StreamEvent, stream key: String, network: Network) {
        do {
            switch event {
            case let .post(_, document):
                try openSpool().append(post: document)
                received += 1
            case let .deleted(id):
                try openSpool().append(deletion: StreamDeletion(network: network.rawValue, id: id))
            case let .accountGone(user):
                try openSpool().append(deletion: StreamDeletion(network: network.rawValue, user: user))
            case let .cursor(value):
                cursors[key] = value
            case let .problem(text):
                problems(text)
            }
        } catch {
            problems("watch: cannot write the batch (\(error)); the event is lost")
        }
        if let spool, spool.posts >= options.batchPosts { seal() }
    }

    /// Closes the open batch when it is old enough. Call it now and then (each second).
    public func tick() {
        guard spool != nil, clock.uptime() - spoolOpened >= options.batchInterval else { return }
        seal()
    }

    /// Seals the open batch, waits until every batch is cached, and saves the cursors.
    public func finish() async {
        if spool != nil { seal() }
        while let running = worker {
            await running.value
            if worker == running { worker = nil }
        }
    }

    private func openSpool() throws -> StreamSpool {
        if let spool { return spool }
        let made = try StreamSpool(cacheRoot: cacheRoot, key: name, opened: clock.now(), sequence: &sequence)
        checkpoint.pending.append(.init(file: made.relativePath, cursors: nil))
        save()
        spool = made
        spoolOpened = clock.uptime()
        return made
    }

    private func seal() {
        guard let current = spool else { return }
        spool = nil
        do { try current.seal() } catch { problems("watch: cannot flush \(current.relativePath) to disk (\(error))") }
        if let index = checkpoint.pending.firstIndex(where: { $0.file == current.relativePath }) {
            checkpoint.pending[index].cursors = cursors
            save()
        }
        sealed.append((current, cursors))
        if worker == nil { startWorker() }
    }

    private func startWorker() {
        worker = Task { await self.drain() }
    }

    /// Caches what is sealed, all of it per run, until nothing is left.
    private func drain() async {
        while !sealed.isEmpty {
            let taken = sealed
            sealed.removeAll()
            let batch = Batch(files: taken.map(\.spool.url).filter { Self.size(of: $0) > 0 },
                              posts: taken.reduce(0) { $0 + $1.spool.posts },
                              deletions: taken.flatMap { Self.readDeletions(of: $0.spool.url) })
            let cached = await flush(batch)
            guard cached else {
                // Left pending: the next watch caches them before anything new.
                problems("watch: a batch of \(batch.posts) posts was not cached; it is kept and tried again by the next watch")
                continue
            }
            batchesCached += 1
            let done = Set(taken.map(\.spool.relativePath))
            if let last = taken.last { for (key, value) in last.cursors { checkpoint.cursors[key] = value } }
            checkpoint.pending.removeAll { done.contains($0.file) }
            for item in taken { try? FileManager.default.removeItem(at: StreamSpool.deletesURL(of: item.spool.url)) }
            save()
        }
        worker = nil
    }

    private func save() {
        do { try checkpoint.save(cacheRoot: cacheRoot) } catch {
            problems("watch: cannot save \(StreamCheckpoint.fileName) (\(error))")
        }
    }

    static func size(of url: URL) -> Int {
        (try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int) ?? 0
    }

    static func readDeletions(of url: URL) -> [StreamDeletion] {
        guard let data = try? Data(contentsOf: StreamSpool.deletesURL(of: url)) else { return [] }
        return data.split(separator: 0x0A).compactMap { try? JSONDecoder().decode(StreamDeletion.self, from: Data($0)) }
    }
}
