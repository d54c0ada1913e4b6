/// What becomes of a finished search's pages: the seam between the search (this
/// module) and the cache's write side, so the server can run a search from its
/// page without standing on the pipeline. `Pipeline.PipelineSearchCollector` is
/// the one the program uses; tests may give their own.
public protocol SearchCollector: Sendable {
    /// What the cache holds of `client`'s search, so a search clicked again asks
    /// only for what is newer; nil asks for the whole query (a first search, or a
    /// state that cannot be read).
    func held(by client: SearchClient) -> SearchBoundary?

    /// Fetches and derives the media of `outcome`'s pages into the cache, handing
    /// `started` the counters it moves before the first item, so a page can follow.
    func collect(_ outcome: SearchOutcome, of client: SearchClient,
                 started: @Sendable (any CollectionProgress) -> Void) async throws
}

/// The counters of a collection in progress, read whenever a page asks.
public protocol CollectionProgress: AnyObject, Sendable {
    var total: Int { get }
    var done: Int { get }
    var failed: Int { get }
}
