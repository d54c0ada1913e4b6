#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Cuts a decoded image into a zoom pyramid (Deep Zoom, IIIF 3.0 level 0, or
/// both from the same pass), or makes single tiles on demand.
///
/// One decode, one pass down the levels: the full-resolution tiles are cut
/// straight from the caller's pixels, then each level is written and halved
/// into the next with a 2x2 box filter (``PyramidReducer``), never resampled
/// from the original. Memory stays near the size of the decoded image: besides
/// the caller's pixels the builder holds two RGB level buffers, a quarter and
/// a sixteenth of the image, which trade places on the way down, plus one
/// encoder per thread. Passing the image as its last use lets the builder drop
/// the full-resolution pixels right after the first halving.
///
/// JPEG has no alpha: for JPEG tiles transparent pixels are composited over white
/// (libvips flattens too, over black by default; white matches ``JPEGEncoder``).
/// With ``TilePyramidOptions/format`` `.png` an RGBA image keeps its alpha at every
/// level, and its level buffers are RGBA.
public enum TilePyramidBuilder {
    /// Writes one layout of `image` into `directory` (created if needed).
    /// Deep Zoom: `<deepZoomName>.dzi` and `<deepZoomName>_files/`; IIIF:
    /// `info.json` and the region folders. Descriptors are written after every
    /// tile, so a pyramid without its descriptor is incomplete.
    public static func build(
        image: consuming PixelBuffer, layout: PyramidLayout, options: TilePyramidOptions = .init(),
        into directory: URL
    ) throws(ImagingError) -> PyramidSummary {
        let summaries = try build(image: image, outputs: [layout: directory], options: options)
        guard let summary = summaries[layout] else { throw .invalidArgument("no \(layout) pyramid was written") }
        return summary
    }

    /// Writes several layouts into one folder (their files do not collide);
    /// the summary adds up both. See ``build(image:outputs:options:)``.
    public static func build(
        image: consuming PixelBuffer, layouts: Set<PyramidLayout>, options: TilePyramidOptions = .init(),
        into directory: URL
    ) throws(ImagingError) -> PyramidSummary {
        var total = PyramidSummary(width: image.width, height: image.height, levels: 0, tiles: 0, bytes: 0)
        let outputs = Dictionary(uniqueKeysWithValues: layouts.map { ($0, directory) })
        let summaries = try build(image: image, outputs: outputs, options: options)
        for summary in summaries.values {
            total.levels = summary.levels
            total.tiles += summary.tiles
            total.bytes += summary.bytes
        }
        return total
    }

    /// Writes each layout into its own folder from ONE pass down the levels:
    /// the halvings are shared, and where both layouts want the same pixels
    /// (Deep Zoom without overlap) each tile is encoded once and written
    /// under both names. Returns what was written per layout.
    public static func build(
        image: consuming PixelBuffer, outputs: [PyramidLayout: URL], options: TilePyramidOptions = .init()
    ) throws(ImagingError) -> [PyramidLayout: PyramidSummary] {
        let layouts = Set(outputs.keys)
        guard !layouts.isEmpty else { throw .invalidArgument("no pyramid layout requested") }
        try options.validate(for: layouts)
        let geometry = try PyramidGeometry(
            width: image.width, height: image.height, tileSize: options.tileSize,
            overlap: layouts.contains(.deepZoom) ? options.overlap : 0)
        var order: [PyramidLayout] = []
        var sinks: [any TileSink] = []
        if let directory = outputs[.deepZoom] {
            order.append(.deepZoom)
            sinks.append(DeepZoomWriter(
                geometry: geometry, name: options.deepZoomName, directory: directory, format: options.format))
        }
        if let directory = outputs[.iiif3], let id = options.iiifID {
            order.append(.iiif3)
            sinks.append(IIIFWriter(geometry: geometry, id: id, directory: directory, format: options.format))
        }
        let summaries = try run(image: image, geometry: geometry, sinks: sinks, options: options)
        return Dictionary(uniqueKeysWithValues: zip(order, summaries))
    }

