import Foundation

extension PostCatalog {
    /// A post's place in its manifest.
    struct Entry: Sendable {
        var section: ManifestFile.Section
        var range: Range<Int>
    }

    /// A batch of a manifest's posts, decoded and made into rows.
    struct DecodedBatch: Sendable {
        var entries: [Entry]
        var rows: [Result<PostRow, ManifestFile.Problem>]
    }

    /// Reads a manifest's posts on threads of its own, a batch at a time, while the
    /// writer writes the batch before: finding the posts (the scan), decoding them and
    /// making their rows cost about what SQLite's work for them does, and the writer
    /// is the one thread that cannot be shared. At most two batches wait for the
    /// writer, so memory stays a few batches whatever the manifest's size.
    final class PostReader: @unchecked Sendable {
        private let condition = NSCondition()
        // Guarded by `condition`.
        private var ready: [DecodedBatch] = []
        private var finished = false
        private var failure: (any Error)?
        private var cancelled = false
        private var running = true

        /// With `objects`, each batch's fetched objects (posts whose objects did not
        /// read are left out) are handed to it on this thread, in order, before the
        /// batch goes to the writer: what `sync` records, from the same decode.
        init(_ manifest: ManifestFile, batchSize: Int, objects: (@Sendable ([FetchedObjects]) -> Void)? = nil) {
            Thread.detachNewThread { [self] in
                do {
                    var pending: [Entry] = []
                    pending.reserveCapacity(batchSize)
                    func send() throws {
                        guard !pending.isEmpty else { return }
                        let rows: [Result<PostRow, ManifestFile.Problem>]
                        if let objects {
                            let both = manifest.read(at: pending.map(\.range)) { json in
                                let read = json.withUnsafeBytes(PostFacts.readWithObjects)
                                return (read.facts.map(PostRow.init), read.objects)
                            }
                            rows = both.map { $0.flatMap { $0.0 } }
                            objects(both.compactMap { try? $0.get().1 })
                        } else {
                            rows = manifest.read(at: pending.map(\.range)) { json in
                                PostRow(try json.withUnsafeBytes { try PostFacts.read($0) })
                            }
                        }
                        // The rows hold all the writer needs: the batch's pages go back
                        // now, not once it is written (a manifest of gigabytes is not
                        // left resident, nor the batches waiting for the writer).
                        if let first = pending.first, let last = pending.last {
                            manifest.release(first.range.lowerBound..<last.range.upperBound)
                        }
                        guard put(DecodedBatch(entries: pending, rows: rows)) else { throw CancellationError() }
                        pending.removeAll(keepingCapacity: true)
                    }
                    try manifest.forEachPost { section, range in
                        pending.append(Entry(section: section, range: range))
                        if pending.count == batchSize { try send() }
                    }
                    try send()
                    end(nil)
                } catch {
                    end(error)
                }
            }
        }

        /// The next batch in order; nil after the last. Throws what stopped the scan.
        func next() throws -> DecodedBatch? {
            condition.lock()
            defer { condition.unlock() }
            while ready.isEmpty && !finished { condition.wait() }
            if !ready.isEmpty {
                condition.broadcast()
                return ready.removeFirst()
            }
            if let failure { throw failure }
            return nil
        }

        /// Stops the reading thread and waits for it to end (the writer failed).
        func cancel() {
            condition.lock()
            defer { condition.unlock() }
            cancelled = true
            condition.broadcast()
            while running { condition.wait() }
        }

        private func put(_ batch: DecodedBatch) -> Bool {
            condition.lock()
            defer { condition.unlock() }
            while ready.count >= 2 && !cancelled { condition.wait() }
            guard !cancelled else { return false }
            ready.append(batch)
            condition.broadcast()
            return true
        }

        private func end(_ error: (any Error)?) {
            condition.lock()
            defer { condition.unlock() }
            if !(error is CancellationError) { failure = error }
            finished = true
            running = false
            condition.broadcast()
        }
    }
}
