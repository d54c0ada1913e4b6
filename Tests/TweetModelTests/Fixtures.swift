import Foundation
@testable import TweetModel

/// Small builders for API-shaped JSON, so each test shows only the fields it is about.
enum Fixtures {
    static func parse(_ json: String, source: String = "test.json") -> ParsedResults {
        ResultsParser.parse(Data(json.utf8), source: source)
    }

    /// A JSON string literal for `text` (quotes and escapes included).
    static func quoted(_ text: String) -> String {
        let data = try! JSONSerialization.data(withJSONObject: [text], options: [])
        let array = String(decoding: data, as: UTF8.self)
        return String(array.dropFirst().dropLast())
    }

    /// A v1.1 user object.
    static func v1User(id: String = "12", screenName: String = "alice", image: String? = nil) -> String {
        let url = image ?? "https://pbs.twimg.com/profile_images/1111/\(screenName)_normal.jpg"
        return #"{"id": \#(id), "id_str": "\#(id)", "name": "User \#(screenName)", "screen_name": "\#(screenName)", "profile_image_url_https": "\#(url)"}"#
    }

    /// A v1.1 tweet in extended mode; `extra` is spliced in verbatim (leading comma included).
    static func v1Tweet(
        id: String,
        text: String,
        user: String = v1User(),
        entities: String = #"{"hashtags": [], "symbols": [], "user_mentions": [], "urls": []}"#,
        extra: String = ""
    ) -> String {
        #"{"created_at": "Wed Oct 10 20:19:24 +0000 2018", "id": \#(id), "id_str": "\#(id)", "full_text": \#(quoted(text)), "truncated": false, "entities": \#(entities), "user": \#(user), "lang": "en"\#(extra)}"#
    }

    /// A v1.1 photo media object.
    static func v1Photo(id: String, name: String, indices: String = "[30, 53]") -> String {
        #"{"id": \#(id), "id_str": "\#(id)", "indices": \#(indices), "media_url": "http://pbs.twimg.com/media/\#(name).jpg", "media_url_https": "https://pbs.twimg.com/media/\#(name).jpg", "url": "https://t.co/pic", "type": "photo", "sizes": {"large": {"w": 2048, "h": 1536, "resize": "fit"}, "thumb": {"w": 150, "h": 150, "resize": "crop"}}}"#
    }

    static func v1SearchPage(_ statuses: [String], query: String = "%23ucd", next: String? = "?max_id=9&q=%23ucd") -> String {
        let nextJSON = next.map { #""\#($0)""# } ?? "null"
        return #"{"statuses": [\#(statuses.joined(separator: ","))], "search_metadata": {"completed_in": 0.1, "max_id_str": "9", "next_results": \#(nextJSON), "query": "\#(query)", "count": 100}}"#
    }

    /// A v2 tweet object; `extra` is spliced in verbatim (leading comma included).
    static func v2Tweet(id: String, text: String, authorID: String = "100", extra: String = "") -> String {
        #"{"id": "\#(id)", "text": \#(quoted(text)), "author_id": "\#(authorID)", "created_at": "2021-09-22T16:38:16.000Z", "lang": "en", "edit_history_tweet_ids": ["\#(id)"]\#(extra)}"#
    }

    static func v2User(id: String = "100", username: String = "bob") -> String {
        #"{"id": "\#(id)", "username": "\#(username)", "name": "User \#(username)", "profile_image_url": "https://pbs.twimg.com/profile_images/2222/\#(username)_normal.png"}"#
    }

    /// The scalars of a string, for comparisons that must not treat `é` and `e\u{301}` as equal.
    static func scalars(_ text: some StringProtocol) -> [Unicode.Scalar] {
        Array(text.unicodeScalars)
    }
}