    /// The whole Deep Zoom pyramid (with `options.overlap`) as one
    /// ``PyramidPack`` in memory, for the caller to publish atomically. The
    /// tiles are byte-identical to the files ``build(image:layout:options:into:)``
    /// writes for Deep Zoom with the same options. `source` is the original's
    /// SHA-256 (32 bytes), recorded in the header.
    public static func pack(
        image: consuming PixelBuffer, options: TilePyramidOptions = .init(), source: [UInt8]? = nil
    ) throws(ImagingError) -> (bytes: [UInt8], summary: PyramidSummary) {
        try options.validate(for: [])
        let geometry = try PyramidGeometry(
            width: image.width, height: image.height, tileSize: options.tileSize, overlap: options.overlap)
        let sink = PackSink(geometry: geometry, quality: options.quality, format: options.format)
        var summary = try run(image: image, geometry: geometry, sinks: [sink], options: options)[0]
        let bytes = try sink.pack(source: source)
        summary.bytes = bytes.count
        return (bytes, summary)
    }

    /// One pass down the levels feeding every sink; a summary per sink, in order.
    private static func run(
        image: consuming PixelBuffer, geometry: PyramidGeometry, sinks: [any TileSink], options: TilePyramidOptions
    ) throws(ImagingError) -> [PyramidSummary] {
        let writer = PyramidLevelWriter(
            sinks: sinks, quality: options.quality, format: options.format, workers: options.workerCount)
        let keepAlpha = options.format.keepsAlpha
        var tally = PyramidLevelWriter.Tally(sinks: sinks.count)

        // Full resolution, straight from the caller's pixels.
        var source: PixelBuffer? = consume image
        let channels = source?.channels ?? 3
        let top = geometry.uncheckedLevel(geometry.maxLevel)
        tally.add(try withPixels(of: source) { pixels throws(ImagingError) in
            try writer.write(level: top, pixels: pixels, stride: top.width * channels, channels: channels)
        })

        if geometry.maxLevel > 0 {
            // Two level buffers take turns: level L is read from one while L-1 is written into the other.
            let kept = PyramidReducer.outputChannels(source: channels, keepAlpha: keepAlpha)
            let first = geometry.uncheckedLevel(geometry.maxLevel - 1)
            var current = try LevelBuffer(width: first.width, height: first.height, channels: kept)
            readPixels(of: source) { pixels in
                PyramidReducer.reduce(
                    source: pixels, sourceStride: top.width * channels, channels: channels,
                    width: top.width, height: top.height, into: current.pointer,
                    linearLight: options.linearLight, keepAlpha: keepAlpha, workers: writer.workers)
            }
            source = nil
            var spare: LevelBuffer? = nil
            if geometry.maxLevel > 1 {
                let second = geometry.uncheckedLevel(geometry.maxLevel - 2)
                spare = try LevelBuffer(width: second.width, height: second.height, channels: kept)
            }
            for index in stride(from: geometry.maxLevel - 1, through: 0, by: -1) {
                let level = geometry.uncheckedLevel(index)
                tally.add(try writer.write(
                    level: level, pixels: current.pointer, stride: level.width * kept, channels: kept))
                guard index > 0, let next = spare else { break }
                PyramidReducer.reduce(
                    source: current.pointer, sourceStride: level.width * kept, channels: kept,
                    width: level.width, height: level.height, into: next.pointer,
                    linearLight: options.linearLight, keepAlpha: keepAlpha, workers: writer.workers)
                spare = current
                current = next
            }
        }

        var summaries: [PyramidSummary] = []
        for (index, sink) in sinks.enumerated() {
            let descriptor = try sink.writeDescriptor()
            summaries.append(PyramidSummary(
                width: geometry.width, height: geometry.height, levels: geometry.levelCount,
                tiles: tally.files[index], bytes: tally.bytes[index] + descriptor))
        }
        return summaries
    }

