import BlobStore
import Foundation
import Logging
import MediaFetch
import MediaTypes

/// Batches index writes during a run: one transaction per batch instead of one per
/// URL. A crash loses at most one batch of rows, never blobs: the next run finds the
/// URLs missing from the index and re-publishes their (identical) content.
///
/// Blobs are published with their directories' flush deferred (``directories``);
/// each batch flushes them first, so a row never names a blob a power cut could
/// take away, and a run pays one journal commit per batch rather than two per blob.
///
/// A batch is flushed and recorded on a serial queue of its own, in order, while the
/// run goes on: a flush waits for the file system's journal (milliseconds), and done
/// inline it held up the task that hands finished downloads on, on a cooperative pool
/// of one thread per core. ``finish()`` waits for every batch.
struct IndexRecorder {
    let index: CacheIndex
    let directories: PendingDirectories
    let logger: Logger
    /// Rows per transaction: 32 at first, so a small run's rows are written while it
    /// fetches, doubling with each batch up to 512, so a run of thousands of files pays
    /// for a few dozen transactions and flushes instead of hundreds.
    var batchSize = 32
    var maxBatchSize = 512
    private var urls: [URLRecord] = []
    private var blobs: [BlobRecord] = []
    private let queue = DispatchQueue(label: "tweetcache.index-recorder")

    init(index: CacheIndex, directories: PendingDirectories, logger: Logger) {
        self.index = index
        self.directories = directories
        self.logger = logger
    }

    mutating func stored(urls names: [String], blob: StoredBlob, kind: ContentKind, status: Int) {
        let contentType = kind.mimeType
        let now = Date()
        for name in names {
            urls.append(URLRecord(url: name, hash: blob.hash, size: blob.size, contentType: contentType,
                                  httpStatus: status, fetchedAt: now))
        }
        blobs.append(BlobRecord(hash: blob.hash, size: blob.size, contentType: contentType, createdAt: now))
        if urls.count >= batchSize {
            flush()
            batchSize = min(maxBatchSize, batchSize * 2)
        }
    }

    /// Recorded on the queue too: results arrive on the fetcher's publishing threads,
    /// which a write to the index would hold up.
    func failed(url: String, failure: FetchFailure) {
        let (index, logger) = (self.index, self.logger)
        queue.async {
            do {
                _ = try index.recordFailure(url: url, reason: failure.description, httpStatus: failure.httpStatus)
            } catch {
                logger.warning("could not record failure", metadata: ["url": "\(url)", "error": "\(error)"])
            }
        }
    }

    /// Rows a batch could not record yet (its directories could not be flushed, or the
    /// index refused the write); the next batch, or ``finish()``, tries them again.
    /// Touched only on `queue`.
    private final class Leftovers: @unchecked Sendable {
        var urls: [URLRecord] = []
        var blobs: [BlobRecord] = []
    }
    private let leftovers = Leftovers()

    /// Hands the rows gathered so far to the recording queue.
    mutating func flush() {
        guard !urls.isEmpty else { return }
        let (urls, blobs) = (self.urls, self.blobs)
        self.urls.removeAll(keepingCapacity: true)
        self.blobs.removeAll(keepingCapacity: true)
        let (index, directories, logger, leftovers) = (self.index, self.directories, self.logger, self.leftovers)
        queue.async {
            Self.record(urls: urls, blobs: blobs, index: index, directories: directories, leftovers: leftovers,
                        logger: logger, last: false)
        }
    }

    /// Waits until the batches handed over so far have been tried.
    func settled() async {
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            queue.async { done.resume() }
        }
    }

    /// Flushes what is left and waits until every batch is recorded (or logged as not).
    mutating func finish() async {
        flush()
        let (index, directories, logger, leftovers) = (self.index, self.directories, self.logger, self.leftovers)
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            queue.async {
                Self.record(urls: [], blobs: [], index: index, directories: directories, leftovers: leftovers,
                            logger: logger, last: true)
                done.resume()
            }
        }
    }

    private static func record(
        urls: [URLRecord], blobs: [BlobRecord], index: CacheIndex, directories: PendingDirectories,
        leftovers: Leftovers, logger: Logger, last: Bool
    ) {
        let urls = leftovers.urls + urls
        let blobs = leftovers.blobs + blobs
        leftovers.urls = []
        leftovers.blobs = []
        guard !urls.isEmpty else { return }
        do {
            try directories.sync()
            try index.record(urls, blobs: blobs)
        } catch {
            guard last else {
                // Kept for the next batch: a row is written only after its blob's
                // directory entries are known to be durable.
                logger.warning("\(urls.count) URLs not recorded yet, will retry: \(error)")
                leftovers.urls = urls
                leftovers.blobs = blobs
                return
            }
            // Not recorded: the next run looks these URLs up, finds nothing and
            // publishes them again (the same names, so nothing is duplicated).
            logger.error("\(urls.count) URLs left out of the index: \(error)")
        }
    }
}
