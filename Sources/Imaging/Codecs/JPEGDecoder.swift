internal import CTweetCache

/// JPEG reading through the C shim (libjpeg-turbo).
enum JPEGDecoder {
    static func info(of data: [UInt8]) throws(ImagingError) -> ImageInfo {
        let header = try header(of: data)
        return ImageInfo(
            format: .jpeg, width: Int(header.width), height: Int(header.height),
            channels: 3, hasAlpha: false,
            orientation: ImageOrientation(rawValue: Int(header.orientation)) ?? .up,
            progressive: header.progressive != 0
        )
    }

    static func header(of data: [UInt8]) throws(ImagingError) -> tc_jpeg_info {
        var header = tc_jpeg_info()
        var message = CodecShim.messageBuffer()
        let status = data.withUnsafeBufferPointer { bytes in
            tc_jpeg_read_header(bytes.baseAddress, bytes.count, &header, &message)
        }
        guard status == TC_OK else { throw CodecShim.decodeError(status, message, format: .jpeg) }
        return header
    }

    /// The APP2 ICC profile, or `.sRGB` when there is none (or its chunks do not reassemble).
    static func colorSource(of data: [UInt8]) -> ColorSource { CodecShim.profile(in: data, tc_jpeg_read_icc) }

    /// The layout libjpeg hands the colour transform: RGB for YCbCr, RGB and grey
    /// files, ink values (inverted when an Adobe marker says so) for CMYK and YCCK.
    static func transformInput(_ header: tc_jpeg_info) -> ColorTransform.Input {
        guard header.color == TC_JPEG_COLOR_CMYK || header.color == TC_JPEG_COLOR_YCCK else { return .rgb8 }
        return header.adobe_inverted != 0 ? .cmyk8Inverted : .cmyk8
    }

    /// Decodes to RGB at 1/`scaleDenominator` size, converted to sRGB when
    /// `convert` and the file has a usable profile. CMYK and YCCK files go through
    /// their profile row by row inside the decoder; without one (or with one that
    /// does not describe CMYK) they use the naive inversion browsers use for
    /// untagged CMYK, so the result never depends on profiles installed on a machine.
    ///
    /// Damaged data decodes as browsers show it: libjpeg fills what it could not
    /// read (bad entropy data, or data that ends before the image does) and carries
    /// on, and the result says so in ``DecodedImage/damage``. Data that ends before
    /// a single row could be decoded is refused: there is nothing of the image to show.
    static func decode(_ data: [UInt8], scaleDenominator: Int, convert: Bool = true) throws(ImagingError) -> DecodedImage {
        var message = CodecShim.messageBuffer()
        var width: UInt32 = 0
        var height: UInt32 = 0
        let sizeStatus = data.withUnsafeBufferPointer { bytes in
            tc_jpeg_scaled_size(bytes.baseAddress, bytes.count, Int32(scaleDenominator), &width, &height, &message)
        }
        guard sizeStatus == TC_OK else { throw CodecShim.decodeError(sizeStatus, message, format: .jpeg) }
        let count = try PixelBuffer.byteCount(width: Int(width), height: Int(height), channels: 3)
        var transform: ColorTransform?
        var cmyk = false
        if convert, case let source = colorSource(of: data), source != .sRGB {
            let header = try header(of: data)
            let input = transformInput(header)
            cmyk = input != .rgb8
            transform = try? ColorTransform.make(source, input: input, outChannels: 3).get()
        }
        var report = tc_jpeg_decode_report()
        let cmykTransform = cmyk ? transform : nil
        // The transform must outlive the C call that holds its handle.
        let (bytes, status) = withExtendedLifetime(cmykTransform) {
            CodecShim.fill(count: count) { out in
                data.withUnsafeBufferPointer { input in
                    tc_jpeg_decode(
                        input.baseAddress, input.count, Int32(scaleDenominator), 3,
                        out.baseAddress, out.count, Int(width) * 3, cmykTransform?.handle, &report, &message)
                }
            }
        }
        guard status == TC_OK else { throw CodecShim.decodeError(status, message, format: .jpeg) }
        let damage = try Self.damage(report, warning: CodecShim.text(message))
        var image = PixelBuffer(unchecked: Int(width), height: Int(height), channels: 3, bytes: bytes)
        if !cmyk, let transform { transform.apply(to: &image) }
        return DecodedImage(image: image, damage: damage)
    }

    /// What a decode that libjpeg finished says about the file: nil when it is
    /// whole (a missing end marker after the last row costs nothing), a damage
    /// otherwise; throws when the data ran out before the first row.
    static func damage(_ report: tc_jpeg_decode_report, warning: String) throws(ImagingError) -> ImageDamage? {
        var reasons: [String] = []
        if report.damaging_warnings > 0 {
            let count = report.damaging_warnings == 1 ? "" : " (\(report.damaging_warnings) warnings)"
            reasons.append(Self.reason(warning) + count + "; the damaged blocks are filled")
        }
        switch tc_jpeg_phase(UInt32(report.missing_phase)) {
        case TC_JPEG_PHASE_NONE, TC_JPEG_PHASE_FINISH:
            break
        case TC_JPEG_PHASE_ROWS:
            guard report.missing_row > 0 || report.damaging_warnings > 0 else { throw .truncated(.jpeg) }
            reasons.append("the data ends after row \(report.missing_row) of \(report.height); the rest is filled")
        default:
            guard report.missing_scan > 1 || report.damaging_warnings > 0 else { throw .truncated(.jpeg) }
            reasons.append("the data ends in scan \(report.missing_scan) of a progressive file; the later scans' detail is missing")
        }
        return reasons.isEmpty ? nil : ImageDamage(format: .jpeg, reason: reasons.joined(separator: "; "))
    }

    /// libjpeg's warning text without its own "Corrupt JPEG data: " prefix,
    /// which ``ImagingError/corrupt(_:_:)`` already says.
    static func reason(_ warning: String) -> String {
        let prefix = "Corrupt JPEG data: "
        return warning.hasPrefix(prefix) ? String(warning.dropFirst(prefix.count)) : warning
    }
}
