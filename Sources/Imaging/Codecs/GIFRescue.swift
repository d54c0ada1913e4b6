/// The first frame of a GIF that giflib refuses but browsers show: an LZW minimum
/// code size outside the specification's 2–8 (encoders have written up to 11, and
/// Firefox and Pillow read any size whose first code fits LZW's 12 bits), or a
/// frame with no colour table at all, whose pixels Chromium draws opaque black.
///
/// Only these files come here (``GIFDecoder`` asks ``parse(_:)`` first and keeps
/// giflib for everything else), so a sound GIF is always read by giflib. Every
/// read is bounds-checked; the LZW tables are fixed at 4,096 entries; output
/// stops at the frame's pixel count whatever the data says.
struct GIFRescue: Sendable {
    var canvasWidth: Int
    var canvasHeight: Int
    var left: Int
    var top: Int
    var width: Int
    var height: Int
    var interlaced: Bool
    /// RGB triples; nil when neither the frame nor the file has a colour table.
    var palette: [UInt8]?
    var transparent: Int?
    var codeSize: Int
    /// Where the frame's data sub-blocks start (after the code size byte).
    var dataStart: Int
    /// Frames in the file (counted only when ``isNeeded``).
    var frames: Int
    /// The whole file.
    var data: [UInt8] = []

    /// Whether the frame needs this reader: giflib refuses its code size or it has no colour table.
    var isNeeded: Bool { codeSize > 8 || codeSize < 2 || palette == nil }

    var hasAlpha: Bool {
        transparent != nil || left > 0 || top > 0 || left + width < canvasWidth || top + height < canvasHeight
    }

    /// What is out of the ordinary, in the words ``ImageDamage`` carries.
    var oddity: String {
        var parts: [String] = []
        if codeSize > 8 || codeSize < 2 { parts.append("its LZW minimum code size is \(codeSize), outside the specification's 2-8") }
        if palette == nil { parts.append("its first frame has no colour table, so its pixels are drawn black, as Chromium draws them") }
        return parts.joined(separator: "; ")
    }

    /// The file's structure up to the first frame's data; nil when it is not a GIF
    /// this reader can take (giflib's answer then stands).
    static func parse(_ data: [UInt8]) -> GIFRescue? {
        guard data.count >= 13, data.starts(with: Array("GIF8".utf8)) else { return nil }
        func u16(_ at: Int) -> Int { Int(data[at]) | Int(data[at + 1]) << 8 }
        let canvasWidth = u16(6), canvasHeight = u16(8)
        let screenFlags = data[10]
        var at = 13
        var global: [UInt8]? = nil
        if screenFlags & 0x80 != 0 {
            let size = 3 << (Int(screenFlags & 7) + 1)
            guard data.count >= at + size else { return nil }
            global = Array(data[at..<(at + size)])
            at += size
        }
        var transparent: Int? = nil
        while at < data.count {
            switch data[at] {
            case 0x21:
                guard at + 2 <= data.count else { return nil }
                let label = data[at + 1]
                at += 2
                var first = true
                while at < data.count, data[at] != 0 {
                    let size = Int(data[at])
                    guard at + 1 + size <= data.count else { return nil }
                    if first, label == 0xF9, size >= 4 { transparent = data[at + 1] & 1 != 0 ? Int(data[at + 4]) : nil }
                    first = false
                    at += 1 + size
                }
                at += 1
            case 0x2C:
                guard at + 10 <= data.count else { return nil }
                let flags = data[at + 9]
                var rescue = GIFRescue(
                    canvasWidth: canvasWidth, canvasHeight: canvasHeight,
                    left: u16(at + 1), top: u16(at + 3), width: u16(at + 5), height: u16(at + 7),
                    interlaced: flags & 0x40 != 0, palette: global, transparent: transparent,
                    codeSize: 0, dataStart: 0, frames: 1)
                at += 10
                if flags & 0x80 != 0 {
                    let size = 3 << (Int(flags & 7) + 1)
                    guard data.count >= at + size else { return nil }
                    rescue.palette = Array(data[at..<(at + size)])
                    at += size
                }
                guard at < data.count else { return nil }
                rescue.codeSize = Int(data[at])
                rescue.dataStart = at + 1
                rescue.data = data
                if rescue.isNeeded { rescue.frames = countFrames(data, after: at + 1) }
                return rescue
            default:
                return nil
            }
        }
        return nil
    }

    /// Frames from the first one's data on, by skipping sub-blocks (never decoding).
    static func countFrames(_ data: [UInt8], after start: Int) -> Int {
        var frames = 1
        var at = skipBlocks(data, from: start)
        while at < data.count, frames < 100_000 {
            switch data[at] {
            case 0x21:
                at = skipBlocks(data, from: at + 2)
            case 0x2C:
                guard at + 10 < data.count else { return frames }
                let flags = data[at + 9]
                at += 10 + (flags & 0x80 != 0 ? 3 << (Int(flags & 7) + 1) : 0) + 1
                at = skipBlocks(data, from: at)
                frames += 1
            default:
                return frames
            }
        }
        return frames
    }

