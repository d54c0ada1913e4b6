import Foundation
import Testing
@testable import Imaging

/// The folder named by TWEETCACHE_REALWORLD, if any.
private let realWorldRoot: URL? = ProcessInfo.processInfo.environment["TWEETCACHE_REALWORLD"]
    .map { URL(fileURLWithPath: $0, isDirectory: true) }

/// The codecs against files nobody on this project wrote: PngSuite and the
/// libjpeg-turbo / jpeg-decoder reference images. They are not in the repo,
/// so this suite runs only when TWEETCACHE_REALWORLD names their folder
/// (scripts/check-realworld-images.sh does that) and prints its counts.
@Suite(.enabled(if: realWorldRoot != nil, "set TWEETCACHE_REALWORLD to the realworld folder"))
struct RealWorldTests {

    /// JPEGs that must be refused, and why: variants libjpeg-turbo 2.1 does not
    /// decode, and files whose pixels are partly missing (libjpeg warns and
    /// fills grey; our policy turns that into an error).
    static let expectedJPEGRefusals: [String: String] = [
        "monkey12.jpg": "12-bit samples",
        "testorig12.jpg": "12-bit samples",
        "jpeg_lossless_sel1.jpg": "lossless JPEG",
    ]

    /// Damaged files that decode as browsers show them, the damage reported
    /// (``ImageDamage``), not refused.
    static let expectedJPEGDamage: [String: String] = [
        "partial_progressive.jpg": "scans cut short",
        "progressive-missing-dc.jpg": "DC scan missing",
    ]

