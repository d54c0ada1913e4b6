import BlobStore
import Foundation
import Imaging
import Synchronization

/// The originals behind every derived response: their header facts (cheap, kept
/// for every image seen) and their decoded pixels (expensive, kept for a few).
///
/// Lazy tiles for one image arrive in bursts, so the last few decoded images
/// stay in memory, bounded in bytes, and concurrent requests for an image being
/// decoded wait for that one decode.
final class SourceImages: Sendable {
    struct Facts: MemoryCost {
        /// Displayed size (after EXIF orientation), which is what every pyramid uses.
        var width: Int
        var height: Int
        var info: ImageInfo
        var bytes: Int { 256 }
    }

    private struct Decoded {
        var entries: [BlobHash: (image: PixelBuffer, tick: UInt64)] = [:]
        var bytes = 0
        var tick: UInt64 = 0
    }

    private let files: CacheFiles
    private let pool: RenderPool
    private let maxPixels: Int
    private let capacity: Int
    /// Bounded: a server walking a bucket of millions of images must not keep a
    /// header per image it ever saw.
    private let facts = MemoryCache<BlobHash, Facts>(capacity: 16 << 20)
    private let decoded = Mutex(Decoded())
    private let decodes = SingleFlight<BlobHash, PixelBuffer>()
    /// Originals that did not decode, and why: answered at once the next time
    /// instead of being decoded again on every request.
    private let failures = MemoryCache<BlobHash, Failed>(capacity: 4 << 20)

    struct Failed: MemoryCost {
        var failure: HTTPFailure
        var bytes: Int { 256 + failure.message.utf8.count }
    }

    /// Told once per original found undecodable (metrics).
    private let onUndecodable: @Sendable () -> Void

    /// Told for each tile's region decoded alone (metrics).
    private let onDecodedInPart: @Sendable () -> Void

    init(files: CacheFiles, pool: RenderPool, maxPixels: Int, capacity: Int, onUndecodable: @escaping @Sendable () -> Void = {},
         onDecodedInPart: @escaping @Sendable () -> Void = {}) {
        self.onUndecodable = onUndecodable
        self.onDecodedInPart = onDecodedInPart
        self.files = files
        self.pool = pool
        self.maxPixels = maxPixels
        self.capacity = capacity
    }

    /// Drops every header and decoded image kept (after a `forget`).
    func forgetAll() {
        facts.removeAll()
        failures.removeAll()
        decoded.withLock { $0 = Decoded() }
    }

    /// The original's bytes, checked against their name; 404 when the cache does
    /// not hold it, 502 when every copy found is damaged.
    func bytes(_ hash: BlobHash) async throws(HTTPFailure) -> [UInt8] {
        do {
            return try await files.load(CacheLayout.blob(hash))
        } catch {
            throw Self.failure(error, hash)
        }
    }

    /// The original's bytes from the local cache only, checked against their name,
    /// for blocking reads off the event loop.
    func localBytes(_ hash: BlobHash) throws(HTTPFailure) -> [UInt8] {
        let relative = CacheLayout.blob(hash)
        let bytes: [UInt8]
        do { bytes = try files.read(relative) } catch { throw Self.failure(error, hash) }
        guard BlobHash(hashing: bytes) == hash else {
            files.integrity?.corrupt(relative, source: .disk)
            throw .corrupt(hash.hex)
        }
        return bytes
    }

    static func failure(_ error: CacheFiles.Failure, _ hash: BlobHash) -> HTTPFailure {
        switch error {
        case .missing: return .notFound("no image \(hash.hex) in this cache")
        case .corrupt: return .corrupt(hash.hex)
        case let .remote(why): return .store(why, what: hash.hex)
        case .tooLarge: return .init(status: 413, message: "\(hash.hex) is larger than this server serves")
        case .unreadable: return .unavailable("cannot read \(hash.hex)")
        }
    }

