internal import CTweetCache

/// PNG reading through the C shim (libpng, classic API).
enum PNGDecoder {
    static func info(of data: [UInt8]) throws(ImagingError) -> ImageInfo {
        let header = try header(of: data)
        let hasAlpha = header.has_alpha != 0
        return ImageInfo(
            format: .png, width: Int(header.width), height: Int(header.height),
            channels: hasAlpha ? 4 : 3, hasAlpha: hasAlpha,
            orientation: ImageOrientation(rawValue: Int(header.orientation)) ?? .up, progressive: header.interlaced != 0
        )
    }

    static func header(of data: [UInt8]) throws(ImagingError) -> tc_png_info {
        var header = tc_png_info()
        var message = CodecShim.messageBuffer()
        let status = data.withUnsafeBufferPointer { bytes in
            tc_png_read_header(bytes.baseAddress, bytes.count, &header, &message)
        }
        guard status == TC_OK else { throw CodecShim.decodeError(status, message, format: .png) }
        return header
    }

    /// The PNG spec's precedence: iCCP, then sRGB, then cHRM with gAMA (gAMA alone
    /// keeps sRGB's primaries). A gAMA within 1% of 1/2.2, alone or with sRGB's
    /// primaries, is read as sRGB (what its writers meant), so the common
    /// "gAMA 0.45455" PNG costs no transform.
    static func colorSource(of data: [UInt8]) -> ColorSource {
        var color = tc_png_color()
        var message = CodecShim.messageBuffer()
        let status = data.withUnsafeBufferPointer { bytes in
            tc_png_read_color(bytes.baseAddress, bytes.count, &color, &message)
        }
        guard status == TC_OK else { return .sRGB }
        let profile = CodecShim.takeEncoded(color.icc, count: color.icc_len)
        if !profile.isEmpty { return .iccProfile(profile) }
        if color.srgb != 0 { return .sRGB }
        let chromaticities: [Double]? = color.has_chrm != 0
            ? withUnsafeBytes(of: color.chrm) { Array($0.bindMemory(to: Double.self)) } : nil
        let gamma = color.has_gamma != 0 && color.gamma > 0 ? 1 / color.gamma : nil
        // gAMA 0.45455 with sRGB's primaries (or none) is how many writers say "sRGB": read it so.
        let srgbLike = gamma.map { abs($0 - 2.2) < 0.022 } ?? true
        let srgbPrimaries = chromaticities.map {
            zip($0, ColorSource.sRGBChromaticities).allSatisfy { abs($0 - $1) < 0.01 }
        } ?? true
        switch (chromaticities, gamma) {
        case (nil, nil): return .sRGB
        case _ where srgbLike && srgbPrimaries: return .sRGB
        case (let xy, let gamma):
            return .chromaticities(
                xy: xy ?? ColorSource.sRGBChromaticities, curve: gamma.map { .gamma($0) } ?? .sRGB)
        }
    }

    /// Decodes to 8-bit RGB or RGBA (`info.channels`), converted to sRGB when
    /// `convert` and the file describes other colours; the caller has already
    /// checked `info`'s size against its pixel limit. A non-interlaced 16-bit
    /// file reaches the colour transform with all 16 bits, so it is rounded to
    /// 8 once, after conversion, and smooth gradients keep every level.
    ///
    /// An ancillary chunk whose checksum is wrong is skipped, as browsers skip it,
    /// and said in ``DecodedImage/damage``; a critical chunk's is an error.
    static func decode(_ data: [UInt8], info: ImageInfo, convert: Bool = true) throws(ImagingError) -> DecodedImage {
        let count = try PixelBuffer.byteCount(width: info.width, height: info.height, channels: info.channels)
        var transform: ColorTransform?
        if convert, case let source = colorSource(of: data), source != .sRGB {
            let header = try header(of: data)
            let sixteen = header.bit_depth == 16 && header.interlaced == 0
            transform = try? ColorTransform.make(
                source, input: .init(channels: info.channels, sixteenBit: sixteen), outChannels: info.channels).get()
        }
        var message = CodecShim.messageBuffer()
        var warnings = 0
        let (bytes, status) = withExtendedLifetime(transform) {
            CodecShim.fill(count: count) { out in
                data.withUnsafeBufferPointer { input in
                    tc_png_decode(
                        input.baseAddress, input.count, Int32(info.channels),
                        out.baseAddress, out.count, info.width * info.channels, transform?.handle, &warnings, &message)
                }
            }
        }
        guard status == TC_OK else { throw CodecShim.decodeError(status, message, format: .png) }
        let image = PixelBuffer(unchecked: info.width, height: info.height, channels: info.channels, bytes: bytes)
        let warning = warnings > 0 ? CodecShim.text(message) : ""
        guard warning.contains("CRC error") else { return DecodedImage(image: image) }
        let chunk = warning.split(separator: ":").first.map(String.init) ?? "an ancillary chunk"
        return DecodedImage(image: image, damage: ImageDamage(
            format: .png, reason: "the \(chunk) chunk's checksum is wrong; the chunk is skipped, the pixels are whole"))
    }
}
