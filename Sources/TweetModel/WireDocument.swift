/// One JSON document, classified by its keys into the response shapes tools save.
///
/// Classification happens inside `Decodable` so the JSON is parsed once: the keyed
/// container is inspected, then the matching wire struct decodes from the same decoder.
/// Decoding never throws for a well-formed JSON document; shape errors become
/// ``malformed(_:_:)`` or ``unknown(_:)`` so they can be reported with their position.
enum WireDocument: Decodable {
    case v1Search(V1WireSearchPage)
    case premiumSearch(V1WirePremiumPage)
    case v1Timeline(LossyArray<V1WireTweet>)
    case v1Tweet(Lossy<V1WireTweet>)
    case v2Search(V2WireSearchPage)
    case v2Tweet(V2WireSingle)
    /// A bare v2 tweet object (no `data` wrapper), as twarc's flattened output writes.
    case v2BareTweet(Lossy<V2WireTweet>)
    /// A response that is only an error, e.g. rate limited or unauthorized.
    case apiErrors([V2WireError])
    /// Recognised, but the structure is broken (e.g. `statuses` is not an array).
    case malformed(SourceFormat, String)
    /// Valid JSON that is no Twitter response we know; the string says what was found.
    case unknown(String)

    init(from decoder: any Decoder) throws {
        if (try? decoder.unkeyedContainer()) != nil {
            self = Self.attempt(.v1Timeline, decoder) { .v1Timeline(try LossyArray(from: decoder)) }
            return
        }
        guard let object = try? decoder.container(keyedBy: AnyKey.self) else {
            self = .unknown("a single JSON value where an object or an array was expected")
            return
        }
        let keys = Set(object.allKeys.map(\.stringValue))
        if keys.contains("statuses") {
            self = Self.attempt(.v1Search, decoder) { .v1Search(try V1WireSearchPage(from: decoder)) }
        } else if keys.contains("results") {
            self = Self.attempt(.premiumSearch, decoder) { .premiumSearch(try V1WirePremiumPage(from: decoder)) }
        } else if keys.contains("data") {
            let dataKey = AnyKey("data")
            let isSingle = (try? object.nestedContainer(keyedBy: AnyKey.self, forKey: dataKey)) != nil
            self = isSingle
                ? Self.attempt(.v2Tweet, decoder) { .v2Tweet(try V2WireSingle(from: decoder)) }
                : Self.attempt(.v2Search, decoder) { .v2Search(try V2WireSearchPage(from: decoder)) }
        } else if keys.contains("meta") {
            // A v2 search that matched nothing has no "data" at all.
            self = Self.attempt(.v2Search, decoder) { .v2Search(try V2WireSearchPage(from: decoder)) }
        } else if keys.contains("id_str") || keys.contains("user") || keys.contains("full_text") {
            self = .v1Tweet(try Lossy(from: decoder))
        } else if keys.contains("id"), keys.contains("text") {
            self = .v2BareTweet(try Lossy(from: decoder))
        } else if keys.contains("errors") {
            let errors = (try? object.decode(LossyArray<V2WireError>.self, forKey: AnyKey("errors")))?.values
            self = .apiErrors(errors ?? [])
        } else if keys.contains("title"), keys.contains("detail") || keys.contains("type") {
            self = .apiErrors([(try? V2WireError(from: decoder))].compactMap { $0 })
        } else {
            let shown = keys.sorted().prefix(6).joined(separator: ", ")
            self = .unknown(keys.isEmpty ? "an empty object" : "an object with keys \(shown)\(keys.count > 6 ? ", …" : "")")
        }
    }

    private static func attempt(_ format: SourceFormat, _ decoder: any Decoder, _ body: () throws -> WireDocument) -> WireDocument {
        do {
            return try body()
        } catch {
            return .malformed(format, DecodingFailure.describe(error, droppingPrefix: decoder.codingPath.count))
        }
    }
}

/// A coding key for any string, used to look at a document's keys before decoding it.
struct AnyKey: CodingKey {
    let stringValue: String
    let intValue: Int? = nil

    init(_ string: String) { stringValue = string }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { return nil }
}
