import CacheCore
import Catalog
import BlobStore
internal import CTweetCache
import Foundation
import Logging
import MediaFetch
import MediaTypes
import TweetModel

/// A batch's stages after planning: downloads, and the derivation of what arrived.
extension CachePipeline {
    /// Derives thumbnails (every image) and tiles (media, not avatars) for a batch's
    /// images, several at once, each decoded once; records what it made. An image
    /// met earlier in the run is looked at again only when the ledger has forgotten
    /// it, and then finds its files made.
    func deriveAll(
        plan: FetchPlan, outcomes: [String: ItemOutcome], options: DeriveOptions, ledger: inout RunLedger,
        progress: RunProgress
    ) async -> [BlobHash: DeriveOutcome] {
        var wantsTiles: [BlobHash: Bool] = [:]
        var images: [BlobHash] = []
        var results: [BlobHash: DeriveOutcome] = [:]
        for item in plan.items where item.role != .video {
            guard case let .stored(hash, _, kind, _) = outcomes[item.url], kind?.isImage == true else { continue }
            if wantsTiles[hash] == nil { images.append(hash) }
            wantsTiles[hash, default: false] = wantsTiles[hash, default: false] || item.role != .avatar
        }
        // Met earlier in the run: reused, unless it was an avatar then and is media now.
        var order: [BlobHash] = []
        for hash in images {
            if let known = ledger.derived.get(hash), known.withTiles || wantsTiles[hash] != true {
                results[hash] = known.outcome
            } else {
                order.append(hash)
            }
        }
        guard !order.isEmpty else { return results }
        let existing = (try? index.derived(for: order)) ?? [:]
        let known = (try? index.blobs(order)) ?? [:]
        let knownPDQ = options.perceptualHashes ? ((try? index.pdq(for: order)) ?? [:]) : [:]
        let firstSeen = order.filter { ledger.seenImages.insert(hash: $0.hashValue) }
        progress.addDeriveTotal(firstSeen.count)
        let counted = Set(firstSeen)
        let lanes = max(1, options.concurrency)
        // Pack folders are flushed once for the batch, before any pack row is recorded.
        let pending = PendingDirectories()
        let deriver = Deriver(
            store: store, files: DerivedFiles(layout: store.layout), options: options,
            threadsPerImage: order.count >= lanes ? 1 : lanes, pendingDirectories: pending)
        var fresh: [BlobHash: DeriveOutcome] = [:]
        let jobs = order.map { hash in
            let size = known[hash].flatMap { r in r.width.flatMap { w in r.height.map { (width: w, height: $0) } } }
            return DeriveJob(hash: hash, wantsTiles: wantsTiles[hash] ?? false,
                             existing: existing[hash] ?? [], knownSize: size, knownPDQ: knownPDQ[hash],
                             knownDamage: known[hash]?.decodeWarning)
        }
        await concurrently(jobs, width: lanes, { deriver.derive($0) }) { outcome in
            fresh[outcome.hash] = outcome
            if counted.contains(outcome.hash) { progress.deriveOne() }
        }
        for (hash, outcome) in fresh {
            results[hash] = outcome
            ledger.derived.set(hash, (outcome, wantsTiles[hash] ?? false))
            if !outcome.newRecords.isEmpty { ledger.summary.derived += 1 }
            if outcome.error != nil, counted.contains(hash) { ledger.summary.deriveFailed += 1 }
        }
        record(Array(fresh.values), known: known, pending: pending)
        return results
    }

    /// Puts what deriving made into the index: new rows, rows replaced, image sizes.
    func record(_ outcomes: [DeriveOutcome], known: [BlobHash: BlobRecord], pending: PendingDirectories) {
        do {
            try pending.sync()
            try index.recordDerived(outcomes.flatMap(\.newRecords))
            // Rows replaced (a pack of another tile size).
            let replacing = outcomes.filter { !$0.obsolete.isEmpty && $0.error == nil }
            try index.removeDerived(replacing.flatMap(\.obsolete))
            let sized = outcomes.compactMap { o -> BlobRecord? in
                let newDamage = o.damage != nil && known[o.hash]?.decodeWarning != o.damage
                guard !o.newRecords.isEmpty || known[o.hash]?.width == nil || newDamage, let w = o.width, let h = o.height,
                      let size = try? store.path(for: o.hash).resourceValues(forKeys: [.fileSizeKey]).fileSize
                else { return nil }
                var record = BlobRecord(hash: o.hash, size: size, width: w, height: h)
                record.decodeWarning = o.damage
                return record
            }
            try index.recordBlobs(sized)
            var hashed: [BlobHash: PDQSignature] = [:]
            for outcome in outcomes where outcome.pdqIsNew { hashed[outcome.hash] = outcome.pdq }
            try index.recordPDQ(hashed)
        } catch {
            logger.error("could not record derived files: \(error)")
        }
    }

    struct Fetched {
        var outcomes: [String: ItemOutcome] = [:]
        var deduplicated = 0
        var bytes = 0
    }

    /// Downloads `items` through the fetcher's batch path: it caps transfers on the
    /// network, and the window caps how many items (each with an open temp file once
    /// started) wait for a slot. Results arrive in batches on the fetcher's threads.
    func fetchAll(_ items: [FetchPlan.Item], loader: LazyLoader, progress: RunProgress)
        async throws(PipelineError) -> Fetched
    {
        let fetcher = try loader.get()
        let store = self.store
        // Wide enough that items waiting for a flush to disk do not idle the network,
        // bounded because each item started holds a file descriptor.
        let transfers = loader.configuration.maxConcurrentTransfers
        let window = max(8, min(transfers * 8, max(transfers * 2, 256)))
        let directories = PendingDirectories()
        let tally = FetchTally(recorder: IndexRecorder(index: index, directories: directories, logger: logger))
        await fetcher.fetchAll(
            items.map { FetchRequest(url: $0.url, fallbackURLs: $0.fallbacks, expected: $0.role.expected) },
            window: window,
            makeSink: { try store.makeWriter(deferringDirectorySync: directories) }
        ) { results in
            tally.record(results.map { (items[$0.index], $0.result) }, progress: progress)
        }
        let (result, gathered) = tally.take()
        var recorder = gathered
        await recorder.finish()
        // Whatever a failed batch left pending is tried once more; if the cache's
        // directories cannot be flushed, the run stops before a manifest or an index
        // row names a blob a power cut could take away.
        if !directories.isEmpty {
            do { try directories.sync() } catch { throw .cache("could not flush the blob directories: \(error)") }
        }
        return result
    }
}
