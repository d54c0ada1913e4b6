import Testing
@testable import Imaging

/// GIFs giflib refuses but browsers show: an LZW code size past 8, no colour table.
/// The files are written here by a plain LZW writer that emits every pixel as a
/// literal code, checked first against giflib on a GIF within the specification.
@Suite struct GIFRescueTests {
    static let palette: [UInt8] = [0, 0, 0, 255, 0, 0, 0, 255, 0, 0, 0, 255]

    /// A GIF of one frame: `codeSize` as its LZW minimum code size, the 4-colour
    /// table global (or none), optionally interlaced and with a transparent index.
    static func gif(
        width: Int, height: Int, indices: [UInt8], codeSize: Int, palette: [UInt8]? = palette,
        interlaced: Bool = false, transparent: UInt8? = nil
    ) -> [UInt8] {
        func le(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8)] }
        var file = Array("GIF89a".utf8) + le(width) + le(height)
        file += [palette == nil ? 0 : 0x81, 0, 0]
        if let palette { file += palette }
        if let transparent { file += [0x21, 0xF9, 4, 1, 0, 0, transparent, 0] }
        file += [0x2C] + le(0) + le(0) + le(width) + le(height) + [interlaced ? 0x40 : 0]
        let rows = interlaced ? GIFRescue.interlacedRows(height) : Array(0..<height)
        let stored = rows.flatMap { row in indices[(row * width)..<((row + 1) * width)] }
        let data = lzw(stored, codeSize: codeSize)
        file.append(UInt8(codeSize))
        for start in Swift.stride(from: 0, to: data.count, by: 255) {
            let block = data[start..<min(start + 255, data.count)]
            file.append(UInt8(block.count))
            file += block
        }
        return file + [0, 0x3B]
    }

    /// Every index as a literal code, widths tracked as a decoder tracks them, a clear
    /// code before the table fills.
    static func lzw(_ indices: [UInt8], codeSize: Int) -> [UInt8] {
        var out: [UInt8] = []
        var buffer = 0, bits = 0
        func emit(_ code: Int, _ width: Int) {
            buffer |= code << bits
            bits += width
            while bits >= 8 { out.append(UInt8(buffer & 0xFF)); buffer >>= 8; bits -= 8 }
        }
        let clear = 1 << codeSize
        var width = codeSize + 1, next = clear + 2, first = true
        emit(clear, width)
        for index in indices {
            emit(Int(index), width)
            if !first {
                next += 1
                if next == 1 << width, width < 12 { width += 1 }
            }
            first = false
            if next >= 4094 {
                emit(clear, width)
                width = codeSize + 1
                next = clear + 2
                first = true
            }
        }
        emit(clear + 1, width)
        if bits > 0 { out.append(UInt8(buffer & 0xFF)) }
        return out
    }

    static let width = 37, height = 29
    static let indices: [UInt8] = (0..<(width * height)).map { UInt8(($0 % width * 3 + $0 / width) % 4) }

    @Test func theWriterAgreesWithGiflibWithinTheSpecification() throws {
        let file = Self.gif(width: Self.width, height: Self.height, indices: Self.indices, codeSize: 2)
        #expect(GIFRescue.parse(file)?.isNeeded == false)
        let decoded = try ImageDecoder.decodeReporting(file)
        #expect(decoded.damage == nil)
        for (i, index) in Self.indices.enumerated() {
            #expect(TestImages.pixel(decoded.image, i % Self.width, i / Self.width)
                == Array(Self.palette[(3 * Int(index))..<(3 * Int(index) + 3)]))
        }
    }

    @Test(arguments: [(9, false), (11, false), (11, true)])
    func aCodeSizePastEightDecodesAsBrowsersDo(codeSize: Int, interlaced: Bool) throws {
        let sound = try ImageDecoder.decode(Self.gif(width: Self.width, height: Self.height, indices: Self.indices, codeSize: 2))
        let file = Self.gif(width: Self.width, height: Self.height, indices: Self.indices, codeSize: codeSize, interlaced: interlaced)
        let info = try ImageDecoder.info(of: file)
        #expect(info.width == Self.width && info.height == Self.height && info.frames == 1 && info.progressive == interlaced)
        let decoded = try ImageDecoder.decodeReporting(file)
        #expect(decoded.image == sound)
        let damage = try #require(decoded.damage)
        #expect(damage.format == .gif && damage.reason.contains("LZW minimum code size is \(codeSize)"), "\(damage)")
        // Thumbnails carry the damage too.
        #expect(try Thumbnailer.thumbnail(file, longEdge: 20).damage == damage)
    }

    @Test func aFrameWithoutAColourTableIsDrawnBlackAndKeepsItsTransparency() throws {
        let file = Self.gif(width: 8, height: 4, indices: (0..<32).map { UInt8($0 % 3) }, codeSize: 2, palette: nil, transparent: 2)
        let decoded = try ImageDecoder.decodeReporting(file)
        #expect(decoded.image.channels == 4)
        #expect(TestImages.pixel(decoded.image, 0, 0) == [0, 0, 0, 255])
        #expect(TestImages.pixel(decoded.image, 1, 0) == [0, 0, 0, 255])
        #expect(TestImages.pixel(decoded.image, 2, 0)[3] == 0)
        #expect(decoded.damage?.reason.contains("no colour table") == true)
    }

    @Test func aCutRescuedFrameShowsWhatArrivedAndNothingIsRefusedWithoutAReason() throws {
        let file = Self.gif(width: Self.width, height: Self.height, indices: Self.indices, codeSize: 10)
        let start = try #require(GIFRescue.parse(file)).dataStart
        let decoded = try ImageDecoder.decodeReporting(Array(file.prefix(start + 300)))
        #expect(decoded.damage?.reason.contains("the data ends after") == true, "\(String(describing: decoded.damage))")
        // Every cut either decodes with damage said or fails as an ImagingError; never a trap.
        for length in 0..<file.count {
            do {
                let cut = try ImageDecoder.decodeReporting(Array(file.prefix(length)))
                #expect(cut.damage != nil)
            } catch {
                _ = error  // typed throws: an ImagingError, never a trap
            }
        }
        // A frame far larger than its canvas is refused from its descriptor, as giflib's path does.
        var huge = Self.gif(width: 8, height: 8, indices: Array(repeating: 1, count: 64), codeSize: 10)
        let descriptor = try #require(huge.indices.first { huge[$0] == 0x2C })
        huge[descriptor + 5] = 0xFF; huge[descriptor + 6] = 0xFF; huge[descriptor + 7] = 0xFF; huge[descriptor + 8] = 0xFF
        #expect(throws: ImagingError.self) { try ImageDecoder.decode(huge) }
        // A code size that leaves no literal is refused.
        var zero = file
        zero[start - 1] = 0
        #expect(throws: ImagingError.self) { try ImageDecoder.decode(zero) }
    }
}
