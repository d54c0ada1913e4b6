import Foundation


/// Tweet text as the APIs serve it: `&`, `<`, `>` escaped, entity offsets counted in
/// code points of that escaped text.
struct SampleText {
    struct Entity {
        enum Kind {
            case hashtag(String)
            case mention(Int)                       // index into the users
            case link(url: String, expanded: String, display: String)
        }
        var kind: Kind
        var start: Int
        var end: Int
    }

    private(set) var escaped = ""
    private(set) var count = 0
    private(set) var entities: [Entity] = []

    mutating func append(_ plain: String) {
        for scalar in plain.unicodeScalars {
            switch scalar {
            case "&": raw("&amp;")
            case "<": raw("&lt;")
            case ">": raw("&gt;")
            default:
                escaped.unicodeScalars.append(scalar)
                count += 1
            }
        }
    }

    mutating func raw(_ text: String) {
        escaped += text
        count += text.unicodeScalars.count
    }

    mutating func entity(_ kind: Entity.Kind, text: String) {
        let start = count
        append(text)
        entities.append(Entity(kind: kind, start: start, end: count))
    }

    /// Re-adds an entity of another text at an offset (for a retweet's copied text).
    mutating func adopt(_ entity: Entity, shiftedBy shift: Int) {
        entities.append(Entity(kind: entity.kind, start: entity.start + shift, end: entity.end + shift))
    }
}

/// One piece of a tweet template.
enum Segment {
    case text(String)
    case hashtag(String)
    /// A mention of some other sample user.
    case mention
    case link(expanded: String, display: String)
}

struct SampleUser {
    let id: UInt64
    let screenName: String
    let name: String
    let bio: String
    let avatarURL: String
    let createdAt: Date
    let followers: Int
}

enum SampleMedia {
    case photo(id: UInt64, name: String, width: Int, height: Int, altText: String?)
    case video(id: UInt64, poster: String, variants: [(bitrate: Int, width: Int, height: Int, name: String)], playlist: String)
    case gif(id: UInt64, poster: String, mp4: String, width: Int, height: Int)

    var id: UInt64 {
        switch self {
        case .photo(let id, _, _, _, _), .video(let id, _, _, _), .gif(let id, _, _, _, _): id
        }
    }

    var mediaKey: String {
        switch self {
        case .photo: "3_\(id)"
        case .video: "7_\(id)"
        case .gif: "16_\(id)"
        }
    }

    var pathKind: String {
        switch self {
        case .photo, .gif: "photo"
        case .video: "video"
        }
    }
}

final class SampleTweet {
    let id: UInt64
    let date: Date
    let author: Int
    let text: SampleText
    let media: [SampleMedia]
    /// The t.co link for the media, appended to the text when there is media.
    let mediaLink: (url: String, start: Int, end: Int)?
    let lang: String
    var retweetOf: SampleTweet?
    var quoteOf: SampleTweet?
    let metrics: (retweets: Int, likes: Int, replies: Int, quotes: Int)

    init(id: UInt64, date: Date, author: Int, text: SampleText, media: [SampleMedia],
         mediaLink: (url: String, start: Int, end: Int)?, lang: String,
         metrics: (retweets: Int, likes: Int, replies: Int, quotes: Int)) {
        self.id = id
        self.date = date
        self.author = author
        self.text = text
        self.media = media
        self.mediaLink = mediaLink
        self.lang = lang
        self.metrics = metrics
    }
}
