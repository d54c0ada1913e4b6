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
    /// Warnings that mean lost or damaged pixels (libjpeg fills grey and carries on)
    /// are errors here: a cache must not keep a half-grey image as if it were the real one.
    static func decode(_ data: [UInt8], scaleDenominator: Int, convert: Bool = true) throws(ImagingError) -> PixelBuffer {
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
        if report.truncated != 0 { throw .truncated(.jpeg) }
        if report.damaging_warnings > 0 { throw .corrupt(.jpeg, Self.reason(CodecShim.text(message))) }
        var image = PixelBuffer(unchecked: Int(width), height: Int(height), channels: 3, bytes: bytes)
        if !cmyk, let transform { transform.apply(to: &image) }
        return image
    }

    /// libjpeg's warning text without its own "Corrupt JPEG data: " prefix,
    /// which ``ImagingError/corrupt(_:_:)`` already says.
    static func reason(_ warning: String) -> String {
        let prefix = "Corrupt JPEG data: "
        return warning.hasPrefix(prefix) ? String(warning.dropFirst(prefix.count)) : warning
    }
}
