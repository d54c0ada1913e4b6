public import LiveSearch

/// A finished search's pages fetched and derived by a ``CachePipeline`` run: what
/// `serve` gives its live searches (the server itself never imports the pipeline).
public struct PipelineSearchCollector: SearchCollector {
    public var options: PipelineOptions

    public init(options: PipelineOptions) { self.options = options }

    public func held(by client: SearchClient) -> SearchBoundary? {
        // A state that cannot be read: the whole query, as a first search asks.
        try? SearchState.held(by: client, cacheRoot: options.cacheRoot)
    }

    public func collect(_ outcome: SearchOutcome, of client: SearchClient,
                        started: @Sendable (any CollectionProgress) -> Void) async throws {
        let progress = RunProgress()
        started(progress)
        // Read back from the saved files a piece at a time: a long search holds no pages.
        let inputs = (try? SearchState.inputs(of: outcome, from: client))
            ?? outcome.pages.compactMap { try? ResultsInput.read($0.file.path) }
        _ = try await CachePipeline(options: options).run(inputs, progress: progress)
    }
}

extension RunProgress: CollectionProgress {}
