/// What every converter collects besides the posts it returns: the problems met,
/// located within the document, and the posts quoted, retweeted or reblogged, each once.
struct ConversionLog {
    let source: String
    /// Prepended to every location, e.g. `line 12, ` inside JSON Lines.
    let locationPrefix: String
    private(set) var problems: [ParseProblem] = []
    private(set) var included: [Tweet] = []
    private var includedIDs: Set<String> = []

    init(source: String, locationPrefix: String) {
        self.source = source
        self.locationPrefix = locationPrefix
    }

    mutating func report(_ location: String, _ message: String) {
        problems.append(ParseProblem(source: source, location: locationPrefix + location, message: message))
    }

    /// Keeps an embedded original once, however many posts embed it.
    mutating func include(_ post: Tweet) {
        if includedIDs.insert(post.id).inserted { included.append(post) }
    }
}
