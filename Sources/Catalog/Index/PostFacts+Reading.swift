import Foundation

extension PostFacts {
    /// The facts of the post whose JSON is `bytes`: read by hand (``StrictJSONReader``)
    /// when the JSON is of the plain kind every manifest writer makes, else by
    /// Foundation's decoder, which also says what is wrong with a post that is not one.
    /// `Codable` decoding was most of a reindex's time, about 100 µs a post.
    static func read(_ bytes: UnsafeRawBufferPointer) throws -> PostFacts {
        try StrictJSONReader.decode(PostFacts.self, from: bytes) { $0.postFacts(collecting: false)?.facts }
    }

    /// The facts and, from the same reading, what `sync` records of the post (its
    /// ``FetchedObjects``): a bucket's runs are read once for both, not once by the
    /// catalog and again for the local index. A post either hand reader would leave
    /// to Foundation is read by each as it would read it alone; `objects` is nil when
    /// they do not read.
    static func readWithObjects(_ bytes: UnsafeRawBufferPointer)
        -> (facts: Result<PostFacts, ManifestFile.Problem>, objects: FetchedObjects?)
    {
        if let both = StrictJSONReader.whole(bytes, { $0.postFacts(collecting: true) }) { return (.success(both.facts), both.objects) }
        let facts = Result { try JSONDecoder().decode(PostFacts.self, from: Data(bytes)) }.mapError(ManifestFile.problem)
        return (facts, try? FetchedObjects.read(bytes))
    }
}

extension StrictJSONReader {
    // MARK: - The post's shapes

    /// The post's facts; with `collecting`, also its fetched objects (their sizes and
    /// thumbnails, which the facts leave out), made from the same reading.
    mutating func postFacts(collecting: Bool) -> (facts: PostFacts, objects: FetchedObjects?)? {
        var id: String?, createdAt: Date??, text: String?, author: (PostFacts.Author, FetchedObjects.Object?)?
        var entities: PostFacts.Entities?, media: [(PostFacts.Media, FetchedObjects.Object?)]?, query: String??, network: String??
        var source: String??
        let ok = object { r, key in
            switch key {
            case "id": return r.once(&id, r.string())
            case "created_at":
                guard let value = r.optional({ $0.string() }) else { return false }
                guard let text = value else { return r.once(&createdAt, .some(nil)) }
                guard let date = PostFacts.date(text) else { return false }
                return r.once(&createdAt, .some(date))
            case "text": return r.once(&text, r.string())
            case "author": return r.once(&author, r.author(collecting: collecting))
            case "entities": return r.once(&entities, r.entities())
            case "media": return r.once(&media, r.array { $0.media(collecting: collecting) })
            case "query": return r.once(&query, r.optional { $0.string() })
            case "network": return r.once(&network, r.optional { $0.string() })
            case "source": return r.once(&source, r.optional { $0.string() })
            default: return r.skip()
            }
        }
        guard ok, let id, let text, let author, let entities, let media else { return nil }
        let facts = PostFacts(id: id, createdAt: createdAt ?? nil, text: text, author: author.0, entities: entities,
                              media: media.map(\.0), query: query ?? nil, network: network ?? nil,
                              source: source ?? nil)
        guard collecting else { return (facts, nil) }
        var objects: [FetchedObjects.Object] = []
        objects.reserveCapacity(media.count)
        for (_, object) in media {
            guard let object else { return nil }
            objects.append(object)
        }
        return (facts, FetchedObjects(author: FetchedObjects.Author(avatar: author.1), media: objects))
    }

    /// The author; with `collecting`, also their avatar as a fetched object.
    private mutating func author(collecting: Bool) -> (PostFacts.Author, FetchedObjects.Object?)? {
        var screenName: String?, name: String?, avatar: (PostFacts.Ref, FetchedObjects.Object?)??
        let ok = object { r, key in
            switch key {
            case "screen_name": return r.once(&screenName, r.string())
            case "name": return r.once(&name, r.string())
            case "avatar": return r.once(&avatar, r.optional { $0.avatar(collecting: collecting) })
            default: return r.skip()
            }
        }
        guard ok, let screenName, let name else { return nil }
        return (PostFacts.Author(screenName: screenName, name: name, avatar: (avatar ?? nil)?.0), (avatar ?? nil)?.1)
    }

    private mutating func avatar(collecting: Bool) -> (PostFacts.Ref, FetchedObjects.Object?)? {
        objectRef(collecting: collecting, image: true)
    }

    private mutating func video(collecting: Bool) -> (PostFacts.Ref, FetchedObjects.Video?)? {
        objectRef(collecting: collecting, image: false).map { ref, object in
            (ref, object.map { FetchedObjects.Video(url: ref.url, sha256: $0.sha256, bytes: $0.bytes, contentType: $0.contentType,
                                                    thumbnails: $0.thumbnails) })
        }
    }

