import Foundation
import Testing
@testable import Imaging

/// Lanczos-3 resampling: sizes, exactness on flat colour, gamma handling,
/// alpha, closeness to exact area averaging, and the threaded path.
@Suite struct ResamplerTests {
    static let sizes: [(Int, Int)] = [
        (1, 1), (1, 7), (7, 1), (2, 3), (16, 9), (9, 16), (100, 1), (1, 100), (33, 65), (128, 128), (300, 11),
    ]

    @Test(arguments: [3, 4])
    func producesRequestedSizeEitherWay(channels: Int) throws {
        let source = TestImages.gradient(width: 97, height: 61, channels: channels)
        for (width, height) in Self.sizes {
            let out = try Resampler.resize(source, width: width, height: height)
            #expect(out.width == width && out.height == height && out.channels == channels)
            #expect(out.bytes.count == width * height * channels)
        }
        // From degenerate sources too.
        let line = TestImages.gradient(width: 1, height: 50, channels: channels)
        let wide = try Resampler.resize(line, width: 40, height: 5)
        #expect(wide.width == 40 && wide.height == 5)
    }

    /// Every window lies inside the source and its weights sum to 1, whatever
    /// the ratio, so clamped edges and flat areas come out exact.
    @Test func filterWindowsAreInsideAndNormalised() throws {
        for (source, output, extent) in [
            (1, 1, 1.0), (1, 9, 1.0), (9, 1, 9.0), (10, 3, 10.0), (3, 10, 3.0), (1000, 7, 1000.0),
            (151, 64, 150.125), (4096, 256, 4096.0), (256, 4096, 256.0), (97, 96, 97.0),
        ] {
            let taps = try FilterTaps(sourceCount: source, outputCount: output, sourceExtent: extent)
            for i in 0..<output {
                let start = taps.starts[i]
                let count = taps.counts[i]
                #expect(start >= 0 && count >= 1 && start + count <= source && count <= taps.maxCount)
                let sum = (0..<count).reduce(Float(0)) { $0 + taps.weights[i * taps.stride + $1] }
                #expect(abs(sum - 1) < 1e-5, "\(source) -> \(output), pixel \(i): \(sum)")
            }
        }
    }

    @Test func sameSizeIsTheSameImage() throws {
        let source = TestImages.noise(width: 31, height: 17, channels: 4)
        #expect(try Resampler.resize(source, width: 31, height: 17) == source)
    }

    @Test(arguments: [true, false])
    func flatColourStaysExact(linearLight: Bool) throws {
        let options = Resampler.Options(linearLight: linearLight)
        for color: [UInt8] in [[0, 0, 0], [255, 255, 255], [1, 2, 3], [200, 17, 99], [128, 128, 128, 255], [40, 200, 7, 77]] {
            let source = TestImages.solid(width: 75, height: 40, color: color)
            for (width, height) in [(19, 10), (7, 3), (150, 80), (76, 41), (1, 1), (200, 3)] {
                let out = try Resampler.resize(source, width: width, height: height, options: options)
                let expected = TestImages.solid(width: width, height: height, color: color)
                #expect(TestImages.maxDifference(out, expected) <= 1, "\(color) to \(width)x\(height)")
            }
        }
    }

    @Test func everyLevelSurvivesTheLinearLightRoundTrip() {
        let tables = TransferTables.linear
        let steps = Float(TransferTables.outputSteps - 1)
        for level in 0..<256 {
            let index = Int(tables.decode[level] * steps + 0.5)
            #expect(tables.encode[index] == UInt8(level))
        }
    }

    @Test func linearLightAveragesLightNotCodeValues() throws {
        let stripes = TestImages.stripes(width: 64, height: 16)
        let linear = try Resampler.resize(stripes, width: 16, height: 4, options: .init(linearLight: true))
        let coded = try Resampler.resize(stripes, width: 16, height: 4, options: .init(linearLight: false))
        // Half the light is sRGB 187.5; half the code range is 127.5. (Columns
        // within the kernel's reach of an edge see the clamped edge pixel twice.)
        for x in 3..<13 {
            let l = TestImages.pixel(linear, x, 2)
            let c = TestImages.pixel(coded, x, 2)
            #expect(l.allSatisfy { (187...188).contains($0) }, "linear \(l) at \(x)")
            #expect(c.allSatisfy { (127...128).contains($0) }, "sRGB \(c) at \(x)")
        }
    }

