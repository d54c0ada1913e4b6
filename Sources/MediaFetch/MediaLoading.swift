public import MediaTypes

/// The one thing the pipeline needs from a fetcher: a request's body streamed into
/// a sink, with the outcome. ``HTTPFetcher`` is the real one (libcurl); a pipeline
/// given another can be tested without sockets, the way Nuke's pipeline takes any
/// `DataLoading`.
public protocol MediaLoading: Sendable {
    /// Fetches `request` (its fallbacks on 404/410), writing the accepted body into
    /// a sink from `makeSink` (a fresh one per attempt).
    func fetch<S: FetchSink>(_ request: FetchRequest, makeSink: @escaping @Sendable () throws -> S) async
        -> FetchResult<S.Output>
    /// Fetches many requests, at most `window` at a time, handing each result to
    /// `deliver` with the request's index as it is known; returns when all were delivered.
    func fetchAll<S: FetchSink>(
        _ requests: [FetchRequest], window: Int, makeSink: @escaping @Sendable () throws -> S,
        deliver: @escaping @Sendable ([(index: Int, result: FetchResult<S.Output>)]) -> Void
    ) async
    /// Releases what the loader holds (threads, connections); it is not used again.
    func shutdown()
}

extension MediaLoading {
    /// One task per request, `window` at a time: for loaders without a batch path of their own.
    public func fetchAll<S: FetchSink>(
        _ requests: [FetchRequest], window: Int, makeSink: @escaping @Sendable () throws -> S,
        deliver: @escaping @Sendable ([(index: Int, result: FetchResult<S.Output>)]) -> Void
    ) async {
        await concurrently(Array(requests.enumerated()), width: window, { item in
            deliver([(item.offset, await fetch(item.element, makeSink: makeSink))])
        }, each: { _ in })
    }
}

extension HTTPFetcher: MediaLoading {}

extension FetchSuccess {
    public init(
        output: Output, url: String, effectiveURL: String? = nil, httpStatus: Int = 200, kind: ContentKind,
        contentType: String? = nil, bytes: Int, attempts: Int = 1
    ) {
        self.output = output
        self.url = url
        self.effectiveURL = effectiveURL ?? url
        self.httpStatus = httpStatus
        self.kind = kind
        self.contentType = contentType
        self.bytes = bytes
        self.attempts = attempts
    }
}