    /// An avatar (an `image`, with its size) or a medium's video file: the facts'
    /// reference to it, and with `collecting` what sync's reader reads of it.
    private mutating func objectRef(collecting: Bool, image: Bool) -> (PostFacts.Ref, FetchedObjects.Object?)? {
        var url: String?, sha256: String??
        var bytes: Int??, contentType: String??, width: Int??, height: Int??, thumbnails: [FetchedObjects.Thumbnail]??
        let ok = object { r, key in
            switch key {
            case "url": return r.once(&url, r.string())
            case "sha256": return r.once(&sha256, r.optional { $0.string() })
            case "bytes" where collecting: return r.once(&bytes, r.optional { $0.int() })
            case "content_type" where collecting: return r.once(&contentType, r.optional { $0.string() })
            case "width" where collecting && image: return r.once(&width, r.optional { $0.int() })
            case "height" where collecting && image: return r.once(&height, r.optional { $0.int() })
            case "thumbnails" where collecting: return r.once(&thumbnails, r.optional { $0.array { $0.thumbnail() } })
            // An avatar's own video would be read by sync's reader: Foundation's case.
            case "video" where collecting && image: return false
            default: return r.skip()
            }
        }
        guard ok, let url else { return nil }
        let ref = PostFacts.Ref(url: url, sha256: sha256 ?? nil)
        guard collecting else { return (ref, nil) }
        return (ref, FetchedObjects.Object(url: url, sha256: sha256 ?? nil, bytes: bytes ?? nil, contentType: contentType ?? nil,
                                           width: width ?? nil, height: height ?? nil, thumbnails: thumbnails ?? nil, video: nil))
    }

    private mutating func entities() -> PostFacts.Entities? {
        var hashtags: [PostFacts.Tag]?, cashtags: [PostFacts.Tag]?
        let ok = object { r, key in
            switch key {
            case "hashtags": return r.once(&hashtags, r.array { $0.single("tag").map { PostFacts.Tag(tag: $0) } })
            case "cashtags": return r.once(&cashtags, r.array { $0.single("tag").map { PostFacts.Tag(tag: $0) } })
            default: return r.skip()
            }
        }
        guard ok, let hashtags, let cashtags else { return nil }
        return PostFacts.Entities(hashtags: hashtags, cashtags: cashtags)
    }

    /// An object of which only the string member `name` is read.
    private mutating func single(_ name: String) -> String? {
        var value: String?
        let ok = object { r, key in key == name ? r.once(&value, r.string()) : r.skip() }
        return ok ? value : nil
    }

    /// A medium; with `collecting`, also as a fetched object.
    private mutating func media(collecting: Bool) -> (PostFacts.Media, FetchedObjects.Object?)? {
        var id: String?, type: String?, url: String??, sha256: String??, contentType: String??
        var width: Int??, height: Int??, video: (PostFacts.Ref, FetchedObjects.Video?)??, pdq: String??, pdqQuality: Int??
        var pdqDihedral: [String]??, bytes: Int??, thumbnails: [FetchedObjects.Thumbnail]??
        let ok = object { r, key in
            switch key {
            case "id": return r.once(&id, r.string())
            case "type": return r.once(&type, r.string())
            case "url": return r.once(&url, r.optional { $0.string() })
            case "sha256": return r.once(&sha256, r.optional { $0.string() })
            case "content_type": return r.once(&contentType, r.optional { $0.string() })
            case "width": return r.once(&width, r.optional { $0.int() })
            case "height": return r.once(&height, r.optional { $0.int() })
            case "video": return r.once(&video, r.optional { $0.video(collecting: collecting) })
            case "pdq": return r.once(&pdq, r.optional { $0.string() })
            case "pdq_quality": return r.once(&pdqQuality, r.optional { $0.int() })
            case "pdq_dihedral": return r.once(&pdqDihedral, r.optional { $0.array { $0.string() } })
            case "bytes" where collecting: return r.once(&bytes, r.optional { $0.int() })
            case "thumbnails" where collecting: return r.once(&thumbnails, r.optional { $0.array { $0.thumbnail() } })
            default: return r.skip()
            }
        }
        guard ok, let id, let type else { return nil }
        let media = PostFacts.Media(id: id, type: type, url: url ?? nil, sha256: sha256 ?? nil, contentType: contentType ?? nil,
                                    width: width ?? nil, height: height ?? nil, video: (video ?? nil)?.0, pdq: pdq ?? nil,
                                    pdqQuality: pdqQuality ?? nil, pdqDihedral: pdqDihedral ?? nil)
        guard collecting else { return (media, nil) }
        let object = FetchedObjects.Object(url: url ?? nil, sha256: sha256 ?? nil, bytes: bytes ?? nil, contentType: contentType ?? nil,
                                           width: width ?? nil, height: height ?? nil, thumbnails: thumbnails ?? nil,
                                           video: (video ?? nil)?.1)
        return (media, object)
    }
}

extension ManifestFile {
    /// For `fuzz-manifest`: where a hand reader of the post at `range` (the catalog's
    /// ``PostFacts``, sync's ``FetchedObjects``) disagrees with Foundation's decoder:
    /// it read a post Foundation refuses, or read it differently. Nil when both agree
    /// or leave the post to Foundation.
    package func handReaderDisagreement(at range: Range<Int>) -> String? {
        let json = slice(range)
        let both = json.withUnsafeBytes { StrictJSONReader.whole($0) { $0.postFacts(collecting: true) } }
        let facts = json.withUnsafeBytes { StrictJSONReader.whole($0) { $0.postFacts(collecting: false) } }
        if let facts, facts.facts != (try? JSONDecoder().decode(PostFacts.self, from: json)) {
            return "the hand reader of a post's facts disagrees with Foundation at \(range)"
        }
        if let both, both.facts != facts?.facts {
            return "the hand reader of a post's facts reads them differently when it collects the fetched objects at \(range)"
        }
        if let objects = both?.objects, objects != (try? JSONDecoder().decode(FetchedObjects.self, from: json)) {
            return "the facts' fetched objects disagree with Foundation at \(range)"
        }
        let objects = json.withUnsafeBytes { StrictJSONReader.whole($0) { $0.fetchedObjects() } }
        if let objects, objects != (try? JSONDecoder().decode(FetchedObjects.self, from: json)) {
            return "the hand reader of a post's fetched objects disagrees with Foundation at \(range)"
        }
        return nil
    }
}