    /// One Deep Zoom tile (overlap included) or IIIF tile (no overlap) in the
    /// options' format, made from the decoded image alone: only the part of the image
    /// under the tile is reduced, and the result is byte-identical to the
    /// file ``build(image:layout:options:into:)`` writes for that tile. For
    /// servers that make tiles lazily; levels and tiles as in ``PyramidGeometry``.
    public static func tile(
        of image: PixelBuffer, level: Int, column: Int, row: Int, layout: PyramidLayout = .deepZoom,
        options: TilePyramidOptions = .init()
    ) throws(ImagingError) -> [UInt8] {
        guard (1...100).contains(options.quality) else {
            throw .invalidArgument("JPEG quality must be 1-100, got \(options.quality)")
        }
        let pixels = try tilePixels(of: image, level: level, column: column, row: row, layout: layout, options: options)
        return try encode(pixels, options: options)
    }

    private static func encode(_ pixels: PixelBuffer, options: TilePyramidOptions) throws(ImagingError) -> [UInt8] {
        switch options.format {
        case .png: return try PNGEncoder.encode(pixels)
        case .webp: return try WebPEncoder.encode(pixels, options: .init(quality: Double(options.quality)))
        case .jpeg: return try JPEGEncoder.encode(pixels, quality: options.quality)
        }
    }

    /// The pixels of one tile, as ``tile(of:level:column:row:layout:options:)`` encodes them.
    public static func tilePixels(
        of image: PixelBuffer, level: Int, column: Int, row: Int, layout: PyramidLayout = .deepZoom,
        options: TilePyramidOptions = .init()
    ) throws(ImagingError) -> PixelBuffer {
        let rect = try tileRect(width: image.width, height: image.height, level: level, column: column, row: row,
                                layout: layout, options: options)
        return try levelPixels(
            of: image, level: level, rect: rect, linearLight: options.linearLight, keepAlpha: options.format.keepsAlpha)
    }

    /// The part of the full-size image one tile is made from: all a decoder must
    /// give for ``tile(ofRegion:at:imageWidth:imageHeight:level:column:row:layout:options:)``,
    /// so a server can decode a tile's worth of a large photo instead of all of it.
    public static func sourceRect(
        width: Int, height: Int, level: Int, column: Int, row: Int, layout: PyramidLayout = .deepZoom,
        options: TilePyramidOptions = .init()
    ) throws(ImagingError) -> TileRect {
        let rect = try tileRect(width: width, height: height, level: level, column: column, row: row,
                                layout: layout, options: options)
        return source(of: rect, shift: try PyramidGeometry(width: width, height: height).maxLevel - level,
                      width: width, height: height)
    }

    /// The full-size pixels `rect` of the level `shift` halvings below full size is made
    /// from, in a `width` x `height` image.
    private static func source(of rect: TileRect, shift: Int, width: Int, height: Int) -> TileRect {
        let x0 = rect.x << shift, y0 = rect.y << shift
        return TileRect(x: x0, y: y0, width: min(width, rect.maxX << shift) - x0, height: min(height, rect.maxY << shift) - y0)
    }

