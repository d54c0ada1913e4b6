import BlobStore
import Foundation
import Logging
import MediaFetch

/// Batches index writes during a run: one transaction per batch instead of one per
/// URL. A crash loses at most one batch of rows, never blobs: the next run finds the
/// URLs missing from the index and re-publishes their (identical) content.
///
/// Blobs are published with their directories' flush deferred (``directories``);
/// each batch flushes them first, so a row never names a blob a power cut could
/// take away, and a run pays one journal commit per batch rather than two per blob.
struct IndexRecorder {
    let index: CacheIndex
    let directories: PendingDirectories
    let logger: Logger
    var batchSize = 32
    private var urls: [URLRecord] = []
    private var blobs: [BlobRecord] = []

    init(index: CacheIndex, directories: PendingDirectories, logger: Logger) {
        self.index = index
        self.directories = directories
        self.logger = logger
    }

    mutating func stored(urls names: [String], blob: StoredBlob, contentType: String, status: Int) {
        let now = Date()
        for name in names {
            urls.append(URLRecord(url: name, hash: blob.hash, size: blob.size, contentType: contentType,
                                  httpStatus: status, fetchedAt: now))
        }
        blobs.append(BlobRecord(hash: blob.hash, size: blob.size, contentType: contentType, createdAt: now))
        if urls.count >= batchSize { flush() }
    }

    mutating func failed(url: String, failure: FetchFailure) {
        do {
            _ = try index.recordFailure(url: url, reason: failure.description, httpStatus: failure.httpStatus)
        } catch {
            logger.warning("could not record failure", metadata: ["url": "\(url)", "error": "\(error)"])
        }
    }

    mutating func flush() {
        guard !urls.isEmpty else { return }
        do {
            try directories.sync()
        } catch {
            // Not recorded: the next run looks these URLs up, finds nothing and
            // publishes them again (the same names, so nothing is duplicated).
            logger.error("could not flush the blob directories; \(urls.count) URLs left out of the index: \(error)")
            urls.removeAll(keepingCapacity: true)
            blobs.removeAll(keepingCapacity: true)
            return
        }
        do {
            try index.record(urls, blobs: blobs)
        } catch {
            logger.error("could not record \(urls.count) URLs in the index: \(error)")
        }
        urls.removeAll(keepingCapacity: true)
        blobs.removeAll(keepingCapacity: true)
    }
}
