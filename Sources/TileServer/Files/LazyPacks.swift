import BlobStore
import Dispatch
import Imaging
import Logging
import CacheCore
import Synchronization

/// Builds the pyramid pack of an image the first time one of its tiles is made
/// on request (`fetch --tiles lazy`, or a cache from before packs), in the
/// background, one image at a time, so later tiles come from the pack.
///
/// The tile that triggered it is cut from the decoded original at once (that
/// is the cold-tile latency a viewer sees); the pack build runs on a queue of
/// its own at utility priority and never delays an answer. Its tiles are
/// byte-identical to the ones already served, so nothing a client cached changes.
final class LazyPacks: Sendable {
    private let store: BlobStore?
    private let files: CacheFiles
    private let sources: SourceImages
    private let reader: PackReader
    private let logger: Logger
    private let building = Mutex([BlobHash: Task<Void, Never>]())
    private let queue = DispatchQueue(label: "tweetcache.serve.packs", qos: .utility)

    /// `store` is nil for a cache the server cannot write: tiles are then
    /// always cut on request.
    init(store: BlobStore?, files: CacheFiles, sources: SourceImages, reader: PackReader, logger: Logger) {
        self.store = store
        self.files = files
        self.sources = sources
        self.reader = reader
        self.logger = logger
    }

    /// Whether packs are built at all (not over a read-only cache or a bucket).
    var enabled: Bool { store != nil }

    /// Builds waiting or running at most: each holds a decoded image, so a walk
    /// over thousands of images must not queue thousands. A skipped image is
    /// scheduled again by its next cut tile.
    static let maxPending = 3

    /// Starts building the pack of `hash` with `options` unless it is being
    /// built or too many builds are pending.
    func schedule(_ hash: BlobHash, options: TilePyramidOptions) {
        guard let store else { return }
        let relative = CacheLayout.pack(hash)
        building.withLock { tasks in
            guard tasks.count < Self.maxPending, tasks[hash] == nil else { return }
            tasks[hash] = Task.detached(priority: .background) { [self] in
                await build(hash, relative: relative, options: options, store: store)
                _ = building.withLock { $0.removeValue(forKey: hash) }
            }
        }
    }

    /// Waits for the builds under way (for tests: no sleeping until a file appears).
    func settled() async {
        while let next = building.withLock({ $0.values.first }) { await next.value }
    }

    private func build(_ hash: BlobHash, relative: String, options: TilePyramidOptions, store: BlobStore) async {
        // Another process (a fetch, a repair) may have published one since the
        // request that scheduled this: keep it, here and after the build.
        guard !files.exists(relative) else { return }
        do {
            let image = try await sources.pixels(hash)
            let single = TilePyramidOptions(tileSize: options.tileSize, overlap: options.overlap,
                                            quality: options.quality, format: .suited(to: image), threads: 1)
            let bytes = try await withCheckedThrowingContinuation { (done: CheckedContinuation<[UInt8], any Error>) in
                queue.async {
                    done.resume(with: Result { try TilePyramidBuilder.pack(image: image, options: single, source: hash.bytes).bytes })
                }
            }
            try files.checkConfined(relative)
            guard !files.exists(relative) else { return }
            try store.publishDerived(bytes, at: relative)
            reader.forget(hash)
        } catch {
            logger.warning("could not build the pyramid pack of \(hash.hex): \(error)")
        }
    }
}
