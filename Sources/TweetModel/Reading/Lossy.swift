/// A nested value that may fail to decode without failing its parent, such as a
/// retweet's embedded original. `indirect` lets a tweet contain a tweet.
indirect enum Lossy<Value: Decodable>: Decodable {
    case value(Value)
    case failure(String)

    /// The value when it decoded.
    var decoded: Value? {
        if case let .value(value) = self { return value }
        return nil
    }

    init(from decoder: any Decoder) throws {
        do {
            self = .value(try Value(from: decoder))
        } catch {
            self = .failure(DecodingFailure.describe(error, droppingPrefix: decoder.codingPath.count))
        }
    }
}
