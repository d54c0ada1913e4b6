import Foundation
import HTTPTypes
@testable import LiveSearch

extension RateLimitStatus {
    /// The fields a server would send, by name (every name here is a valid token).
    init(headers: KeyValuePairs<String, String>, names: RateLimitHeaders, now: Date) {
        self.init(headers: HTTPFields(headers.map { HTTPField(name: HTTPField.Name($0.key)!, value: $0.value) }), names: names, now: now)
    }
}
