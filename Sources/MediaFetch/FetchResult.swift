public import MediaTypes
/// A body that arrived, passed the checks and was handed to its sink.
public struct FetchSuccess<Output: Sendable>: Sendable {
    public var output: Output
    /// The URL (of the request or one of its fallbacks) that answered, before mirroring.
    public var url: String
    /// The last URL after redirects, as libcurl saw it (mirrored).
    public var effectiveURL: String
    public var httpStatus: Int
    public var kind: ContentKind
    /// As the server sent it; informative only (``kind`` is what the bytes are).
    public var contentType: String?
    public var bytes: Int
    public var attempts: Int
}

/// One request's outcome.
public typealias FetchResult<Output: Sendable> = Result<FetchSuccess<Output>, FetchFailure>
