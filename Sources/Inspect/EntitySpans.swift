import Catalog
import CacheCore

/// A tweet's text cut into plain runs and entity runs, from the manifest's ranges.
///
/// Ranges count Unicode scalars (code points), as the API does: not UTF-16 units
/// (an emoji outside the BMP would shift every later entity by one) and not
/// grapheme clusters (🏳️‍🌈 is one character but four scalars). Ranges are untrusted:
/// out-of-bounds, empty, reversed or overlapping ones are dropped, never trapped on.
public struct EntitySpans: Sendable, Equatable {
    public enum Kind: String, Sendable, Codable {
        case hashtag, cashtag, mention, url, media
    }

    public struct Segment: Sendable, Equatable {
        /// What to show: the text itself, or a URL's display form.
        public var text: String
        /// nil for plain text.
        public var kind: Kind?
        /// The range in the original text, in scalars.
        public var start: Int
        public var end: Int
    }

    public var segments: [Segment]

    public init(text: String, entities: ManifestTweet.Entities, dropMedia: Bool = true) {
        var ranges: [(start: Int, end: Int, kind: Kind, display: String?)] = []
        ranges += entities.hashtags.map { ($0.start, $0.end, .hashtag, nil) }
        ranges += entities.cashtags.map { ($0.start, $0.end, .cashtag, nil) }
        ranges += entities.mentions.map { ($0.start, $0.end, .mention, nil) }
        ranges += entities.urls.map { ($0.start, $0.end, .url, $0.displayURL ?? $0.expandedURL) }
        ranges += entities.media.map { ($0.start, $0.end, .media, nil) }
        let scalars = Array(text.unicodeScalars)
        let valid = ranges
            .filter { $0.start >= 0 && $0.start < $0.end && $0.end <= scalars.count }
            .sorted { ($0.start, -$0.end) < ($1.start, -$1.end) }  // at one start, the longest wins

        func string(_ from: Int, _ to: Int) -> String {
            // Text from strangers must not drive the terminal: control characters
            // (escape, carriage return) become spaces, newlines stay.
            var s = String.UnicodeScalarView()
            for scalar in scalars[from..<to] {
                let control = scalar.properties.generalCategory == .control && scalar != "\n"
                s.append(control ? " " : scalar)
            }
            return String(s)
        }
        var result: [Segment] = []
        var position = 0
        for range in valid where range.start >= position {
            if range.start > position {
                result.append(Segment(text: string(position, range.start), kind: nil, start: position, end: range.start))
            }
            if range.kind == .media && dropMedia {
                // The photos are shown as camera marks; their t.co link says nothing.
            } else {
                // A display form comes from the API (a Mastodon link's text, a Bluesky slice):
                // it gets the same control-character filter as the text.
                let shown = range.display.flatMap { $0.isEmpty ? nil : TweetList.oneLine($0) } ?? string(range.start, range.end)
                result.append(Segment(text: shown, kind: range.kind, start: range.start, end: range.end))
            }
            position = range.end
        }
        if position < scalars.count {
            result.append(Segment(text: string(position, scalars.count), kind: nil, start: position, end: scalars.count))
        }
        segments = result
    }

    /// The text as shown: URLs in display form, media links dropped, trailing space trimmed.
    public var plainText: String {
        var s = segments.map(\.text).joined()
        while let last = s.unicodeScalars.last, last.properties.isWhitespace { s.unicodeScalars.removeLast() }
        return s
    }

    /// The text with each entity kind in its colour (hashtags and cashtags share one).
    public func rendered(_ style: Style) -> String {
        var out = ""
        for segment in segments {
            switch segment.kind {
            case nil: out += segment.text
            case .hashtag?, .cashtag?: out += style.paint(segment.text, .hashtag)
            case .mention?: out += style.paint(segment.text, .mention)
            case .url?, .media?: out += style.paint(segment.text, .url)
            }
        }
        while let last = out.unicodeScalars.last, last.properties.isWhitespace { out.unicodeScalars.removeLast() }
        return out
    }
}
