/// The item properties of a HEIF/AVIF file's primary image that decoding needs
/// and libheif 1.15 does not hand out: its transformations (clean aperture,
/// rotation, mirroring), in the order the file associates them, and its light
/// levels (content light level, mastering display).
///
/// Read from the `meta` box (ISO/IEC 23008-12: `pitm`, `iprp`/`ipco`/`ipma`) with
/// every read bounds-checked; a file this cannot read has no properties, and
/// decoding goes on without them.
struct HEIFProperties: Sendable, Equatable {
    /// A transformative property, applied in file order to the coded image.
    enum Transform: Sendable, Equatable {
        /// `irot`: rotation anticlockwise by this many quarter turns.
        case rotate(quarterTurns: Int)
        /// `imir`: mode 1 swaps left and right, mode 0 top and bottom (ISO/IEC
        /// 23008-12:2022, as libheif and libavif read it; the 2017 text's "axis" was
        /// read the other way by some).
        case mirror(topToBottom: Bool)
        /// `clap`: the clean aperture, as rationals (width, height, horizontal and vertical offset of its centre).
        case cleanAperture(width: Double, height: Double, horizontalOffset: Double, verticalOffset: Double)
    }

    var transforms: [Transform] = []
    /// `clli` MaxCLL in cd/m², when said.
    var maxContentLightLevel: Double?
    /// `mdcv` maximum mastering display luminance in cd/m², when said.
    var maxMasteringLuminance: Double?
    /// `ispe`: the coded size before any transformation.
    var codedSize: (width: Int, height: Int)?

    static func == (a: HEIFProperties, b: HEIFProperties) -> Bool {
        a.transforms == b.transforms && a.maxContentLightLevel == b.maxContentLightLevel
            && a.maxMasteringLuminance == b.maxMasteringLuminance
            && a.codedSize?.width == b.codedSize?.width && a.codedSize?.height == b.codedSize?.height
    }

    /// A box's type, where its content starts and where it ends.
    struct Box {
        var type: String
        var content: Int
        var end: Int
    }

    /// The boxes in `range` of `data`, stopping at the first that does not fit.
    static func boxes(_ data: [UInt8], in range: Range<Int>) -> [Box] {
        var found: [Box] = []
        var at = range.lowerBound
        while at + 8 <= range.upperBound, found.count < 4096 {
            var size = Int(be32(data, at))
            let type = String(decoding: data[(at + 4)..<(at + 8)], as: UTF8.self)
            var header = 8
            if size == 1 {
                guard at + 16 <= range.upperBound else { break }
                let large = UInt64(be32(data, at + 8)) << 32 | UInt64(be32(data, at + 12))
                guard large <= UInt64(range.upperBound - at) else { break }
                size = Int(large)
                header = 16
            } else if size == 0 {
                size = range.upperBound - at
            }
            guard size >= header, at + size <= range.upperBound else { break }
            found.append(Box(type: type, content: at + header, end: at + size))
            at += size
        }
        return found
    }

    static func be32(_ data: [UInt8], _ at: Int) -> UInt32 {
        UInt32(data[at]) << 24 | UInt32(data[at + 1]) << 16 | UInt32(data[at + 2]) << 8 | UInt32(data[at + 3])
    }

    static func be16(_ data: [UInt8], _ at: Int) -> Int { Int(data[at]) << 8 | Int(data[at + 1]) }

