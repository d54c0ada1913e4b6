import BlobStore
import Foundation
import Imaging
import MediaTypes

/// One image to derive from, and what already exists for it.
package struct DeriveJob: Sendable {
    package var hash: BlobHash
    package var wantsTiles: Bool
    package var existing: [DerivedRecord]
    /// The displayed size, when the index knows it (saves reading the header).
    package var knownSize: (width: Int, height: Int)? = nil
    /// The PDQ signature the index already has; nil has it computed.
    package var knownPDQ: PDQSignature? = nil
    /// What an earlier decode found wrong with the image, as the index recorded it.
    package var knownDamage: String? = nil

    package init(hash: BlobHash, wantsTiles: Bool, existing: [DerivedRecord], knownSize: (width: Int, height: Int)? = nil,
                 knownPDQ: PDQSignature? = nil, knownDamage: String? = nil) {
        self.hash = hash
        self.wantsTiles = wantsTiles
        self.existing = existing
        self.knownSize = knownSize
        self.knownPDQ = knownPDQ
        self.knownDamage = knownDamage
    }
}

/// What deriving one image produced.
package struct DeriveOutcome: Sendable {
    package var hash: BlobHash
    /// Every derived file the image has now (existing and new).
    package var records: [DerivedRecord]
    package var newRecords: [DerivedRecord]
    /// Rows this derivation replaced (a pack of another tile size), deleted once
    /// the new rows are recorded.
    package var obsolete: [DerivedRecord] = []
    package var width: Int?
    package var height: Int?
    /// The image's PDQ signature (known or computed now), nil when it could not be decoded.
    package var pdq: PDQSignature?
    /// Whether ``pdq`` was computed by this derivation (and so is recorded).
    package var pdqIsNew = false
    package var error: String?
    /// What is wrong with an image that decoded all the same (``ImageDamage``),
    /// from this decode or an earlier one; recorded in the index and the manifest.
    package var damage: String?

    package init(hash: BlobHash, records: [DerivedRecord], newRecords: [DerivedRecord]) {
        self.hash = hash
        self.records = records
        self.newRecords = newRecords
    }
}

