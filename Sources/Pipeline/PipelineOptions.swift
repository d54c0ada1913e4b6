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
    /// Thumbnails and tiles to make from cached images; nil makes none.
    public var derive: DeriveOptions? = DeriveOptions()

    public init(cacheRoot: URL, fetch: FetchConfiguration = .init()) {
        self.cacheRoot = cacheRoot
        self.fetch = fetch
    }
}
