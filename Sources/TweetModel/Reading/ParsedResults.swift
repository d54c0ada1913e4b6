/// Everything read from one input document: the pages that parsed and the problems
/// that did not belong to any page (not JSON, unknown shape, bad JSON Lines lines).
public struct ParsedResults: Sendable, Codable, Hashable {
    /// One page for a JSON document, one per good line for JSON Lines.
    public let pages: [ResultsPage]
    /// Problems about the document or its lines; problems inside a page are in that
    /// page's ``ResultsPage/problems``.
    public let problems: [ParseProblem]

    public init(pages: [ResultsPage], problems: [ParseProblem]) {
        self.pages = pages
        self.problems = problems
    }

    /// Every top-level tweet of every page, in document order.
    public var tweets: [Tweet] { pages.flatMap(\.tweets) }

    /// Document problems followed by every page's problems.
    public var allProblems: [ParseProblem] { problems + pages.flatMap(\.problems) }
}
