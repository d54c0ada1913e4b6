import Foundation

/// The order every list of posts is in: newest `created_at` first, undated last;
/// ties by id, numerically descending where both are numbers (snowflake ids grow
/// with time), by text otherwise.
///
/// The catalog sorts in SQL on two columns, ``created(_:)`` and ``idKey(_:)``, so
/// the order is an index range rather than a sort of every match; a page cursor
/// holds the same two values.
public enum PostOrder {
    /// Where undated posts sort: below every real date.
    static let undated = -1e300

    /// The `created` column: seconds since 1970, or ``undated``.
    static func created(_ date: Date?) -> Double {
        guard let seconds = date?.timeIntervalSince1970, seconds.isFinite else { return undated }
        return seconds
    }

    /// The `id_order` column: a numeric id as `0`, its length in three digits and its
    /// digits (so a longer number sorts higher), any other id as `1` and its text
    /// (text ids sort above numbers that share their date).
    static func idKey(_ id: String) -> String {
        var id = id
        return id.withUTF8 { utf8 in
            guard !utf8.isEmpty, utf8.count < 1000, utf8.allSatisfy({ (48...57).contains($0) }) else {
                return "1" + String(decoding: utf8, as: UTF8.self)
            }
            // Over the bytes, not `Character`s: every id of a big read goes through here.
            let digits = UnsafeBufferPointer(rebasing: utf8[(utf8.firstIndex { $0 != 0x30 } ?? utf8.count)...])
            return String(unsafeUninitializedCapacity: 4 + digits.count) { out in
                out[0] = 0x30
                out[1] = 0x30 + UInt8(digits.count / 100)
                out[2] = 0x30 + UInt8(digits.count / 10 % 10)
                out[3] = 0x30 + UInt8(digits.count % 10)
                _ = UnsafeMutableBufferPointer(rebasing: out[4...]).initialize(from: digits)
                return 4 + digits.count
            }
        }
    }

    /// Whether the post `a` is listed before the post `b`: the order in Swift, for the
    /// few lists made in memory.
    public static func comesBefore(_ a: (createdAt: Date?, id: String), _ b: (createdAt: Date?, id: String)) -> Bool {
        let x = created(a.createdAt), y = created(b.createdAt)
        if x != y { return x > y }
        return idKey(a.id) > idKey(b.id)
    }
}

/// Where a page of posts starts: the sort key of the last post of the page before.
///
/// A key rather than an offset, so posts added while someone pages are neither
/// repeated nor skipped among those already in the order.
public struct PostKey: Sendable, Equatable {
    public var createdAt: Date?
    public var id: String

    public init(createdAt: Date?, id: String) {
        self.createdAt = createdAt
        self.id = id
    }

    public init(after post: ManifestTweet) {
        self.init(createdAt: post.createdAt, id: post.id)
    }
}