    private static func skipBlocks(_ data: [UInt8], from start: Int) -> Int {
        var at = start
        while at < data.count, data[at] != 0 { at += 1 + Int(data[at]) }
        return at + 1
    }

    /// The frame on its canvas (transparent, or black for RGB), and how many of its
    /// pixels the data held.
    func decode(channels: Int) throws(ImagingError) -> DecodedImage {
        guard (1...11).contains(codeSize) else {
            throw .corrupt(.gif, "LZW minimum code size \(codeSize) leaves no room for codes")
        }
        guard width > 0, height > 0 else { throw .corrupt(.gif, "GIF frame of \(width)x\(height) pixels") }
        let count = try PixelBuffer.byteCount(width: canvasWidth, height: canvasHeight, channels: channels)
        // As giflib's path: a frame up to 4x its canvas's area (plus 64K pixels for tiny
        // canvases) is read and clipped; a larger one is refused before its indices exist.
        let pixels = width * height
        guard pixels <= 4 * canvasWidth * canvasHeight + 65_536 else {
            throw .corrupt(.gif, "a \(width)x\(height) frame far larger than its \(canvasWidth)x\(canvasHeight) canvas")
        }
        let (indices, decoded) = lzw(pixels: pixels)
        var bytes = [UInt8](repeating: 0, count: count)
        let rows = interlaced ? Self.interlacedRows(height) : Array(0..<height)
        for (position, row) in rows.enumerated() {
            let y = top + row
            guard y < canvasHeight, position * width < decoded else { continue }
            for x in 0..<width where left + x < canvasWidth {
                let i = position * width + x
                guard i < decoded else { break }
                let index = Int(indices[i])
                if index == transparent { continue }
                let out = (y * canvasWidth + left + x) * channels
                if let palette, 3 * index + 2 < palette.count {
                    bytes[out] = palette[3 * index]
                    bytes[out + 1] = palette[3 * index + 1]
                    bytes[out + 2] = palette[3 * index + 2]
                }
                if channels == 4 { bytes[out + 3] = 255 }
            }
        }
        guard decoded > 0 else { throw .truncated(.gif) }
        var reason = oddity
        if decoded < pixels { reason += "; the data ends after \(decoded) of its \(pixels) pixels" }
        let image = PixelBuffer(unchecked: canvasWidth, height: canvasHeight, channels: channels, bytes: bytes)
        return DecodedImage(image: image, damage: ImageDamage(format: .gif, reason: reason))
    }

    /// Rows in the order an interlaced frame stores them (passes from rows 0, 4, 2, 1).
    static func interlacedRows(_ height: Int) -> [Int] {
        var rows: [Int] = []
        rows.reserveCapacity(height)
        for (start, step) in [(0, 8), (4, 8), (2, 4), (1, 2)] { rows += Swift.stride(from: start, to: height, by: step) }
        return rows
    }

    /// The frame's palette indices in stored order, and how many the data held.
    func lzw(pixels: Int) -> (indices: [UInt8], decoded: Int) {
        var output = [UInt8](repeating: 0, count: pixels)
        var written = 0
        let clear = 1 << codeSize, end = clear + 1
        var prefix = [UInt16](repeating: 0, count: 4096)
        var suffix = [UInt8](repeating: 0, count: 4096)
        var first = [UInt8](repeating: 0, count: 4096)
        var stack = [UInt8](repeating: 0, count: 4097)
        for code in 0..<min(clear, 4096) { suffix[code] = UInt8(truncatingIfNeeded: code); first[code] = suffix[code] }
        var width = codeSize + 1, next = clear + 2, previous = -1
        var bits = 0, buffer = 0
        var at = dataStart, blockLeft = 0
        decoding: while written < pixels {
            while bits < width {
                if blockLeft == 0 {
                    guard at < data.count, data[at] != 0 else { break decoding }
                    blockLeft = Int(data[at])
                    at += 1
                }
                guard at < data.count else { break decoding }
                buffer |= Int(data[at]) << bits
                at += 1
                blockLeft -= 1
                bits += 8
            }
            let code = buffer & ((1 << width) - 1)
            buffer >>= width
            bits -= width
            if code == clear {
                width = codeSize + 1
                next = clear + 2
                previous = -1
                continue
            }
            if code == end { break }
            guard previous >= 0 else {
                guard code < clear else { break }
                output[written] = UInt8(truncatingIfNeeded: code)
                written += 1
                previous = code
                continue
            }
            guard code <= next, code < 4096 else { break }
            // The string of `code`, or of the previous code plus its own first byte (KwKwK).
            var top = 0
            var walk = code
            if code == next {
                stack[top] = first[previous]
                top += 1
                walk = previous
            }
            while walk >= clear {
                stack[top] = suffix[walk]
                top += 1
                walk = Int(prefix[walk])
            }
            stack[top] = suffix[walk]
            top += 1
            if next < 4096 {
                prefix[next] = UInt16(previous)
                suffix[next] = stack[top - 1]
                first[next] = first[previous]
                next += 1
                if next == 1 << width, width < 12 { width += 1 }
            }
            while top > 0, written < pixels {
                top -= 1
                output[written] = stack[top]
                written += 1
            }
            previous = code
        }
        return (output, written)
    }
}