    /// The primary item's properties; empty when the file has none this can read.
    static func read(_ data: [UInt8]) -> HEIFProperties {
        var result = HEIFProperties()
        guard let meta = boxes(data, in: 0..<data.count).first(where: { $0.type == "meta" }), meta.content + 4 <= meta.end
        else { return result }
        let children = boxes(data, in: (meta.content + 4)..<meta.end)   // meta is a full box
        guard let pitm = children.first(where: { $0.type == "pitm" }), pitm.content + 6 <= pitm.end else { return result }
        let wideID = data[pitm.content] != 0
        guard !wideID || pitm.content + 8 <= pitm.end else { return result }
        let primary = wideID ? Int(be32(data, pitm.content + 4)) : be16(data, pitm.content + 4)
        guard let iprp = children.first(where: { $0.type == "iprp" }) else { return result }
        let parts = boxes(data, in: iprp.content..<iprp.end)
        guard let ipco = parts.first(where: { $0.type == "ipco" }) else { return result }
        let properties = boxes(data, in: ipco.content..<ipco.end)
        var indices: [Int] = []
        for ipma in parts where ipma.type == "ipma" && ipma.content + 8 <= ipma.end {
            let version = data[ipma.content]
            let wide = data[ipma.content + 3] & 1 != 0
            var at = ipma.content + 4
            let entries = Int(be32(data, at))
            at += 4
            for _ in 0..<min(entries, 1 << 16) {
                let idSize = version < 1 ? 2 : 4
                guard at + idSize + 1 <= ipma.end else { break }
                let item = version < 1 ? be16(data, at) : Int(be32(data, at))
                at += idSize
                let count = Int(data[at])
                at += 1
                for _ in 0..<count {
                    guard at + (wide ? 2 : 1) <= ipma.end else { break }
                    let index = wide ? be16(data, at) & 0x7FFF : Int(data[at] & 0x7F)
                    at += wide ? 2 : 1
                    if item == primary { indices.append(index) }
                }
            }
        }
        for index in indices where index >= 1 && index <= properties.count {
            let box = properties[index - 1]
            let length = box.end - box.content
            switch box.type {
            case "irot" where length >= 1:
                result.transforms.append(.rotate(quarterTurns: Int(data[box.content] & 3)))
            case "imir" where length >= 1:
                result.transforms.append(.mirror(topToBottom: data[box.content] & 1 == 0))
            case "clap" where length >= 32:
                func rational(_ at: Int, signed: Bool) -> Double? {
                    let n = be32(data, box.content + at), d = be32(data, box.content + at + 4)
                    guard d != 0 else { return nil }
                    return (signed ? Double(Int32(bitPattern: n)) : Double(n)) / Double(d)
                }
                if let w = rational(0, signed: false), let h = rational(8, signed: false),
                   let x = rational(16, signed: true), let y = rational(24, signed: true) {
                    result.transforms.append(.cleanAperture(width: w, height: h, horizontalOffset: x, verticalOffset: y))
                }
            case "ispe" where length >= 12:
                result.codedSize = (Int(be32(data, box.content + 4)), Int(be32(data, box.content + 8)))
            case "clli" where length >= 4:
                let level = be16(data, box.content)
                if level > 0 { result.maxContentLightLevel = Double(level) }
            case "mdcv" where length >= 24:
                let luminance = be32(data, box.content + 16)
                if luminance > 0 { result.maxMasteringLuminance = Double(luminance) / 10_000 }
            default:
                break
            }
        }
        return result
    }

    /// The image after the transforms, in order: what libheif should have returned.
    static func apply(_ transforms: [Transform], to image: PixelBuffer) throws(ImagingError) -> PixelBuffer {
        var image = image
        for transform in transforms {
            switch transform {
            case .rotate(let turns):
                // Anticlockwise quarter turns are EXIF orientations 8 (one), 3 (two), 6 (three).
                switch turns & 3 {
                case 1: image = image.oriented(.left)
                case 2: image = image.oriented(.down)
                case 3: image = image.oriented(.right)
                default: break
                }
            case .mirror(let topToBottom):
                image = image.oriented(topToBottom ? .downMirrored : .upMirrored)
            case .cleanAperture:
                if let crop = cropRectangle(transform, width: image.width, height: image.height) {
                    image = try image.cropped(to: TileRect(x: crop.x, y: crop.y, width: crop.width, height: crop.height))
                }
            }
        }
        return image
    }

    /// Where a clean aperture lies in a `width` x `height` image (ISO/IEC 14496-12's
    /// `clap`: its centre is offset from the image's centre, (width - 1) / 2), rounded
    /// to whole pixels and kept inside the image; nil when nothing would remain.
    static func cropRectangle(_ transform: Transform, width: Int, height: Int) -> (x: Int, y: Int, width: Int, height: Int)? {
        guard case let .cleanAperture(w, h, dx, dy) = transform, w >= 1, h >= 1 else { return nil }
        let centreX = dx + Double(width - 1) / 2, centreY = dy + Double(height - 1) / 2
        let left = max(0, Int((centreX - (w - 1) / 2).rounded()))
        let top = max(0, Int((centreY - (h - 1) / 2).rounded()))
        let right = min(width - 1, Int((centreX + (w - 1) / 2).rounded()))
        let bottom = min(height - 1, Int((centreY + (h - 1) / 2).rounded()))
        guard right >= left, bottom >= top else { return nil }
        return (left, top, right - left + 1, bottom - top + 1)
    }
}
