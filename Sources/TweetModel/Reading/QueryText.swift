import Foundation

/// Decoding of the form-encoded queries the APIs echo back.
enum QueryText {
    /// `advanced_recycling+-filter%3Aretweets` → `advanced_recycling -filter:retweets`.
    /// Text that is not valid percent-encoding is returned as given rather than lost.
    static func decode(_ text: String) -> String {
        let spaced = text.replacingOccurrences(of: "+", with: " ")
        return spaced.removingPercentEncoding ?? spaced
    }

    /// The decoded `name` parameter of a URL's query string, if present.
    static func parameter(_ name: String, in url: String) -> String? {
        guard let questionMark = url.firstIndex(of: "?") else { return nil }
        var query = url[url.index(after: questionMark)...]
        if let hash = query.firstIndex(of: "#") { query = query[..<hash] }
        for item in query.split(separator: "&") {
            let pair = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            if pair.count == 2, pair[0] == name { return decode(String(pair[1])) }
        }
        return nil
    }
}
