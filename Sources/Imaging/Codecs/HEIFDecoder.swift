internal import CTweetCache

/// AVIF and HEIF reading through the C shim (libheif): the primary image with its
/// transformations (clean aperture, rotation, mirroring) applied, 10- and 12-bit
/// images reduced to 8, HDR (PQ, HLG) tone-mapped to SDR.
///
/// libheif 1.15 applies the transformations itself, except on some files whose
/// plane comes back untransformed; those are decoded without them and
/// ``HEIFProperties`` applies them, in the file's order.
enum HEIFDecoder {
    static func header(of data: [UInt8], format: ImageFormat) throws(ImagingError) -> tc_heif_info {
        var header = tc_heif_info()
        var message = CodecShim.messageBuffer()
        let status = data.withUnsafeBufferPointer { bytes in
            tc_heif_read_header(bytes.baseAddress, bytes.count, &header, &message)
        }
        guard status == TC_OK else { throw CodecShim.decodeError(status, message, format: format) }
        return header
    }

    static func info(of data: [UInt8], format: ImageFormat) throws(ImagingError) -> ImageInfo {
        let header = try header(of: data, format: format)
        let hasAlpha = header.has_alpha != 0
        // The container, not the sniffed brand, decides which decoder runs.
        let actual: ImageFormat = header.av1 != 0 ? .avif : .heic
        guard tc_heif_can_decode(header.av1) != 0 else { throw .unsupportedFormat(actual) }
        return ImageInfo(
            format: actual, width: Int(header.width), height: Int(header.height),
            channels: hasAlpha ? 4 : 3, hasAlpha: hasAlpha)
    }

    /// An ICC profile when there is one; else the nclx box's primaries and transfer
    /// characteristic (``ColorSource/ToneCurve/init(h273:)``). BT.709 or unspecified
    /// primaries with an sRGB-drawn curve are sRGB; PQ and HLG are tone-mapped.
    static func colorSource(of data: [UInt8], format: ImageFormat) -> ColorSource {
        guard let header = try? header(of: data, format: format) else { return .sRGB }
        return colorSource(header, data: data)
    }

    static func colorSource(_ header: tc_heif_info, data: [UInt8]) -> ColorSource {
        if header.has_icc != 0, case let profile = CodecShim.profile(in: data, tc_heif_read_icc), profile != .sRGB {
            return profile
        }
        guard header.has_nclx != 0 else { return .sRGB }
        let curve = ColorSource.ToneCurve(h273: Int(header.transfer))
        var xy = withUnsafeBytes(of: header.xy) { Array($0.bindMemory(to: Double.self)) }
        // HDR without primaries said is BT.2100's, BT.2020's primaries.
        if curve.isHDR, header.primaries == 2 { xy = bt2020 }
        let srgbPrimaries = header.primaries == 1 || header.primaries == 2
        if srgbPrimaries, curve == .sRGB { return .sRGB }
        return .chromaticities(xy: srgbPrimaries && !curve.isHDR ? ColorSource.sRGBChromaticities : xy, curve: curve)
    }

    static let bt2020: [Double] = [0.3127, 0.3290, 0.708, 0.292, 0.170, 0.797, 0.131, 0.046]

    /// The tone mapping an HDR source gets, with the peak the file says.
    static func toneMapper(for source: ColorSource, data: [UInt8], light: tc_heif_light? = nil) -> HDRToneMapper? {
        guard case let .chromaticities(xy, curve) = source, curve.isHDR else { return nil }
        let properties = HEIFProperties.read(data)
        let level = light.flatMap { $0.max_content_light_level > 0 ? Double($0.max_content_light_level) : nil }
            ?? properties.maxContentLightLevel
        let mastering = light.flatMap { $0.max_mastering_luminance > 0 ? $0.max_mastering_luminance : nil }
            ?? properties.maxMasteringLuminance
        return HDRToneMapper(transfer: curve == .pq ? .pq : .hlg, xy: xy, contentLightLevel: level, masteringPeak: mastering)
    }

