import Testing
@testable import Imaging

@Suite struct PNGCodecTests {
    @Test(arguments: [(1, 1), (7, 3), (64, 48), (257, 5)])
    func roundTripsExactly(width: Int, height: Int) throws {
        for channels in [3, 4] {
            let image = TestImages.noise(width: width, height: height, channels: channels)
            let file = try PNGEncoder.encode(image)
            #expect(ImageFormat.sniff(file) == .png)
            let info = try ImageDecoder.info(of: file)
            #expect(info == ImageInfo(format: .png, width: width, height: height, channels: channels,
                                      hasAlpha: channels == 4, orientation: .up, progressive: false))
            #expect(try ImageDecoder.decode(file) == image)
        }
    }

    @Test func everyCompressionLevelIsLossless() throws {
        let image = TestImages.gradient(width: 96, height: 64, channels: 4)
        var sizes: [Int] = []
        for level in 0...9 {
            let file = try PNGEncoder.encode(image, compressionLevel: level)
            #expect(try ImageDecoder.decode(file) == image, "level \(level)")
            sizes.append(file.count)
        }
        #expect(sizes[1] < sizes[0], "level 1 compresses a gradient")
    }

    @Test func refusesBadArguments() {
        let image = TestImages.gradient(width: 4, height: 4)
        #expect(throws: ImagingError.self) { try PNGEncoder.encode(image, compressionLevel: 10) }
        #expect(throws: ImagingError.self) { try PNGEncoder.encode(image, compressionLevel: -1) }
    }

    @Test func decodeOptionsDoNotScalePNGs() throws {
        let image = TestImages.noise(width: 9, height: 9, channels: 3)
        let file = try PNGEncoder.encode(image)
        #expect(try ImageDecoder.decode(file, options: DecodeOptions(scaleDenominator: 4)) == image)
    }
}

/// Every PNG colour type and bit depth, written with libpng through the raw
/// encoder, must decode to the 8-bit values the PNG spec defines.
@Suite struct PNGColorTypeTests {
    let width = 13   // odd, so packed rows end mid-byte and Adam7 passes are ragged
    let height = 11

    /// A sample value in 0..<levels for pixel (x, y), varied so every value appears.
    func sample(_ x: Int, _ y: Int, _ c: Int, levels: Int) -> Int { (x * 7 + y * 5 + c * 3) % levels }

    /// The 8-bit value the spec maps a sample of `bitDepth` bits to.
    func to8(_ v: Int, bitDepth: Int) -> UInt8 {
        let maxValue = (1 << bitDepth) - 1
        return UInt8((Double(v) * 255 / Double(maxValue)).rounded())
    }

    func encode(_ format: PNGRawEncoder, samplesPerPixel: Int, sampleAt: (Int, Int, Int) -> Int) throws -> [UInt8] {
        var rows: [UInt8] = []
        var stride = 0
        for y in 0..<height {
            let samples = (0..<width).flatMap { x in (0..<samplesPerPixel).map { c in sampleAt(x, y, c) } }
            let row = PNGSurgery.packRow(samples, bitDepth: format.bitDepth)
            stride = row.count
            rows += row
        }
        return try format.encode(rows: rows, width: width, height: height, stride: stride)
    }

    @Test(arguments: [1, 2, 4, 8, 16], [false, true])
    func gray(bitDepth: Int, interlaced: Bool) throws {
        let levels = 1 << bitDepth
        let sampleAt = { (x: Int, y: Int, _: Int) in self.sample(x, y, 0, levels: levels) * (levels > 256 ? 257 : 1) }
        let file = try encode(PNGRawEncoder(colorType: .gray, bitDepth: bitDepth, interlaced: interlaced),
                              samplesPerPixel: 1, sampleAt: sampleAt)
        let info = try ImageDecoder.info(of: file)
        #expect(info.channels == 3 && !info.hasAlpha && info.progressive == interlaced)
        let image = try ImageDecoder.decode(file)
        for y in 0..<height {
            for x in 0..<width {
                let v = to8(sampleAt(x, y, 0), bitDepth: bitDepth)
                #expect(TestImages.pixel(image, x, y) == [v, v, v], "(\(x), \(y))")
            }
        }
    }

