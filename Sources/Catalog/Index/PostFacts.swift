import Foundation
import MediaTypes
#if canImport(Glibc)
internal import Glibc
#endif

/// What the catalog keeps of a post: the fields its columns and tables are made of,
/// decoded from the post's JSON without the rest (thumbnails, packs, errors, entity
/// positions), which only a reader of the whole post needs.
///
/// Read by hand (``read(_:)``, ``StrictJSONReader``); `Decodable` is what it falls
/// back to for a post of any unusual form, and what says what is wrong with a broken one.
struct PostFacts: Decodable, Sendable, Equatable {
    var id: String
    var createdAt: Date?
    var text: String
    var author: Author
    var entities: Entities
    var media: [Media]
    var query: String?
    /// Absent in manifests from before other networks, which were all X.
    var network: String?
    /// The result file the post came from (the path of one of the run's `sources`):
    /// a run's IIIF documents page its posts by file.
    var source: String?

    struct Author: Decodable, Sendable, Equatable {
        var screenName: String
        var name: String
        var avatar: Ref?
        enum CodingKeys: String, CodingKey {
            case name, avatar
            case screenName = "screen_name"
        }
    }

    struct Ref: Decodable, Sendable, Equatable {
        var url: String
        var sha256: String?
    }

    struct Entities: Decodable, Sendable, Equatable {
        var hashtags: [Tag]
        var cashtags: [Tag]
    }

    struct Tag: Decodable, Sendable, Equatable { var tag: String }

    struct Media: Decodable, Sendable, Equatable {
        var id: String
        var type: String
        var url: String?
        var sha256: String?
        var contentType: String?
        var width: Int?
        var height: Int?
        var video: Ref?
        var pdq: String?
        var pdqQuality: Int?
        var pdqDihedral: [String]?
        enum CodingKeys: String, CodingKey {
            case id, type, url, sha256, width, height, video, pdq
            case contentType = "content_type"
            case pdqQuality = "pdq_quality"
            case pdqDihedral = "pdq_dihedral"
        }

        /// The PDQ signature the manifest gives, when it is whole and well formed.
        var signature: PDQSignature? {
            guard let pdq, let quality = pdqQuality, let dihedral = pdqDihedral, dihedral.count == 7 else { return nil }
            let hashes = ([pdq] + dihedral).compactMap { PDQHash(hex: $0) }
            guard hashes.count == 8, (0...100).contains(quality) else { return nil }
            return PDQSignature(quality: quality, dihedral: hashes)
        }

        var servable: Bool {
            PresentationBuilder.servable(sha256: sha256, width: width, height: height, contentType: contentType)
        }
    }

    enum CodingKeys: String, CodingKey {
        case id, text, author, entities, media, query, network, source
        case createdAt = "created_at"
    }

    init(id: String, createdAt: Date?, text: String, author: Author, entities: Entities, media: [Media], query: String?,
         network: String?, source: String? = nil) {
        self.id = id
        self.createdAt = createdAt
        self.text = text
        self.author = author
        self.entities = entities
        self.media = media
        self.query = query
        self.network = network
        self.source = source
    }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        id = try c.decode(String.self, forKey: .id)
        text = try c.decode(String.self, forKey: .text)
        author = try c.decode(Author.self, forKey: .author)
        entities = try c.decode(Entities.self, forKey: .entities)
        media = try c.decode([Media].self, forKey: .media)
        query = try c.decodeIfPresent(String.self, forKey: .query)
        network = try c.decodeIfPresent(String.self, forKey: .network)
        source = try c.decodeIfPresent(String.self, forKey: .source)
        // As a string: the common form is parsed by hand (Foundation's ISO 8601 parsing
        // costs more than the rest of the post); anything else as the manifest's
        // decoder reads it.
        if let text = try c.decodeIfPresent(String.self, forKey: .createdAt) {
            guard let date = Self.date(text) ?? (try? Date.ISO8601FormatStyle().parse(text)) else {
                throw DecodingError.dataCorruptedError(forKey: .createdAt, in: c, debugDescription: "not an ISO 8601 date: \(text)")
            }
            createdAt = date
        }
    }

    /// `YYYY-MM-DDTHH:MM:SSZ`, as manifests write dates; nil for any other form.
    static func date(_ text: String) -> Date? {
        var text = text
        return text.withUTF8 { u -> Date? in
            guard u.count == 20, u[4] == 0x2D, u[7] == 0x2D, u[10] == 0x54, u[13] == 0x3A, u[16] == 0x3A, u[19] == 0x5A else {
                return nil
            }
            func number(_ range: Range<Int>) -> Int32? {
                var value: Int32 = 0
                for i in range {
                    guard (48...57).contains(u[i]) else { return nil }
                    value = value * 10 + Int32(u[i] - 48)
                }
                return value
            }
            guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
                  let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19),
                  (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61
            else { return nil }
            var t = tm()
            t.tm_year = year - 1900
            t.tm_mon = month - 1
            t.tm_mday = day
            t.tm_hour = hour
            t.tm_min = minute
            t.tm_sec = second
            return Date(timeIntervalSince1970: TimeInterval(timegm(&t)))
        }
    }
}