    /// `ownTransforms` makes the decoder apply the file's transformations itself even
    /// where libheif would (for tests of that path).
    static func decode(_ data: [UInt8], info: ImageInfo, convert: Bool = true, ownTransforms: Bool = false)
        throws(ImagingError) -> PixelBuffer
    {
        let header = try header(of: data, format: info.format)
        let source = convert ? colorSource(header, data: data) : .sRGB
        if case let .chromaticities(_, curve) = source, curve.isHDR {
            return try decodeHDR(data, info: info, source: source, ownTransforms: ownTransforms)
        }
        var image = try decodePlane(info: info, data: data, ownTransforms: ownTransforms) { (raw: Bool, width: Int, height: Int, channels: Int) throws(ImagingError) -> Plane in
            let count = try PixelBuffer.byteCount(width: width, height: height, channels: channels)
            var message = CodecShim.messageBuffer()
            var (gotWidth, gotHeight): (UInt32, UInt32) = (0, 0)
            let (bytes, status) = CodecShim.fill(count: count) { out in
                data.withUnsafeBufferPointer { input in
                    tc_heif_decode(
                        input.baseAddress, input.count, UInt32(width), UInt32(height), Int32(channels), raw ? 1 : 0,
                        out.baseAddress, out.count, width * channels, &gotWidth, &gotHeight, &message)
                }
            }
            guard status == TC_OK else { return .failure(status, message) }
            return .decoded(PixelBuffer(unchecked: Int(gotWidth), height: Int(gotHeight), channels: channels, bytes: bytes))
        }
        ColorConversion.apply(source, to: &image)
        return image
    }

    /// PQ and HLG: the samples at their own depth, tone-mapped to 8-bit sRGB.
    static func decodeHDR(_ data: [UInt8], info: ImageInfo, source: ColorSource, ownTransforms: Bool)
        throws(ImagingError) -> PixelBuffer
    {
        var light = tc_heif_light()
        return try decodePlane(info: info, data: data, ownTransforms: ownTransforms) { (raw: Bool, width: Int, height: Int, channels: Int) throws(ImagingError) -> Plane in
            let (count, overflow) = width.multipliedReportingOverflow(by: height * channels)
            guard !overflow, count <= Int.max / 2 else { return .error(.tooManyPixels(width: width, height: height, limit: Int.max / 8)) }
            var message = CodecShim.messageBuffer()
            var status = TC_ERR_ARGUMENT
            var (gotWidth, gotHeight): (UInt32, UInt32) = (0, 0)
            let samples = [UInt16](unsafeUninitializedCapacity: count) { buffer, initialized in
                status = data.withUnsafeBufferPointer { input in
                    tc_heif_decode16(
                        input.baseAddress, input.count, UInt32(width), UInt32(height), Int32(channels), raw ? 1 : 0,
                        buffer.baseAddress, count * 2, width * channels * 2, &gotWidth, &gotHeight, &light, &message)
                }
                initialized = status == TC_OK ? count : 0
            }
            guard status == TC_OK else { return .failure(status, message) }
            guard let mapper = toneMapper(for: source, data: data, light: light) else {
                return .error(.invalidArgument("not an HDR source"))
            }
            let image = samples.withUnsafeBufferPointer { buffer in
                mapper.map(buffer, width: Int(gotWidth), height: Int(gotHeight), channels: channels,
                           bitDepth: Int(max(8, light.bit_depth)))
            }
            return .decoded(image)
        }
    }

    enum Plane {
        case decoded(PixelBuffer)
        case failure(tc_status, [CChar])
        case error(ImagingError)
    }

    /// Runs `decode` (raw: without libheif's transformations; the size to ask for)
    /// as libheif should; when its plane comes back in another size, or when asked,
    /// decodes the coded image and applies the transformations here.
    static func decodePlane(
        info: ImageInfo, data: [UInt8], ownTransforms: Bool,
        _ decode: (_ raw: Bool, _ width: Int, _ height: Int, _ channels: Int) throws(ImagingError) -> Plane
    ) throws(ImagingError) -> PixelBuffer {
        if !ownTransforms {
            switch try decode(false, info.width, info.height, info.channels) {
            case .decoded(let image): return image
            case .error(let error): throw error
            case .failure(let status, let message) where status != TC_ERR_LAYOUT:
                throw CodecShim.decodeError(status, message, format: info.format)
            case .failure:
                break
            }
        }
        let properties = HEIFProperties.read(data)
        guard let coded = properties.codedSize, coded.width > 0, coded.height > 0 else {
            throw .corrupt(info.format, "libheif returned an unexpected plane and the file has no readable ispe size")
        }
        // The coded image is the shown one before its turns and crop: no more pixels, or
        // not many more (a clean aperture crops a little).
        let (pixels, overflow) = coded.width.multipliedReportingOverflow(by: coded.height)
        guard !overflow, pixels <= max(info.width * info.height * 4, 1 << 16) else {
            throw .corrupt(info.format, "a coded size of \(coded.width)x\(coded.height) for a \(info.width)x\(info.height) image")
        }
        switch try decode(true, coded.width, coded.height, info.channels) {
        case .decoded(let image):
            // What the transformations make is the image, whatever size libheif's handle
            // claimed (it takes a writer's turned ispe at its word).
            return try HEIFProperties.apply(properties.transforms, to: image)
        case .error(let error): throw error
        case .failure(let status, let message): throw CodecShim.decodeError(status, message, format: info.format)
        }
    }
}
