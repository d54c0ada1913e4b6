import Foundation

/// The parts of IIIF Presentation API 3.0 that a search of tweets needs: a
/// Collection of Manifests, one Canvas per photo painted by an Image API 3 service.
///
/// Typed rather than dictionaries, so a misspelt property is a compile error and
/// the encoder, not string building, handles escaping of tweet text.
public enum PresentationDocument: Encodable, Sendable, Equatable {
    case collection(PresentationCollection)
    case manifest(PresentationManifest)

    public func encode(to encoder: any Encoder) throws {
        switch self {
        case let .collection(document): try document.encode(to: encoder)
        case let .manifest(document): try document.encode(to: encoder)
        }
    }

    public var id: String {
        switch self {
        case let .collection(document): document.id
        case let .manifest(document): document.id
        }
    }

    /// The media type the specification asks servers to send.
    public static let contentType = "application/ld+json;profile=\"http://iiif.io/api/presentation/3/context.json\""
    public static let context = "http://iiif.io/api/presentation/3/context.json"

    /// Pretty-printed, slashes unescaped: documents people read and diff. Keys
    /// sorted (`@context` first), so the same document is the same bytes, and its
    /// ETag stays put: Foundation's encoder does not keep declaration order.
    public func encoded() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(self)
    }
}

/// A language map: `none` for text whose language we do not know (tweet text),
/// `en` for the labels TweetCache writes itself.
public typealias LanguageMap = [String: [String]]

extension Dictionary where Key == String, Value == [String] {
    static func none(_ text: String) -> LanguageMap { ["none": [text]] }
    static func en(_ text: String) -> LanguageMap { ["en": [text]] }
}

public struct PresentationCollection: Encodable, Sendable, Equatable {
    public var context = PresentationDocument.context
    public var id: String
    public var type = "Collection"
    public var label: LanguageMap
    public var summary: LanguageMap?
    public var items: [PresentationReference]

    enum CodingKeys: String, CodingKey {
        case context = "@context"
        case id, type, label, summary, items
    }
}

/// A Collection's entry: enough for a client to list it before fetching it.
public struct PresentationReference: Encodable, Sendable, Equatable {
    public var id: String
    public var type: String
    public var label: LanguageMap
    public var thumbnail: [ImageResource]?
}

public struct PresentationManifest: Encodable, Sendable, Equatable {
    public var context = PresentationDocument.context
    public var id: String
    public var type = "Manifest"
    public var label: LanguageMap
    public var summary: LanguageMap?
    public var metadata: [MetadataEntry]?
    public var thumbnail: [ImageResource]?
    public var homepage: [Homepage]?
    /// Only when the licence is known. Tweets, toots and posts carry none, so
    /// TweetCache never writes one rather than guessing.
    public var rights: String?
    /// The Collection of pages this Manifest is one of, when there are several.
    public var partOf: [PartOf]?
    public var items: [Canvas]

    enum CodingKeys: String, CodingKey {
        case context = "@context"
        case id, type, label, summary, metadata, thumbnail, homepage, rights, partOf, items
    }
}

/// A resource this one belongs to (`partOf`).
public struct PartOf: Encodable, Sendable, Equatable {
    public var id: String
    public var type = "Collection"
}

public struct MetadataEntry: Encodable, Sendable, Equatable {
    public var label: LanguageMap
    public var value: LanguageMap
}

/// A web page about the resource: the post on its network.
public struct Homepage: Encodable, Sendable, Equatable {
    public var id: String
    public var type = "Text"
    public var label: LanguageMap
    public var format = "text/html"
}

/// An image file: a thumbnail, or the painting body (with its Image API service).
public struct ImageResource: Encodable, Sendable, Equatable {
    public var id: String
    public var type = "Image"
    public var format: String
    public var width: Int?
    public var height: Int?
    public var service: [ImageService]?
}

public struct ImageService: Encodable, Sendable, Equatable {
    public var id: String
    public var type = "ImageService3"
    public var profile = "level2"
}

/// One photo of one post, at the photo's own pixel size.
public struct Canvas: Encodable, Sendable, Equatable {
    public var id: String
    public var type = "Canvas"
    public var label: LanguageMap
    public var width: Int
    public var height: Int
    public var metadata: [MetadataEntry]
    public var thumbnail: [ImageResource]?
    public var homepage: [Homepage]?
    public var items: [AnnotationPage]
}

public struct AnnotationPage: Encodable, Sendable, Equatable {
    public var id: String
    public var type = "AnnotationPage"
    public var items: [PaintingAnnotation]
}

public struct PaintingAnnotation: Encodable, Sendable, Equatable {
    public var id: String
    public var type = "Annotation"
    public var motivation = "painting"
    public var body: ImageResource
    public var target: String
}
