import BlobStore
import Foundation
import Imaging
import MediaFetch
import MediaTypes
import NIOCore
import ObjectStore
import CacheCore

/// Thumbnails, originals and manifests.
extension TileResponder {
    /// `/thumb/<hash>/<size>`: the pipeline's thumbnail when it made that size,
    /// the original when the size is not smaller than the image and the original is
    /// upright sRGB (a thumbnail as large as the image is the image again), else one
    /// made now (within
    /// ``TileServerConfiguration/thumbnailSizes``), kept on disk only at the cache's
    /// own sizes (``TileServerConfiguration/storedThumbnailSizes``).
    func thumbnail(_ hash: BlobHash, size: Int) async throws -> Reply {
        let etag = "\"\(hash.hex)-thumb-\(size)\""
        for png in [false, true] {
            let type = png ? "image/png" : "image/jpeg"
            if let hit = await cached(CacheLayout.thumbnail(hash, size: size, png: png), contentType: type, etag: etag) {
                return hit
            }
        }
        guard configuration.thumbnailSizes.contains(size) else {
            throw HTTPFailure.badRequest(
                "thumbnail size must be \(configuration.thumbnailSizes.lowerBound)-\(configuration.thumbnailSizes.upperBound)")
        }
        let facts = try await sources.facts(hash)
        // Same choice as the pipeline: PNG keeps transparency, everything else is JPEG.
        let png = facts.info.hasAlpha
        // A small original is its own thumbnail only when it already is what a thumbnail
        // would be: an upright sRGB (or untagged) JPEG or PNG. A turned, profiled or CMYK
        // one, and other formats, are converted at full size, as `thumb` does, so every
        // route of the server sends upright sRGB.
        if size >= max(facts.width, facts.height), facts.info.format == .jpeg || facts.info.format == .png {
            let bytes = try await sources.bytes(hash)
            if ImageDecoder.isUprightSRGB(bytes) {
                return Reply(bytes: bytes, contentType: facts.info.format.mimeType, etag: etag, cacheControl: Reply.immutable)
            }
        }
        let relative = CacheLayout.thumbnail(hash, size: size, png: png)
        let options = ThumbnailOptions(quality: configuration.quality, maxPixels: configuration.maxPixels, maxThreads: 1)
        // Only the sizes the cache makes are kept on disk; any other size a visitor asks
        // for lives in the bounded memory cache, so no one can fill the disk with sizes.
        let persist = configuration.storedThumbnailSizes.contains(size)
        return try await made(relative, contentType: png ? "image/png" : "image/jpeg", etag: etag, persist: persist) {
            [pool, sources] in
            let data = try await sources.bytes(hash)
            return try await pool.run {
                do throws(ImagingError) { return try Thumbnailer.thumbnail(data, longEdge: size, options: options).encoded } catch {
                    throw sources.failed(hash, error)
                }
            }
        }
    }

    /// `/blob/<hash>`: the original bytes, typed by what they are, not by what a
    /// server once claimed.
    func blob(_ hash: BlobHash) async throws -> Reply {
        blobReply(try await sources.bytes(hash), hash)
    }

    /// `/blob/<hash>` over a bucket: a large cold original is answered as its bytes
    /// arrive, its first within `--timeout` and the rest as long as they keep
    /// coming; anything else as ``blob(_:)`` answers it.
    func streamedBlob(_ hash: BlobHash) async throws -> Reply {
        let opened: CacheFiles.Opened
        do {
            opened = try await files.openStreaming(CacheLayout.blob(hash), hash: hash, streamFrom: configuration.streamedOriginalBytes,
                                                   stall: configuration.requestTimeout)
        } catch {
            throw SourceImages.failure(error, hash)
        }
        switch opened {
        case let .whole(bytes):
            return blobReply(bytes, hash)
        case let .streaming(stream):
            // Typed by its first piece, as a whole original is by its first bytes; bytes
            // that prove not to be the original are counted and logged as any are.
            let relative = CacheLayout.blob(hash)
            let (first, rest) = await Self.splitFirst(stream.chunks) { [files] error in
                if case StoreError.corrupt = error { files.integrity?.corrupt(relative, source: .bucket) }
            }
            var reply = Reply(bytes: [], contentType: Self.sniffType(first), etag: "\"\(hash.hex)\"", cacheControl: Reply.immutable)
            reply.acceptsRanges = true
            reply.stream = ObjectStream(size: stream.size, chunks: rest)
            return reply
        }
    }

