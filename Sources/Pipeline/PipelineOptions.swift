import CacheCore
import Foundation
import MediaFetch

/// Everything a run needs to know besides its inputs.
public struct PipelineOptions: Sendable {
    /// The cache directory (blobs, index, manifests).
    public var cacheRoot: URL
    public var fetch: FetchConfiguration
    /// Also download the highest-bitrate MP4 of videos and GIFs (posters are always fetched).
    public var includeVideos: Bool = false
    /// Also write the manifest here, besides `<cache>/manifests/<timestamp>.json`.
    public var extraManifestPath: URL?
    /// Appended to the manifest's name (`<UTC>-<tag>.json`): with object storage,
    /// host and random, so no two machines sharing a bucket choose the same name.
    public var manifestTag: String?
    /// Thumbnails and tiles to make from cached images; nil makes none.
    public var derive: DeriveOptions? = DeriveOptions()
    /// The wall clock: a run's manifest is stamped (and named) with it. Tests give
    /// runs the times they need instead of sleeping until the second changes.
    public var now: @Sendable () -> Date = { Date() }
    /// Makes the loader a run downloads through, from the run's fetch settings;
    /// nil (the default) is an ``HTTPFetcher`` logging with the pipeline's logger.
    public var loader: (@Sendable (FetchConfiguration) throws -> any MediaLoading)? = nil
    /// Where the run's files go besides the local cache, batch by batch (object
    /// storage); nil keeps them local.
    public var publisher: (any RunPublisher)? = nil
    /// Where originals this cache's index knows by URL (from a shared bucket's
    /// manifests) but does not hold are read from before their origin is asked;
    /// nil asks the origin.
    public var blobSource: (any BlobSource)? = nil
    /// Posts per batch: large enough that a batch's downloads keep the network busy,
    /// small enough that a batch's posts, outcomes and entries are a few megabytes.
    /// A run's peak memory is its largest batch at work (and the next piece of input
    /// parsed beside it), met again in every batch: a million posts in batches of
    /// 4,096 peaked at 113 MB during their downloads, in batches of 1,024 at 88 MB.
    public var batchSize = 1024

    public init(cacheRoot: URL, fetch: FetchConfiguration = .init()) {
        self.cacheRoot = cacheRoot
        self.fetch = fetch
    }
}