    static func files(under folder: URL, extension ext: String) -> [URL] {
        let walker = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil)
        return (walker?.allObjects as? [URL] ?? []).filter { $0.pathExtension == ext }
            .sorted { $0.path < $1.path }
    }

    static func bytes(_ url: URL) throws -> [UInt8] { [UInt8](try Data(contentsOf: url)) }

    /// Decoding as the references were made: the stored values, without colour management.
    static let raw = DecodeOptions(convertToSRGB: false)

    @Test func pngSuite() throws {
        let folder = try #require(realWorldRoot).appendingPathComponent("pngsuite")
        let files = Self.files(under: folder, extension: "png")
        var decoded = 0
        var refused = 0
        var problems: [String] = []
        for file in files {
            let name = file.lastPathComponent
            let mustFail = name.hasPrefix("x")
            let data = try Self.bytes(file)
            do {
                let image = try ImageDecoder.decode(data)
                let info = try ImageDecoder.info(of: data)
                decoded += 1
                if mustFail { problems.append("\(name): decoded, but PngSuite marks it corrupt") }
                if image.width != info.width || image.height != info.height || image.channels != info.channels {
                    problems.append("\(name): decoded size differs from its header")
                }
            } catch {
                refused += 1
                if !mustFail { problems.append("\(name): \(error)") }
            }
        }
        print("RealWorld PngSuite: \(files.count) files, \(decoded) decoded, \(refused) refused (x* must be refused), \(problems.count) problems")
        #expect(files.count >= 150)
        #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
    }

    @Test func jpegReferenceImages() throws {
        let folder = try #require(realWorldRoot).appendingPathComponent("jpeg")
        let files = Self.files(under: folder, extension: "jpg")
        var decoded = 0
        var matched = 0
        var damaged = 0
        var refused: [String] = []
        var problems: [String] = []
        for file in files {
            let name = file.lastPathComponent
            let image: PixelBuffer
            do {
                // The codec against a codec's reference: stored values, no colour management.
                let reported = try ImageDecoder.decodeReporting(try Self.bytes(file), options: Self.raw)
                image = reported.image
                decoded += 1
                if let damage = Self.expectedJPEGDamage[name] {
                    // Its pixels are what the decoder made of what is there: no reference to match.
                    if reported.damage == nil { problems.append("\(name): decoded with no damage reported (\(damage))") } else { damaged += 1 }
                    continue
                }
                if let damage = reported.damage { problems.append("\(name): a sound file reported \(damage)") }
            } catch {
                refused.append("\(name) (\(error))")
                if Self.expectedJPEGRefusals[name] == nil { problems.append("\(name): \(error)") }
                continue
            }
            if let reason = Self.expectedJPEGRefusals[name] { problems.append("\(name): decoded despite \(reason)") }
            let referenceURL = file.deletingPathExtension().appendingPathExtension("png")
            guard let referenceData = try? Self.bytes(referenceURL) else {
                // libjpeg-turbo's testimg{ari,int}.jpg re-encode testorig's picture
                // (arithmetic coding, progressive) with other settings: same picture, not same pixels.
                let original = file.deletingLastPathComponent().appendingPathComponent("testorig.jpg")
                if name.hasPrefix("testimg"), let other = try? ImageDecoder.decode(try Self.bytes(original), options: Self.raw) {
                    let mean = zip(image.bytes, other.bytes).reduce(0) { $0 + abs(Int($1.0) - Int($1.1)) }
                    if image.bytes.count != other.bytes.count || Double(mean) / Double(image.bytes.count) > 1 {
                        problems.append("\(name): not the picture in testorig.jpg")
                    } else {
                        matched += 1
                    }
                }
                continue
            }
            let reference = try ImageDecoder.decode(referenceData, options: Self.raw)
            if let mismatch = Self.compare(image, reference) {
                problems.append("\(name): \(mismatch)")
            } else {
                matched += 1
            }
        }
        print("RealWorld JPEG: \(files.count) files, \(decoded) decoded, \(matched) match their reference, \(damaged) damaged as expected, \(refused.count) refused as expected: \(refused.joined(separator: "; "))")
        #expect(files.count >= 40)
        #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
    }

    /// Different decoders round IDCT and upsampling differently: a few levels
    /// per channel is agreement. A grey reference for a colour JPEG (libjpeg-turbo's
    /// testorig.png) is not a decode but a greyscale source picture, so our
    /// pixels' luma need only show the same picture: a mean difference of a few
    /// levels (it is about 5.7; an unrelated or misaligned image is 30 or more).
    static func compare(_ image: PixelBuffer, _ reference: PixelBuffer) -> String? {
        guard image.width == reference.width, image.height == reference.height else {
            return "size \(image.width)x\(image.height), reference \(reference.width)x\(reference.height)"
        }
        let pixelStarts = stride(from: 0, to: reference.bytes.count, by: reference.channels)
        let referenceIsGray = pixelStarts.allSatisfy { (i: Int) -> Bool in
            let r = reference.bytes[i]
            return r == reference.bytes[i + 1] && r == reference.bytes[i + 2]
        }
        var worst = 0
        var total = 0
        for p in 0..<(image.width * image.height) {
            let i = p * image.channels
            let j = p * reference.channels
            if referenceIsGray {
                let red = 299 * Int(image.bytes[i])
                let green = 587 * Int(image.bytes[i + 1])
                let blue = 114 * Int(image.bytes[i + 2])
                let luma = (red + green + blue + 500) / 1000
                let d = abs(luma - Int(reference.bytes[j]))
                worst = max(worst, d)
                total += d
            } else {
                for c in 0..<3 {
                    let d = abs(Int(image.bytes[i + c]) - Int(reference.bytes[j + c]))
                    worst = max(worst, d)
                    total += d
                }
            }
        }
        let mean = Double(total) / Double(image.width * image.height * (referenceIsGray ? 1 : 3))
        let sourceReference = referenceIsGray && image.bytes.indices.contains(where: { (i: Int) -> Bool in
            i % 3 == 0 && image.bytes[i] != image.bytes[i + 1]
        })
        let agrees = sourceReference ? mean <= 8 : worst <= 4 && mean <= 0.5
        return agrees ? nil : "differs from reference by up to \(worst) levels (mean \(mean))"
    }

    /// WebP (lossy, lossless, alpha, animated) and GIF (animated, interlaced,
    /// transparent, frames out of bounds): each decodes, and its first frame
    /// matches the reference rendering: exactly for GIF and lossless WebP, within
    /// a few levels for lossy WebP (decoders differ in their YUV upsampling).
    /// Transparent pixels compare by alpha alone: their colour is invisible.
    @Test func webpAndGIFReferenceImages() throws {
        let folder = try #require(realWorldRoot).appendingPathComponent("webp-gif")
        let files = Self.files(under: folder, extension: "webp") + Self.files(under: folder, extension: "gif")
        var matched = 0
        var problems: [String] = []
        for file in files {
            let name = file.lastPathComponent
            let image: PixelBuffer
            do {
                image = try ImageDecoder.decode(try Self.bytes(file), options: Self.raw)
            } catch {
                problems.append("\(name): \(error)")
                continue
            }
            let referenceURL = file.appendingPathExtension("reference.png")
            guard let referenceData = try? Self.bytes(referenceURL) else { continue }
            let reference = try ImageDecoder.decode(referenceData, options: Self.raw).withAlpha()
            let ours = image.withAlpha()
            guard ours.width == reference.width, ours.height == reference.height else {
                problems.append("\(name): \(ours.width)x\(ours.height), reference \(reference.width)x\(reference.height)")
                continue
            }
            let lossy = file.pathExtension == "webp" && !file.path.contains("lossless_images")
            var worst = 0
            for i in stride(from: 0, to: ours.bytes.count, by: 4) {
                let alpha = abs(Int(ours.bytes[i + 3]) - Int(reference.bytes[i + 3]))
                worst = max(worst, alpha)
                guard reference.bytes[i + 3] > 0 else { continue }
                for c in 0..<3 { worst = max(worst, abs(Int(ours.bytes[i + c]) - Int(reference.bytes[i + c]))) }
            }
            if worst > (lossy ? 6 : 0) {
                problems.append("\(name): differs from its reference by up to \(worst) levels")
            } else {
                matched += 1
            }
        }
        print("RealWorld WebP/GIF: \(files.count) files, \(matched) match their reference, \(problems.count) problems")
        #expect(files.count >= 20)
        #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
    }

    /// JPEGs with ICC profiles: a big profile over many APP2 chunks, one after SOF,
    /// a CMYK file with its profile; and five whose chunks are broken, which decode
    /// as sRGB with the reason in their colour report, never a crash.
    @Test func iccProfiles() throws {
        let folder = try #require(realWorldRoot).appendingPathComponent("icc")
        let files = Self.files(under: folder, extension: "jpg") + Self.files(under: folder, extension: "jpeg")
        var lines: [String] = []
        var problems: [String] = []
        for file in files {
            let data = try Self.bytes(file)
            do {
                _ = try ImageDecoder.decode(data)
                lines.append("\(file.lastPathComponent): \(try ImageDecoder.colorReport(of: data).summary)")
            } catch {
                problems.append("\(file.lastPathComponent): \(error)")
            }
        }
        print("RealWorld ICC: \(files.count) files decoded; \(lines.joined(separator: "; "))")
        #expect(files.count >= 8)
        #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
    }
}