    /// ``tile(of:level:column:row:layout:options:)`` made from `region`, the pixels
    /// of ``sourceRect(width:height:level:column:row:layout:options:)`` of a
    /// `imageWidth` x `imageHeight` image: byte-identical to the tile cut from the
    /// whole image, since a tile reads nothing outside that rectangle.
    public static func tile(
        ofRegion region: PixelBuffer, imageWidth: Int, imageHeight: Int, level: Int, column: Int, row: Int,
        layout: PyramidLayout = .deepZoom, options: TilePyramidOptions = .init()
    ) throws(ImagingError) -> [UInt8] {
        guard (1...100).contains(options.quality) else {
            throw .invalidArgument("JPEG quality must be 1-100, got \(options.quality)")
        }
        let rect = try tileRect(width: imageWidth, height: imageHeight, level: level, column: column, row: row,
                                layout: layout, options: options)
        let source = source(of: rect, shift: try PyramidGeometry(width: imageWidth, height: imageHeight).maxLevel - level,
                            width: imageWidth, height: imageHeight)
        guard region.width == source.width, region.height == source.height else {
            throw .invalidArgument("a \(region.width)x\(region.height) region is not the tile's source \(source)")
        }
        let pixels = try levelPixels(
            of: region, origin: (source.x, source.y), imageWidth: imageWidth, imageHeight: imageHeight, level: level,
            rect: rect, linearLight: options.linearLight, keepAlpha: options.format.keepsAlpha)
        return try encode(pixels, options: options)
    }

    private static func tileRect(
        width: Int, height: Int, level: Int, column: Int, row: Int, layout: PyramidLayout, options: TilePyramidOptions
    ) throws(ImagingError) -> TileRect {
        let geometry = try PyramidGeometry(
            width: width, height: height, tileSize: options.tileSize,
            overlap: layout == .deepZoom ? options.overlap : 0)
        let rect = switch layout {
        case .deepZoom: geometry.tileRect(level: level, column: column, row: row)
        case .iiif3: geometry.iiifTileRect(level: level, column: column, row: row)
        }
        guard let rect else {
            throw .invalidArgument("""
                no tile \(column)_\(row) at level \(level) of a \(width)x\(height) image \
                with \(options.tileSize)-pixel tiles (levels 0-\(geometry.maxLevel))
                """)
        }
        return rect
    }

    /// Any rectangle of any pyramid level, computed by halving only the part
    /// of `image` under it, exactly as a full build would: the general
    /// primitive behind on-demand tiles (a server can crop IIIF regions with it).
    /// RGB, or RGBA when `keepAlpha` and the image has alpha (as a PNG pyramid keeps it).
    public static func levelPixels(
        of image: PixelBuffer, level index: Int, rect: TileRect, linearLight: Bool = false, keepAlpha: Bool = false
    ) throws(ImagingError) -> PixelBuffer {
        try levelPixels(of: image, origin: (0, 0), imageWidth: image.width, imageHeight: image.height, level: index,
                        rect: rect, linearLight: linearLight, keepAlpha: keepAlpha)
    }