    /// Format and displayed size from the header alone; 415 for a blob that is not
    /// an image TweetCache decodes (a video, a document), 422 for one whose header is
    /// damaged (``failed(_:_:)``).
    func facts(_ hash: BlobHash) async throws(HTTPFailure) -> Facts {
        if let known = facts.get(hash) { return known }
        if let failed = failures.get(hash) { throw failed.failure }
        let data = try await bytes(hash)
        let info: ImageInfo
        do {
            info = try ImageDecoder.info(of: data)
        } catch {
            throw failed(hash, error)
        }
        guard info.width * info.height <= maxPixels else {
            throw .unprocessable("\(hash.hex) is \(info.width)x\(info.height), over the \(maxPixels)-pixel limit")
        }
        let found = Facts(width: info.displayWidth, height: info.displayHeight, info: info)
        facts.put(hash, found)
        return found
    }

    /// The upright full-size pixels, decoded once however many requests need them.
    func pixels(_ hash: BlobHash) async throws -> PixelBuffer {
        if let hit = lookup(hash) { return hit }
        let image = try await decodes.run(hash) { [self] in
            if let hit = lookup(hash) { return hit }
            let data = try await bytes(hash)
            let image = try await pool.run { [maxPixels] in
                do throws(ImagingError) { return try ImageDecoder.decode(data, options: DecodeOptions(maxPixels: maxPixels)) } catch {
                    throw self.failed(hash, error)
                }
            }
            remember(hash, image)
            return image
        }
        return image
    }

    /// The pixels of `rect` of the upright original, decoded alone
    /// (``ImageDecoder/decodeRegion(_:_:options:)``), or nil when the whole image
    /// is in memory already or cannot be decoded in part exactly (or not at all): then
    /// ``pixels(_:)``, which also says why an image does not decode.
    /// Not kept: the whole decode, for the pack built after it, is.
    func region(_ hash: BlobHash, _ rect: TileRect) async throws -> PixelBuffer? {
        guard lookup(hash) == nil else { return nil }
        if let failed = failures.get(hash) { throw failed.failure }
        let data = try await bytes(hash)
        // A part that did not decode is not the image's verdict: the whole decode gives it.
        let region = try await pool.run { [maxPixels] in
            try? ImageDecoder.decodeRegion(data, rect, options: DecodeOptions(maxPixels: maxPixels))
        }
        if region != nil { onDecodedInPart() }
        return region
    }

    /// An original that did not decode is the image's fault, not the server's: 415
    /// for bytes that are no image format it reads, 422 for a damaged or refused
    /// image, with the decoder's one-line reason; kept so the next request is
    /// answered without decoding again. (Running out of memory is the server's: 503.)
    func failed(_ hash: BlobHash, _ error: ImagingError) -> HTTPFailure {
        let failure: HTTPFailure
        switch error {
        case .unrecognizedFormat, .unsupportedFormat:
            failure = .init(status: 415, message: "\(hash.hex) is not an image this server reads: \(error)")
        case .unsupportedVariant, .tooManyPixels, .truncated, .corrupt:
            failure = .unprocessable("\(hash.hex) cannot be decoded: \(error)")
        case .outOfMemory:
            return .unavailable("out of memory decoding \(hash.hex); try again shortly")
        case .invalidArgument, .encodeFailed:
            return .init(status: 500, message: "internal error")
        }
        if failures.get(hash) == nil { onUndecodable() }
        failures.put(hash, Failed(failure: failure))
        return failure
    }

    private func lookup(_ hash: BlobHash) -> PixelBuffer? {
        decoded.withLock { state in
            guard var found = state.entries[hash] else { return nil }
            state.tick &+= 1
            found.tick = state.tick
            state.entries[hash] = found
            return found.image
        }
    }

    private func remember(_ hash: BlobHash, _ image: PixelBuffer) {
        let size = image.bytes.count
        guard size <= capacity else { return }
        decoded.withLock { state in
            state.tick &+= 1
            if let old = state.entries.updateValue((image, state.tick), forKey: hash) { state.bytes -= old.image.bytes.count }
            state.bytes += size
            while state.bytes > capacity, let oldest = state.entries.min(by: { $0.value.tick < $1.value.tick }) {
                state.entries[oldest.key] = nil
                state.bytes -= oldest.value.image.bytes.count
            }
        }
    }
}
