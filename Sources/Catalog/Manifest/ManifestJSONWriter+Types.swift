import Foundation
internal import Glibc

extension ManifestJSONWriter {
    // MARK: - The manifest's types, keys in sorted (byte) order

    /// The top level is the one object not in sorted order: what is known when a run
    /// starts comes first, the posts next, and what is known only at its end
    /// (failures, sources, summary) last, so a run writes its manifest as it goes
    /// (``ManifestStreamWriter``). Readers find members by name, so manifests written
    /// in the old, sorted order read the same.
    mutating func write(_ m: Manifest) {
        beginObject()
        writeHead(version: m.version, generatedAt: m.generatedAt, tool: m.tool, cacheRoot: m.cacheRoot)
        key("tweets"); array(m.tweets) { $0.write($1) }
        key("included_tweets"); array(m.includedTweets) { $0.write($1) }
        writeTail(failures: m.failures, sources: m.sources, summary: m.summary)
        endObject()
    }

    mutating func writeHead(version: Int, generatedAt: Date, tool: String, cacheRoot: String) {
        key("version"); int(version)
        key("generated_at"); date(generatedAt)
        key("tool"); string(tool)
        key("cache_root"); string(cacheRoot)
    }

    mutating func writeTail(failures: [Manifest.Failure], sources: [Manifest.Source], summary: RunSummary) {
        key("failures"); array(failures) { $0.write($1) }
        key("sources"); array(sources) { $0.write($1) }
        key("summary"); write(summary)
    }

    mutating func write(_ s: Manifest.Source) {
        beginObject()
        key("formats"); strings(s.formats)
        key("path"); string(s.path)
        key("problems"); array(s.problems) { $0.write($1) }
        key("query", s.query)
        if let search = s.search { key("search"); write(search) }
        key("tweets"); int(s.tweets)
        endObject()
    }

    mutating func write(_ r: Manifest.SearchRecord) {
        beginObject()
        key("api"); string(r.api)
        key("base"); string(r.base)
        if let at = r.newestAt { key("newest_at"); date(at) }
        key("newest_id", r.newestID)
        key("query"); string(r.query)
        key("reached"); bool(r.reached)
        if let at = r.sinceAt { key("since_at"); date(at) }
        key("since_id", r.sinceID)
        endObject()
    }

    mutating func write(_ p: Manifest.Problem) {
        beginObject()
        key("location"); string(p.location)
        key("message"); string(p.message)
        key("source"); string(p.source)
        endObject()
    }

    mutating func write(_ f: Manifest.Failure) {
        beginObject()
        key("error"); write(f.error)
        key("role"); string(f.role)
        key("url"); string(f.url)
        endObject()
    }

    mutating func write(_ e: MediaError) {
        beginObject()
        key("code"); string(e.code)
        key("http_status", e.httpStatus)
        key("message"); string(e.message)
        endObject()
    }

    mutating func write(_ s: RunSummary) {
        beginObject()
        key("bytes_downloaded"); int(s.bytesDownloaded)
        key("cached"); int(s.cached)
        key("deduplicated"); int(s.deduplicated)
        key("derive_failed"); int(s.deriveFailed)
        key("derived"); int(s.derived)
        if let seconds = s.downloadSeconds { key("download_seconds"); double(seconds) }
        key("downloaded"); int(s.downloaded)
        key("failed"); int(s.failed)
        key("failures_by_reason")
        beginObject()
        for (reason, count) in s.failuresByReason.sorted(by: { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }) {
            nextElement()
            string(reason)
            colon()
            int(count)
        }
        endObject()
        key("forgotten", s.forgotten)
        key("included_tweets"); int(s.includedTweets)
        key("manifest_path", s.manifestPath)
        key("problems"); int(s.problems)
        key("seconds"); double(s.seconds)
        if let store = s.store { key("store"); write(store) }
        key("tweets"); int(s.tweets)
        key("urls"); int(s.urls)
        endObject()
    }

    mutating func write(_ s: StoreSummary) {
        beginObject()
        key("already_stored"); int(s.alreadyStored)
        key("bytes_from_store", s.bytesFromStore)
        key("bytes_uploaded"); int(s.bytesUploaded)
        key("copied_from_store", s.copiedFromStore)
        key("failed"); int(s.failed)
        key("location"); string(s.location)
        key("manifest_key", s.manifestKey)
        key("replaced", s.replaced)
        key("uploaded"); int(s.uploaded)
        endObject()
    }