    /// ``levelPixels(of:level:rect:linearLight:keepAlpha:)`` of a `imageWidth` x
    /// `imageHeight` image of which `image` holds the part whose top left is `origin`
    /// (all of it, or at least the part under `rect`).
    private static func levelPixels(
        of image: PixelBuffer, origin given: (x: Int, y: Int), imageWidth: Int, imageHeight: Int, level index: Int,
        rect: TileRect, linearLight: Bool, keepAlpha: Bool
    ) throws(ImagingError) -> PixelBuffer {
        let geometry = try PyramidGeometry(width: imageWidth, height: imageHeight)
        guard let level = geometry.level(index) else {
            throw .invalidArgument("level \(index) does not exist (levels 0-\(geometry.maxLevel))")
        }
        guard rect.x >= 0, rect.y >= 0, rect.width > 0, rect.height > 0,
              rect.width <= level.width - rect.x, rect.height <= level.height - rect.y else {
            throw .invalidArgument("rectangle \(rect) is outside level \(index) (\(level.width)x\(level.height))")
        }
        let shift = geometry.maxLevel - index
        let part = source(of: rect, shift: shift, width: imageWidth, height: imageHeight)
        let (x0, y0, width, height) = (part.x, part.y, part.width, part.height)
        guard x0 >= given.x, y0 >= given.y, x0 + width <= given.x + image.width,
              y0 + height <= given.y + image.height else {
            throw .invalidArgument("the pixels given do not cover rectangle \(rect) of level \(index)")
        }
        let channels = image.channels
        let stride = image.bytesPerRow
        let kept = PyramidReducer.outputChannels(source: channels, keepAlpha: keepAlpha)
        let result = image.bytes.withUnsafeBufferPointer { all in
            Result { () throws(ImagingError) -> [UInt8] in
                guard let base = all.baseAddress else { throw .invalidArgument("image has no pixels") }
                let origin = base + (y0 - given.y) * stride + (x0 - given.x) * channels
                if shift == 0 {
                    return crop(origin, stride: stride, channels: channels, width: width, height: height, keepAlpha: keepAlpha)
                }
                // Halve `shift` times: source region → a → b → a ...
                var size = PyramidReducer.reducedSize(width: width, height: height)
                var current = try LevelBuffer(width: size.width, height: size.height, channels: kept)
                PyramidReducer.reduce(source: origin, sourceStride: stride, channels: channels, width: width,
                                      height: height, into: current.pointer, linearLight: linearLight,
                                      keepAlpha: keepAlpha, workers: 1)
                var spare: LevelBuffer? = nil
                for _ in 1..<shift {
                    let next = PyramidReducer.reducedSize(width: size.width, height: size.height)
                    let target: LevelBuffer
                    if let spare { target = spare } else { target = try LevelBuffer(width: next.width, height: next.height, channels: kept) }
                    PyramidReducer.reduce(source: current.pointer, sourceStride: size.width * kept, channels: kept,
                                          width: size.width, height: size.height, into: target.pointer,
                                          linearLight: linearLight, keepAlpha: keepAlpha, workers: 1)
                    spare = current
                    current = target
                    size = next
                }
                guard size.width == rect.width, size.height == rect.height else {
                    throw .invalidArgument("internal pyramid size mismatch for \(rect) at level \(index)")
                }
                return Array(UnsafeBufferPointer(start: current.pointer, count: size.width * size.height * kept))
            }
        }
        return PixelBuffer(unchecked: rect.width, height: rect.height, channels: kept, bytes: try result.get())
    }

    /// Tightly packed copy of a region: RGB, RGBA composited over white unless `keepAlpha`.
    private static func crop(
        _ origin: UnsafePointer<UInt8>, stride: Int, channels: Int, width: Int, height: Int, keepAlpha: Bool
    ) -> [UInt8] {
        let kept = PyramidReducer.outputChannels(source: channels, keepAlpha: keepAlpha)
        return [UInt8](unsafeUninitializedCapacity: width * height * kept) { out, count in
            for y in 0..<height {
                let src = origin + y * stride
                let dst = out.baseAddress! + y * width * kept
                if channels == kept {
                    dst.update(from: src, count: width * kept)
                    continue
                }
                for x in 0..<width {
                    let alpha = UInt32(src[4 * x + 3])
                    let white = 255 &* (255 &- alpha)
                    for c in 0..<3 {
                        dst[3 * x + c] = PixelBuffer.div255(UInt32(src[4 * x + c]) &* alpha &+ white)
                    }
                }
            }
            count = width * height * kept
        }
    }

    /// Runs `body` on the first pixel of `image` (present until the builder lets go of it).
    private static func withPixels<R>(
        of image: PixelBuffer?, _ body: (UnsafePointer<UInt8>) throws(ImagingError) -> R
    ) throws(ImagingError) -> R {
        guard let image else { throw .invalidArgument("image pixels already released") }
        let result = image.bytes.withUnsafeBufferPointer { all in
            Result { () throws(ImagingError) -> R in
                guard let base = all.baseAddress else { throw .invalidArgument("image has no pixels") }
                return try body(base)
            }
        }
        return try result.get()
    }

    /// ``withPixels(of:_:)`` for work that cannot fail.
    private static func readPixels(of image: PixelBuffer?, _ body: (UnsafePointer<UInt8>) -> Void) {
        guard let image else { return }
        image.bytes.withUnsafeBufferPointer { all in
            if let base = all.baseAddress { body(base) }
        }
    }
}
