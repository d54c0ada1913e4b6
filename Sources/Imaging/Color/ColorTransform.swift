internal import CTweetCache
internal import Dispatch
import Foundation
import Synchronization

/// A Little CMS transform from one source's colours to 8-bit sRGB.
///
/// Created with lcms2's one-pixel cache off, so one transform serves every
/// thread at once; kept in a small cache because building one (parsing the
/// profile, optimising its curves into tables) costs far more than applying it
/// to a thumbnail-sized decode, and phones put the same Display P3 profile in
/// every photo.
final class ColorTransform: @unchecked Sendable {
    /// The pixel layout the transform reads.
    enum Input: Hashable {
        case rgb8, rgba8, rgb16BigEndian, rgba16BigEndian, cmyk8, cmyk8Inverted

        init(channels: Int, sixteenBit: Bool = false) {
            switch (channels, sixteenBit) {
            case (4, false): self = .rgba8
            case (4, true): self = .rgba16BigEndian
            case (_, true): self = .rgb16BigEndian
            default: self = .rgb8
            }
        }

        var shim: tc_color_input {
            switch self {
            case .rgb8: TC_COLOR_RGB8
            case .rgba8: TC_COLOR_RGBA8
            case .rgb16BigEndian: TC_COLOR_RGB16_BE
            case .rgba16BigEndian: TC_COLOR_RGBA16_BE
            case .cmyk8: TC_COLOR_CMYK8
            case .cmyk8Inverted: TC_COLOR_CMYK8_INVERTED
            }
        }
    }

    let handle: OpaquePointer

    private init(handle: OpaquePointer) { self.handle = handle }

    deinit { tc_color_free(handle) }

    private struct Key: Hashable {
        var source: ColorSource
        var input: Input
        var outChannels: Int
    }

    /// Transforms stay small (a few KB of tables each); 32 covers every profile a run meets in practice.
    private static let cache = Mutex<[Key: ColorTransform]>([:])
    private static let cacheLimit = 32

    /// The transform for `source` reading `input` and writing `outChannels` (3 or 4),
    /// or why there is none. `.sRGB` has none: callers skip the conversion.
    static func make(_ source: ColorSource, input: Input, outChannels: Int) -> Result<ColorTransform, ColorFailure> {
        let key = Key(source: source, input: input, outChannels: outChannels)
        if let cached = cache.withLock({ $0[key] }) { return .success(cached) }
        var message = CodecShim.messageBuffer()
        var handle: OpaquePointer?
        let status: tc_status
        switch source {
        case .sRGB:
            return .failure(ColorFailure(reason: "sRGB needs no transform"))
        case .iccProfile(let bytes):
            status = bytes.withUnsafeBufferPointer {
                tc_color_create_icc($0.baseAddress, $0.count, input.shim, Int32(outChannels), &handle, &message)
            }
        case .chromaticities(let xy, let curve):
            guard xy.count == 8 else { return .failure(ColorFailure(reason: "need 8 chromaticity values")) }
            let (srgbCurve, gamma): (Int32, Double)
            switch curve {
            case .sRGB: (srgbCurve, gamma) = (1, 0)
            case .gamma(let g): (srgbCurve, gamma) = (0, g)
            case .pq, .hlg: return .failure(ColorFailure(reason: "HDR is tone-mapped at decode, not by a profile"))
            }
            status = tc_color_create_rgb(xy, srgbCurve, gamma, input.shim, Int32(outChannels), &handle, &message)
        }
        guard status == TC_OK, let handle else { return .failure(ColorFailure(reason: CodecShim.text(message))) }
        let transform = ColorTransform(handle: handle)
        cache.withLock { entries in
            if entries.count >= cacheLimit { entries.removeAll(keepingCapacity: true) }
            entries[key] = transform
        }
        return .success(transform)
    }

    /// Converts `image` to sRGB in place (its layout must be this transform's 8-bit input).
    func apply(to image: inout PixelBuffer) {
        let pixels = image.width * image.height
        // Big decodes (pyramid sources) are converted a band per core: lcms2 runs about
        // 100 Mpixel/s per core on matrix-shaper profiles, slower on CMYK LUTs.
        let bands = pixels >= 1 << 21 ? max(1, min(8, ProcessInfo.processInfo.activeProcessorCount)) : 1
        let rowsPerBand = (image.height + bands - 1) / bands
        let rowBytes = image.bytesPerRow
        let width = image.width
        let height = image.height
        image.withUnsafeMutableBytes { buffer in
            guard let base = buffer.baseAddress else { return }
            let address = UInt(bitPattern: base)
            DispatchQueue.concurrentPerform(iterations: bands) { band in
                let first = band * rowsPerBand
                let rows = min(rowsPerBand, height - first)
                guard rows > 0, let start = UnsafeMutablePointer<UInt8>(bitPattern: address + UInt(first * rowBytes)) else { return }
                tc_color_apply(self.handle, start, start, rows * width)
            }
        }
    }
}

/// Why a colour description could not be turned into a transform.
struct ColorFailure: Error, Hashable {
    var reason: String
}
