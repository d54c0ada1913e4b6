import BlobStore

extension RunProgress {
    /// What one line says of the whole run, from its counters at one moment.
    ///
    /// The share done is the input's: bytes of input whose posts are done, out of the
    /// files' sizes. URLs alone cannot say it, as a run learns them a batch at a
    /// time: done/seen is full at the end of every batch. Until the first batch is
    /// done the input has not moved, and its URLs are all there is to go by.
    public struct Snapshot: Sendable {
        public var inputTotal, inputDone, posts, urls, urlsDone, failed, images, imagesDone, bytes: Int
        public var elapsed: Double
        /// The batch at work (``RunProgress/BatchStart``).
        public var batch = BatchStart()

        public init(_ p: RunProgress, elapsed: Double) {
            batch = p.batch
            inputTotal = p.inputTotal
            inputDone = min(p.inputDone, p.inputTotal)
            posts = p.posts
            urls = p.total
            urlsDone = p.done
            failed = p.failed
            images = p.deriveTotal
            imagesDone = p.deriveDone
            bytes = p.bytes.value
            self.elapsed = max(elapsed, 0.001)
        }

        public init(inputTotal: Int, inputDone: Int, posts: Int, urls: Int, urlsDone: Int, failed: Int = 0,
            images: Int = 0, imagesDone: Int = 0, bytes: Int = 0, elapsed: Double, batch: BatchStart = .init()) {
            self.batch = batch
            (self.inputTotal, self.inputDone, self.posts, self.urls, self.urlsDone) = (inputTotal, inputDone, posts, urls, urlsDone)
            (self.failed, self.images, self.imagesDone, self.bytes, self.elapsed) = (failed, images, imagesDone, bytes, elapsed)
        }

        public var fraction: Double {
            guard inputTotal > 0 else { return urls > 0 ? Double(urlsDone) / Double(urls) * 0.999 : 0 }
            if inputDone >= inputTotal { return 1 }
            // Within the batch at work: half for its URLs, half for its images.
            let from = inputDone, to = max(from, min(batch.endsAt, inputTotal))
            let batchURLs = urls - batch.urls, batchImages = images - batch.images
            let urlShare = batchURLs > 0 ? Double(urlsDone - batch.urlsDone) / Double(batchURLs) : 0
            let imageShare = batchImages > 0 ? Double(imagesDone - batch.imagesDone) / Double(batchImages) : 0
            let within = max(0, min(1, (urlShare + imageShare) / 2))
            return min(0.999, (Double(from) + Double(to - from) * within) / Double(inputTotal))
        }

        /// Nil before the run has anything to say.
        public func text(final: Bool) -> String? {
            guard posts > 0 || urls > 0 || inputDone > 0 else { return nil }
            var parts: [String] = []
            if inputTotal > 0 {
                parts.append("\(Int((fraction * 100).rounded(.down)))% of \(ByteCount.format(inputTotal))")
            }
            parts.append("\(posts) posts")
            parts.append("\(urlsDone)/\(urls) URLs" + (failed > 0 ? " (\(failed) failed)" : ""))
            if images > 0 { parts.append("\(imagesDone)/\(images) images derived") }
            parts.append("\(ByteCount.format(bytes)) \(ByteCount.format(Int(Double(bytes) / elapsed)))/s")
            let f = fraction
            if !final, f > 0, f < 1 { parts.append("ETA \(Self.duration(elapsed / f - elapsed))") }
            return parts.joined(separator: "  ")
        }

        /// `42s`, `3m10s`: an ETA.
        public static func duration(_ s: Double) -> String {
            guard s.isFinite else { return "?" }
            let t = Int(s.rounded())
            return t >= 60 ? "\(t / 60)m\(t % 60)s" : "\(t)s"
        }
    }
}
