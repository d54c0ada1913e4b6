/// A JSON array decoded element by element, so one malformed element costs only itself.
///
/// `JSONDecoder` fails a whole `[T]` on its first bad element; for a page of 100 tweets
/// that would throw away 99 good ones. Failures are kept with their index so callers
/// can report where they were.
struct LossyArray<Element: Decodable>: Decodable {
    /// The elements that decoded, each with its index in the JSON array.
    var elements: [(index: Int, value: Element)] = []
    /// The elements that did not, with their index and a one-line reason.
    var failures: [(index: Int, reason: String)] = []

    /// Just the decoded values, for arrays whose bad elements are dropped silently.
    var values: [Element] { elements.map(\.value) }

    init(from decoder: any Decoder) throws {
        var container = try decoder.unkeyedContainer()
        var index = 0
        while !container.isAtEnd {
            do {
                elements.append((index, try container.decode(Element.self)))
            } catch {
                // codingPath is costly to build, so only on failure.
                failures.append((index, DecodingFailure.describe(error, droppingPrefix: container.codingPath.count + 1)))
                // A failed decode leaves the container on the same element: step over it.
                guard (try? container.decode(SkippedValue.self)) != nil else { break }
            }
            index += 1
        }
    }
}

/// Decodes any JSON value and keeps nothing; used to step past a bad array element.
struct SkippedValue: Decodable {
    init(from decoder: any Decoder) throws {}
}

extension LossyArray {
    /// An element that decoded, or one that did not, with its location.
    enum Entry {
        case element(Element, location: String)
        case failure(location: String, reason: String)
    }

    /// Every element and every failure in document order, located as `key[i]`, so a
    /// converter reports problems where they stand among the posts it keeps.
    func inDocumentOrder(key: String) -> [Entry] {
        var entries: [Entry] = []
        entries.reserveCapacity(elements.count + failures.count)
        var failures = self.failures[...]
        for (index, value) in elements {
            while let failure = failures.first, failure.index < index {
                entries.append(.failure(location: "\(key)[\(failure.index)]", reason: failure.reason))
                failures.removeFirst()
            }
            entries.append(.element(value, location: "\(key)[\(index)]"))
        }
        for failure in failures { entries.append(.failure(location: "\(key)[\(failure.index)]", reason: failure.reason)) }
        return entries
    }
}