    @Test(arguments: [8, 16], [false, true])
    func colorTypesWithChannels(bitDepth: Int, interlaced: Bool) throws {
        let cases: [(PNGRawEncoder.ColorType, Int)] = [(.rgb, 3), (.grayAlpha, 2), (.rgba, 4)]
        for (colorType, samples) in cases {
            let scale = bitDepth == 16 ? 257 : 1
            let sampleAt = { (x: Int, y: Int, c: Int) in self.sample(x, y, c, levels: 256) * scale + (x + c) % scale }
            let file = try encode(PNGRawEncoder(colorType: colorType, bitDepth: bitDepth, interlaced: interlaced),
                                  samplesPerPixel: samples, sampleAt: sampleAt)
            let image = try ImageDecoder.decode(file)
            let hasAlpha = samples % 2 == 0
            #expect(image.channels == (hasAlpha ? 4 : 3))
            for y in 0..<height {
                for x in 0..<width {
                    let v = (0..<samples).map { to8(sampleAt(x, y, $0), bitDepth: bitDepth) }
                    let expected = switch colorType {
                    case .grayAlpha: [v[0], v[0], v[0], v[1]]
                    default: v
                    }
                    #expect(TestImages.pixel(image, x, y) == expected, "\(colorType) (\(x), \(y))")
                }
            }
        }
    }

    @Test(arguments: [1, 2, 4, 8], [false, true])
    func palette(bitDepth: Int, interlaced: Bool) throws {
        let entries = 1 << bitDepth
        var palette: [UInt8] = []
        for i in 0..<entries {
            palette += [UInt8(i * 37 % 256), UInt8(255 - i % 256), UInt8(i * 11 % 256)]
        }
        let alpha: [UInt8] = Array([0, 100, 200].prefix(entries))   // only the first entries: the rest stay opaque
        for withAlpha in [false, true] {
            let format = PNGRawEncoder(colorType: .palette, bitDepth: bitDepth, interlaced: interlaced,
                                       palette: palette, paletteAlpha: withAlpha ? alpha : [])
            let sampleAt = { (x: Int, y: Int, _: Int) in self.sample(x, y, 0, levels: entries) }
            let file = try encode(format, samplesPerPixel: 1, sampleAt: sampleAt)
            let image = try ImageDecoder.decode(file)
            #expect(image.channels == (withAlpha ? 4 : 3))
            for y in 0..<height {
                for x in 0..<width {
                    let index = sampleAt(x, y, 0)
                    var expected = Array(palette[index * 3..<index * 3 + 3])
                    if withAlpha { expected.append(index < alpha.count ? alpha[index] : UInt8(255)) }
                    #expect(TestImages.pixel(image, x, y) == expected, "index \(index)")
                }
            }
        }
    }

    @Test(arguments: [2, 8, 16])
    func transparentGrayValue(bitDepth: Int) throws {
        let levels = 1 << bitDepth
        let key = levels / 2
        let sampleAt = { (x: Int, y: Int, _: Int) in (x + y) % 3 == 0 ? key : self.sample(x, y, 0, levels: levels) }
        let format = PNGRawEncoder(colorType: .gray, bitDepth: bitDepth, transparentColor: [UInt16(key)])
        let image = try ImageDecoder.decode(try encode(format, samplesPerPixel: 1, sampleAt: sampleAt))
        #expect(image.channels == 4)
        for y in 0..<height {
            for x in 0..<width {
                let v = sampleAt(x, y, 0)
                let g = to8(v, bitDepth: bitDepth)
                #expect(TestImages.pixel(image, x, y) == [g, g, g, v == key ? 0 : 255])
            }
        }
    }

    @Test func transparentRGBValue() throws {
        let key: [Int] = [10, 20, 30]
        let sampleAt = { (x: Int, y: Int, c: Int) in x == y ? key[c] : self.sample(x, y, c, levels: 256) }
        let format = PNGRawEncoder(colorType: .rgb, bitDepth: 8, transparentColor: key.map { UInt16($0) })
        let image = try ImageDecoder.decode(try encode(format, samplesPerPixel: 3, sampleAt: sampleAt))
        #expect(image.channels == 4)
        #expect(TestImages.pixel(image, 4, 4) == [10, 20, 30, 0])
        #expect(TestImages.pixel(image, 1, 0)[3] == 255)
    }

    @Test func rawEncoderRefusesImpossibleFormats() {
        #expect(throws: ImagingError.self) {
            try PNGRawEncoder(colorType: .rgb, bitDepth: 4).encode(rows: [0, 0], width: 1, height: 1, stride: 2)
        }
        #expect(throws: ImagingError.self) {
            try PNGRawEncoder(colorType: .palette, bitDepth: 8).encode(rows: [0], width: 1, height: 1, stride: 1)
        }
    }
}