    /// The first piece of `chunks` (empty when it fails or ends at once) and a stream
    /// of every piece, that one included, ending as `chunks` ends; `onError` sees the
    /// error it ends with.
    static func splitFirst(_ chunks: AsyncThrowingStream<[UInt8], any Error>, onError: @escaping @Sendable (any Error) -> Void)
        async -> (first: [UInt8], all: AsyncThrowingStream<[UInt8], any Error>)
    {
        nonisolated(unsafe) var iterator = chunks.makeAsyncIterator()
        let first: Result<[UInt8]?, any Error>
        do { first = .success(try await iterator.next()) } catch { first = .failure(error) }
        let (all, output) = AsyncThrowingStream<[UInt8], any Error>.makeStream()
        let relay = Task {
            do {
                guard let piece = try first.get() else { return output.finish() }
                output.yield(piece)
                while let next = try await iterator.next() { output.yield(next) }
                output.finish()
            } catch {
                onError(error)
                output.finish(throwing: error)
            }
        }
        output.onTermination = { _ in relay.cancel() }
        return ((try? first.get()).flatMap { $0 } ?? [], all)
    }

    func blobReply(_ bytes: [UInt8], _ hash: BlobHash) -> Reply {
        var reply = Reply(bytes: bytes, contentType: Self.sniffType(bytes), etag: "\"\(hash.hex)\"", cacheControl: Reply.immutable)
        reply.acceptsRanges = true
        return reply
    }

    /// What the bytes are (the same magic-byte check the fetcher applies); never
    /// `text/html`, so a stored page cannot run as this origin's script.
    static func sniffType(_ bytes: [UInt8]) -> String {
        let kind = ContentKind.sniff(bytes)
        return kind == .html ? ContentKind.unknown.mimeType : kind.mimeType
    }

    /// `/manifests/`: every run's manifest, newest first.
    func manifestList() throws -> Reply {
        let folder = files.layout.manifestsURL
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [])
            .filter(CacheKey.isManifestName)
            .sorted(by: >)
        struct Entry: Encodable {
            var name: String
            var url: String
            var bytes: Int?
        }
        let entries = names.map { name in
            let size = (try? FileManager.default.attributesOfItem(atPath: folder.appendingPathComponent(name).path))?[.size] as? Int
            return Entry(name: name, url: "/manifests/\(name)", bytes: size)
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return Reply(bytes: try encoder.encode(["manifests": entries]), contentType: "application/json",
                     etag: nil, cacheControl: Reply.revalidate)
    }

    /// `/manifests/<name>.json.zst` (or `.json`). A manifest is written once under a new name, so
    /// its name and size make a sound validator.
    func manifest(_ name: String) throws -> Reply {
        let relative = CacheLayout.manifest(name)
        do {
            let bytes = try files.wholeManifest(relative)
            // Compressed as it is on disk, with what it names in earlier runs copied
            // in: `zstd -dc` (or a client that decodes it) reads it.
            let type = name.hasSuffix(".zst") ? "application/zstd" : "application/json"
            return Reply(bytes: bytes, contentType: type, etag: "\"\(name)-\(bytes.count)\"",
                         cacheControl: Reply.revalidate)
        } catch .missing {
            throw HTTPFailure.notFound("no manifest \(name)")
        }
    }
}
