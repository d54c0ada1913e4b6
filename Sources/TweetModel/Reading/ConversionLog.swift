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

/// A converter of one kind of wire post (X v1.1, Mastodon, Bluesky): the loop over an
/// array in document order and what the conversion collected live here, once.
protocol PostConverter {
    associatedtype Wire: Decodable
    var log: ConversionLog { get set }
    /// One post and the posts it embeds; nil (with a problem in ``log``) when unusable.
    mutating func convertReporting(_ wire: Wire, at location: String) -> Tweet?
}

extension PostConverter {
    var problems: [ParseProblem] { log.problems }
    var included: [Tweet] { log.included }

    /// Converts every element of an array, reporting the bad ones as `key[i]`.
    mutating func convert(_ list: LossyArray<Wire>, key: String) -> [Tweet] {
        each(list, key: key) { converter, wire, location in converter.convertReporting(wire, at: location) }
    }

    /// `one` for every element that decoded, in document order with the failures reported between.
    mutating func each<Element: Decodable>(
        _ list: LossyArray<Element>, key: String, _ one: (inout Self, Element, String) -> Tweet?
    ) -> [Tweet] {
        var posts: [Tweet] = []
        for entry in list.inDocumentOrder(key: key) {
            switch entry {
            case let .failure(location, reason): log.report(location, reason)
            case let .element(element, location): if let post = one(&self, element, location) { posts.append(post) }
            }
        }
        return posts
    }
}
