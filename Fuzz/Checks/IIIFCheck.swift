import Imaging

/// IIIF Image API requests as clients send them: `region/size/rotation/quality.format`
/// (the path after the identifier), for an image whose size and the service's limits
/// come from the input's first seven bytes. Parsing and resolving must never trap; a
/// request that resolves must stay inside the image and the limits, and its canonical
/// form must parse and resolve to the same pixels.
public enum IIIFCheck: FuzzCheck {
    public static let name = "fuzz-iiif"

    public static func run(_ input: [UInt8]) -> String? {
        guard input.count >= 7 else { return nil }
        let width = Int(input[1]) << 8 | Int(input[2]) + 1
        let height = Int(input[3]) << 8 | Int(input[4]) + 1
        let limits = input[0] & 1 == 0 ? IIIFRequestLimits.none
            : IIIFRequestLimits(maxWidth: Int(input[5]) * 64, maxArea: input[0] & 2 == 0 ? nil : Int(input[6]) * 40_000)
        let text = String(decoding: input[7...], as: UTF8.self)
        let parts = text.split(separator: "/", maxSplits: 3, omittingEmptySubsequences: false)
        guard parts.count == 4,
              let request = try? IIIFImageRequest.parse(
                  region: parts[0], size: parts[1], rotation: parts[2], qualityAndFormat: parts[3]),
              let resolved = try? request.resolve(width: width, height: height, limits: limits)
        else { return nil }
        let r = resolved.region
        guard r.x >= 0, r.y >= 0, r.width > 0, r.height > 0, r.maxX <= width, r.maxY <= height else {
            return "region \(r) outside a \(width)x\(height) image for \(text)"
        }
        guard resolved.width > 0, resolved.height > 0 else { return "empty output for \(text)" }
        if let w = limits.maxWidth, resolved.width > w { return "wider than maxWidth for \(text)" }
        if let h = limits.effectiveMaxHeight, resolved.height > h { return "taller than maxHeight for \(text)" }
        if let a = limits.maxArea, resolved.width * resolved.height > a { return "over maxArea for \(text)" }
        if limits == .none, resolved.width > r.width || resolved.height > r.height {
            return "enlarged without limits for \(text)"
        }
        do {
            let again = try IIIFImageRequest.parse(
                region: resolved.canonicalRegion, size: resolved.canonicalSize, rotation: parts[2],
                qualityAndFormat: parts[3]
            ).resolve(width: width, height: height, limits: limits)
            guard again.region == resolved.region, again.width == resolved.width, again.height == resolved.height else {
                return "canonical \(resolved.canonicalRegion)/\(resolved.canonicalSize) differs for \(text)"
            }
        } catch {
            return "canonical form of \(text) is refused: \(error)"
        }
        return nil
    }

    public static func seeds() -> [String: [UInt8]] {
        let paths = [
            "full/max/0/default.jpg", "0,0,512,512/256,/0/default.jpg", "768,512,256,256/256,256/0/default.jpg",
            "pct:10.5,20,30,40.25/pct:50/90/gray.png", "square/!300,200/!180/bitonal.jpg", "full/^max/270/color.png",
            "full/^,1200/0/default.jpg", "1,2,3,4/^!10,10/360/default.webp",
        ]
        var seeds: [String: [UInt8]] = [:]
        for (n, path) in paths.enumerated() {
            seeds["request-\(n)"] = [UInt8(n * 37 % 256), 0x0F, 0xA0, 0x07, 0x80, 0x03, 0x10] + Array(path.utf8)
        }
        return seeds
    }
}