    @Test(arguments: [true, false])
    func downscaleIsCloseToExactAreaAveraging(linearLight: Bool) throws {
        for (name, source) in [
            ("gradient", TestImages.gradient(width: 256, height: 192)),
            ("natural", TestImages.natural(width: 256, height: 192)),
        ] {
            let out = try Resampler.resize(source, width: 64, height: 48, options: .init(linearLight: linearLight))
            let reference = TestImages.boxReduced(source, factor: 4, linearLight: linearLight)
            let psnr = TestImages.psnr(out, reference)
            #expect(psnr >= 30, "\(name): \(psnr) dB")
        }
    }

    @Test func upscaleIsSmoothAndKeepsTheSamples() throws {
        let source = TestImages.gradient(width: 40, height: 30)
        let out = try Resampler.resize(source, width: 80, height: 60)
        // Doubling a linear ramp gives a finer ramp: neighbours differ by about half a source step.
        let back = try Resampler.resize(out, width: 40, height: 30)
        #expect(TestImages.psnr(back, source) >= 40)
    }

    /// Transparent pixels keep whatever colour they had when made transparent;
    /// premultiplied filtering must not let it show through.
    @Test func hiddenColourOfTransparentPixelsDoesNotBleed() throws {
        var bytes = [UInt8]()
        for y in 0..<40 {
            for x in 0..<40 {
                bytes += (x / 2 + y / 2) % 2 == 0 ? [255, 0, 0, 0] : [0, 0, 255, 255]
            }
        }
        let source = try PixelBuffer(width: 40, height: 40, channels: 4, bytes: bytes)
        for linearLight in [true, false] {
            let out = try Resampler.resize(source, width: 10, height: 10, options: .init(linearLight: linearLight))
            for y in 0..<10 {
                for x in 0..<10 {
                    let p = TestImages.pixel(out, x, y)
                    #expect(p[0] <= 1 && p[2] >= 254, "\(p) at \(x),\(y)")
                    #expect((100...155).contains(p[3]), "alpha \(p[3]) at \(x),\(y)")
                }
            }
        }
    }

    @Test func threadedResultIsIdenticalToSingleThreaded() throws {
        let source = TestImages.noise(width: 1500, height: 800, channels: 4)
        for (width, height) in [(300, 160), (1499, 801), (2000, 30)] {
            let serial = try Resampler.resize(source, width: width, height: height, options: .init(maxThreads: 1))
            let threaded = try Resampler.resize(source, width: width, height: height, options: .init(maxThreads: 8))
            #expect(serial == threaded, "\(width)x\(height)")
        }
    }

    @Test func badRequestsAreErrors() throws {
        let source = TestImages.gradient(width: 10, height: 10)
        #expect(throws: ImagingError.self) { try Resampler.resize(source, width: 0, height: 5) }
        #expect(throws: ImagingError.self) { try Resampler.resize(source, width: 5, height: -1) }
        #expect(throws: ImagingError.self) { try Resampler.resize(source, width: 5, height: 5, options: .init(maxThreads: 0)) }
        #expect(throws: ImagingError.self) { try Resampler.resize(source, width: Int.max, height: 2) }
        // A reduction so extreme its filter would not fit in memory is refused, not attempted.
        let line = try PixelBuffer(width: 2_000_000, height: 1, channels: 3)
        #expect(throws: ImagingError.self) { try Resampler.resize(line, width: 1, height: 1) }
        #expect(try Resampler.resize(line, width: 256, height: 1).width == 256)
    }
}

/// Resampling speed on a camera-sized image; prints timings. Runs only when
/// TWEETCACHE_TIMING is set, since timing on a shared machine is noise in CI.
@Suite(.enabled(if: ProcessInfo.processInfo.environment["TWEETCACHE_TIMING"] != nil))
struct ResamplerTimingTests {
    @Test func camera4096x3072() throws {
        let source = TestImages.noise(width: 4096, height: 3072, channels: 3)
        for (width, height, threads) in [(256, 192, 1), (256, 192, 2), (2048, 1536, 1), (2048, 1536, 2), (1024, 768, 2)] {
            for linearLight in [true, false] {
                var best = Double.infinity
                for _ in 0..<3 {
                    let start = DispatchTime.now().uptimeNanoseconds
                    let out = try Resampler.resize(
                        source, width: width, height: height, options: .init(linearLight: linearLight, maxThreads: threads))
                    best = min(best, Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
                    #expect(out.width == width)
                }
                print("Resampler 4096x3072 -> \(width)x\(height), \(threads) thread(s), linear \(linearLight): \(String(format: "%.1f", best)) ms")
            }
        }
    }
}