    mutating func write(_ t: ManifestTweet) {
        beginObject()
        key("author"); write(t.author)
        if let createdAt = t.createdAt { key("created_at"); date(createdAt) }
        key("entities"); write(t.entities)
        key("id"); string(t.id)
        key("lang", t.lang)
        key("media"); array(t.media) { $0.write($1) }
        key("network", t.network)
        key("query", t.query)
        key("referenced_tweets"); array(t.referencedTweets) { $0.write($1) }
        if let sensitive = t.sensitive { key("sensitive"); bool(sensitive) }
        key("source"); string(t.source)
        key("source_format"); string(t.sourceFormat)
        key("spoiler_text", t.spoilerText)
        key("text"); string(t.text)
        key("url", t.url)
        endObject()
    }

    mutating func write(_ a: ManifestTweet.Author) {
        beginObject()
        if let avatar = a.avatar { key("avatar"); write(avatar) }
        key("id"); string(a.id)
        key("name"); string(a.name)
        key("screen_name"); string(a.screenName)
        endObject()
    }

    mutating func write(_ m: ManifestTweet.Media) {
        beginObject()
        key("alt_text", m.altText)
        key("bytes", m.bytes)
        key("content_type", m.contentType)
        key("decode_warning", m.decodeWarning)
        key("derive_error", m.deriveError)
        if let error = m.error { key("error"); write(error) }
        key("height", m.height)
        key("id"); string(m.id)
        key("pdq", m.pdq)
        if let dihedral = m.pdqDihedral { key("pdq_dihedral"); strings(dihedral) }
        key("pdq_quality", m.pdqQuality)
        key("sha256", m.sha256)
        if let thumbnails = m.thumbnails { key("thumbnails"); array(thumbnails) { $0.write($1) } }
        if let tiles = m.tiles { key("tiles"); write(tiles) }
        key("type"); string(m.type)
        key("url", m.url)
        if let video = m.video { key("video"); write(video) }
        key("width", m.width)
        endObject()
    }

    mutating func write(_ r: MediaRef) {
        beginObject()
        key("bytes", r.bytes)
        key("content_type", r.contentType)
        key("decode_warning", r.decodeWarning)
        key("derive_error", r.deriveError)
        if let error = r.error { key("error"); write(error) }
        key("height", r.height)
        key("pdq", r.pdq)
        if let dihedral = r.pdqDihedral { key("pdq_dihedral"); strings(dihedral) }
        key("pdq_quality", r.pdqQuality)
        key("sha256", r.sha256)
        if let thumbnails = r.thumbnails { key("thumbnails"); array(thumbnails) { $0.write($1) } }
        if let tiles = r.tiles { key("tiles"); write(tiles) }
        key("url"); string(r.url)
        key("width", r.width)
        endObject()
    }

    mutating func write(_ t: ThumbnailRef) {
        beginObject()
        key("height"); int(t.height)
        key("path"); string(t.path)
        key("sha256", t.sha256)
        key("size"); int(t.size)
        key("width"); int(t.width)
        endObject()
    }

    mutating func write(_ t: TileRefs) {
        beginObject()
        key("bytes", t.bytes)
        key("dzi", t.dzi)
        key("iiif", t.iiif)
        key("pack", t.pack)
        key("tile_size"); int(t.tileSize)
        endObject()
    }

    mutating func write(_ e: ManifestTweet.Entities) {
        beginObject()
        key("cashtags"); array(e.cashtags) { $0.write($1) }
        key("hashtags"); array(e.hashtags) { $0.write($1) }
        key("media"); array(e.media) { w, m in
            w.beginObject()
            w.key("end"); w.int(m.end)
            w.key("media_id"); w.string(m.mediaID)
            w.key("start"); w.int(m.start)
            w.endObject()
        }
        key("mentions"); array(e.mentions) { w, m in
            w.beginObject()
            w.key("end"); w.int(m.end)
            w.key("id", m.id)
            w.key("start"); w.int(m.start)
            w.key("username"); w.string(m.username)
            w.endObject()
        }
        key("urls"); array(e.urls) { w, l in
            w.beginObject()
            w.key("display_url", l.displayURL)
            w.key("end"); w.int(l.end)
            w.key("expanded_url", l.expandedURL)
            w.key("start"); w.int(l.start)
            w.key("url"); w.string(l.url)
            w.endObject()
        }
        endObject()
    }

    mutating func write(_ t: ManifestTweet.Entities.Tag) {
        beginObject()
        key("end"); int(t.end)
        key("start"); int(t.start)
        key("tag"); string(t.tag)
        endObject()
    }

    mutating func write(_ r: ManifestTweet.Reference) {
        beginObject()
        key("id"); string(r.id)
        key("type"); string(r.type)
        endObject()
    }
}