/// Makes the thumbnails and the pyramid pack of one cached image, decoding it once.
///
/// With a pyramid wanted, the image is decoded at full size and everything is cut
/// from that one decode; with thumbnails only, the largest thumbnail is decoded
/// with shrink-on-load (libjpeg's DCT scaling) and the smaller ones are made from
/// it. No thumbnail is as large as the image, and an image that fits in a 2x2 block
/// of tiles gets no pack (``DeriveOptions/wantsPyramid(width:height:)``). Work
/// already on disk and in the index is skipped. (Caches of the layout before packs
/// are converted when first opened: ``LayoutMigration``.)
///
/// The PDQ hash is computed from the full-size decode the pyramid uses, as the
/// reference is fed; an image with nothing else to make, or thumbnails only, is
/// decoded at full size once for it (and its thumbnails cut from that decode). A
/// signature the index has is not computed again.
package struct Deriver: Sendable {
    package let store: BlobStore
    package let files: DerivedFiles
    package let options: DeriveOptions
    /// Threads one image may use: 1 when images run in parallel.
    package let threadsPerImage: Int
    /// Where pack folders wait to be flushed; nil flushes each at once.
    package var pendingDirectories: PendingDirectories? = nil

    package init(store: BlobStore, files: DerivedFiles, options: DeriveOptions, threadsPerImage: Int,
                 pendingDirectories: PendingDirectories? = nil) {
        self.store = store
        self.files = files
        self.options = options
        self.threadsPerImage = threadsPerImage
        self.pendingDirectories = pendingDirectories
    }


    package func derive(_ job: DeriveJob) -> DeriveOutcome {
        var outcome = DeriveOutcome(hash: job.hash, records: [], newRecords: [])
        let current = job.existing
        let present = current.filter { FileManager.default.fileExists(atPath: files.url($0.path).path) }
        outcome.records = present
        let sized = job.existing.first { $0.kind != DerivedKind.thumbnail && $0.width != nil && $0.height != nil }
        outcome.width = job.knownSize?.width ?? sized?.width
        outcome.height = job.knownSize?.height ?? sized?.height
        outcome.pdq = job.knownPDQ
        outcome.damage = job.knownDamage
        let wantsPDQ = options.perceptualHashes && job.knownPDQ == nil

        do {
            // The size decides what is wanted; the header alone tells it. Bytes read are
            // told apart by their magic bytes once (ContentKind's table), here or below.
            var bytes: [UInt8]? = nil
            if outcome.width == nil || outcome.height == nil {
                let read = try store.read(job.hash)
                bytes = read
                guard ImageFormat.sniff(read) != nil else {
                    outcome.error = "not an image TweetCache decodes (JPEG, PNG, GIF, WebP, AVIF, HEIF)"
                    return outcome
                }
                let info = try ImageDecoder.info(of: read)
                outcome.width = info.displayWidth
                outcome.height = info.displayHeight
            }
            let width = outcome.width ?? 0, height = outcome.height ?? 0
            let sizes = options.thumbnailSizes(width: width, height: height).sorted(by: >)
            let missingSizes = sizes.filter { size in
                !present.contains { $0.kind == DerivedKind.thumbnail && $0.size == size }
            }
            let wantsPack = job.wantsTiles && options.tiles == .eager
                && options.wantsPyramid(width: width, height: height)
                && !present.contains { $0.kind == DerivedKind.pack && $0.size == options.tileSize }
            guard !missingSizes.isEmpty || wantsPack else {
                if wantsPDQ {
                    let data = try bytes ?? store.read(job.hash)
                    guard bytes != nil || ImageFormat.sniff(data) != nil else { return outcome }
                    let decoded = try ImageDecoder.decodeReporting(data, options: DecodeOptions(maxPixels: options.maxPixels))
                    outcome.damage = decoded.damage?.description ?? outcome.damage
                    outcome.pdq = PDQHasher.signature(of: decoded.image)
                    outcome.pdqIsNew = true
                }
                return outcome
            }

            let data = try bytes ?? store.read(job.hash)
            guard bytes != nil || ImageFormat.sniff(data) != nil else {
                outcome.error = "not an image TweetCache decodes (JPEG, PNG, GIF, WebP, AVIF, HEIF)"
                return outcome
            }
            var thumbOptions = ThumbnailOptions()
            thumbOptions.quality = options.quality
            thumbOptions.maxPixels = options.maxPixels
            thumbOptions.maxThreads = threadsPerImage
            var made: [DerivedRecord] = []
            if wantsPack || wantsPDQ {
                let decoded = try ImageDecoder.decodeReporting(data, options: DecodeOptions(maxPixels: options.maxPixels))
                outcome.damage = decoded.damage?.description ?? outcome.damage
                let image = decoded.image
                outcome.width = image.width
                outcome.height = image.height
                if wantsPDQ {
                    outcome.pdq = PDQHasher.signature(of: image)
                    outcome.pdqIsNew = true
                }
                var source: PixelBuffer? = nil
                for size in sizes {
                    let thumb = try Thumbnailer.thumbnail(source ?? image, longEdge: size, options: thumbOptions)
                    if missingSizes.contains(size) { made.append(try write(thumb, size: size, hash: job.hash)) }
                    source = thumb.image
                }
                source = nil
                if wantsPack { made.append(try pack(image, hash: job.hash)) }
            } else {
                // Thumbnails only: the largest from the file with shrink-on-load,
                // the smaller ones from that.
                var source: Thumbnail? = nil
                for size in sizes {
                    let thumb = try source.map { try Thumbnailer.thumbnail($0.image, longEdge: size, options: thumbOptions) }
                        ?? Thumbnailer.thumbnail(data, longEdge: size, options: thumbOptions)
                    if let damage = thumb.damage { outcome.damage = damage.description }
                    if missingSizes.contains(size) { made.append(try write(thumb, size: size, hash: job.hash)) }
                    source = thumb
                }
            }
            outcome.newRecords = made
            outcome.records = present.filter { old in !made.contains { $0.kind == old.kind && $0.sizeParameter == old.sizeParameter } } + made
            // One pack per image: a new one replaces rows naming another tile size.
            if made.contains(where: { $0.kind == DerivedKind.pack }) {
                let stale = current.filter { $0.kind == DerivedKind.pack && $0.size != options.tileSize }
                outcome.obsolete += stale
                outcome.records.removeAll { row in stale.contains(row) }
            }
        } catch {
            outcome.error = String(describing: error)
        }
        return outcome
    }

    private func write(_ thumb: Thumbnail, size: Int, hash: BlobHash) throws -> DerivedRecord {
        let path = CacheLayout.thumbnail(hash, size: size, png: thumb.format == .png)
        try files.write(thumb.encoded, to: path)
        return DerivedRecord(hash: hash, kind: .thumbnail, sizeParameter: "\(size)", path: path,
                             width: thumb.width, height: thumb.height, bytes: thumb.encoded.count,
                             contentSHA256: BlobHash(hashing: thumb.encoded))
    }

    /// The whole pyramid as one pack, published like a blob (flushed, renamed).
    private func pack(_ image: consuming PixelBuffer, hash: BlobHash) throws -> DerivedRecord {
        var tileOptions = TilePyramidOptions()
        tileOptions.tileSize = options.tileSize
        tileOptions.overlap = options.overlap
        tileOptions.quality = options.quality
        tileOptions.format = .suited(to: image)
        tileOptions.threads = threadsPerImage
        let (bytes, summary) = try TilePyramidBuilder.pack(image: image, options: tileOptions, source: hash.bytes)
        let path = CacheLayout.pack(hash)
        try store.publishDerived(bytes, at: path, deferringDirectorySync: pendingDirectories)
        return DerivedRecord(hash: hash, kind: .pack, sizeParameter: "\(options.tileSize)", path: path,
                             width: summary.width, height: summary.height, bytes: bytes.count)
    }
}
