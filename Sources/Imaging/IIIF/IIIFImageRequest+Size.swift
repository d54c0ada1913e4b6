extension IIIFImageRequest {
    /// How to scale the extracted region (spec 4.2). Each form may carry the
    /// `^` prefix (``upscale``), without which the output may not exceed the region.
    public struct Size: Sendable, Hashable {
        public enum Form: Sendable, Hashable {
            /// `max`: the region's size, reduced to fit the limits (with `^`: grown to them).
            case max
            /// `w,`: exactly this wide, height keeping the aspect ratio.
            case width(Int)
            /// `,h`: exactly this tall, width keeping the aspect ratio.
            case height(Int)
            /// `pct:n`: n percent of the region on both axes.
            case percent(Double)
            /// `w,h`: exactly this size, distorting if need be.
            case exact(width: Int, height: Int)
            /// `!w,h`: as large as possible within the box, keeping the aspect ratio.
            case confined(width: Int, height: Int)
        }

        public var form: Form
        /// The `^` prefix: the request may enlarge the region.
        public var upscale: Bool

        public init(_ form: Form, upscale: Bool = false) {
            self.form = form
            self.upscale = upscale
        }

        /// Parses one `{size}` path segment.
        public static func parse(_ text: some StringProtocol) throws(IIIFRequestError) -> Size {
            let original = Substring(text)
            var text = original
            let upscale = text.hasPrefix("^")
            if upscale { text = text.dropFirst() }
            if text == "max" { return Size(.max, upscale: upscale) }
            if text.hasPrefix("pct:") {
                guard let value = IIIFRequestNumber.decimal(text.dropFirst(4)) else {
                    throw .badRequest("size \"\(original)\" is not pct:n with a non-negative number")
                }
                return Size(.percent(value), upscale: upscale)
            }
            let confined = text.hasPrefix("!")
            if confined { text = text.dropFirst() }
            let parts = text.split(separator: ",", omittingEmptySubsequences: false)
            guard parts.count == 2 else { throw syntaxError(original) }
            let width = parts[0].isEmpty ? nil : IIIFRequestNumber.integer(parts[0])
            let height = parts[1].isEmpty ? nil : IIIFRequestNumber.integer(parts[1])
            // A non-empty part that is not a number is garbage, not an omitted value.
            if (!parts[0].isEmpty && width == nil) || (!parts[1].isEmpty && height == nil) {
                throw syntaxError(original)
            }
            switch (width, height, confined) {
            case let (w?, h?, false): return Size(.exact(width: w, height: h), upscale: upscale)
            case let (w?, h?, true): return Size(.confined(width: w, height: h), upscale: upscale)
            case let (w?, nil, false): return Size(.width(w), upscale: upscale)
            case let (nil, h?, false): return Size(.height(h), upscale: upscale)
            default: throw syntaxError(original)
            }
        }

        private static func syntaxError(_ text: Substring) -> IIIFRequestError {
            .badRequest("size \"\(text)\" is not max, w,, ,h, pct:n, w,h or !w,h (optionally prefixed with ^)")
        }

        /// The output size for a region of `regionWidth` x `regionHeight`
        /// pixels under `limits`, before rotation.
        public func resolve(
            regionWidth rw: Int, regionHeight rh: Int, limits: IIIFRequestLimits
        ) throws(IIIFRequestError) -> (width: Int, height: Int) {
            guard rw > 0, rh > 0 else { throw .badRequest("the region has no pixels") }
            let size: (width: Int, height: Int)
            switch form {
            case .max:
                // Both forms shrink to the limits rather than failing (spec 4.2).
                return limits.fit(width: rw, height: rh, upscale: upscale)
            case .confined(let w, let h):
                guard w > 0, h > 0 else { throw .badRequest("size !\(w),\(h) has a zero dimension") }
                if upscale, w > rw, h > rh, !limits.allowsUpscaling {
                    throw .notImplemented("upscaling is only offered by services that announce maxWidth or maxArea")
                }
                return limits.fit(width: rw, height: rh, box: (w, h), upscale: upscale)
            case .width(let w):
                guard w > 0 else { throw .badRequest("size width must be at least 1") }
                size = (w, IIIFRequestNumber.pixels(Double(rh) * Double(w) / Double(rw)))
            case .height(let h):
                guard h > 0 else { throw .badRequest("size height must be at least 1") }
                size = (IIIFRequestNumber.pixels(Double(rw) * Double(h) / Double(rh)), h)
            case .percent(let n):
                guard n > 0 else { throw .badRequest("size pct:0 has no pixels") }
                guard upscale || n <= 100 else {
                    throw .badRequest("size pct:\(n) is over 100: enlarging needs the ^ prefix")
                }
                size = (IIIFRequestNumber.pixels(Double(rw) * n / 100), IIIFRequestNumber.pixels(Double(rh) * n / 100))
            case .exact(let w, let h):
                guard w > 0, h > 0 else { throw .badRequest("size \(w),\(h) has a zero dimension") }
                size = (w, h)
            }
            let enlarges = size.width > rw || size.height > rh
            if enlarges {
                guard upscale else {
                    throw .badRequest(
                        "size \(size.width)x\(size.height) is larger than the \(rw)x\(rh) region: enlarging needs the ^ prefix")
                }
                guard limits.allowsUpscaling else {
                    throw .notImplemented("upscaling is only offered by services that announce maxWidth or maxArea")
                }
            }
            guard limits.admits(width: size.width, height: size.height) else {
                throw .tooLarge("size \(size.width)x\(size.height) exceeds the service's limits (\(limits.summary))")
            }
            return size
        }
    }
}

extension IIIFRequestLimits {
    /// `!w,h`: the largest size keeping the region's aspect ratio inside the
    /// box, the limits and (without `^`) the region itself. The side that
    /// touches the box matches it exactly, with no rounding drift.
    func fit(width rw: Int, height rh: Int, box: (width: Int, height: Int), upscale: Bool) -> (width: Int, height: Int) {
        let scaleX = Double(box.width) / Double(rw)
        let scaleY = Double(box.height) / Double(rh)
        if !upscale, scaleX >= 1, scaleY >= 1 {
            return fit(width: rw, height: rh, upscale: false)
        }
        let size: (width: Int, height: Int) = scaleX <= scaleY
            ? (box.width, min(box.height, IIIFRequestNumber.pixels(Double(rh) * scaleX)))
            : (min(box.width, IIIFRequestNumber.pixels(Double(rw) * scaleY)), box.height)
        if admits(width: size.width, height: size.height) { return size }
        return fit(width: size.width, height: size.height, upscale: false)
    }

    /// The limits as `info.json` names them, for error messages.
    var summary: String {
        var parts: [String] = []
        if let maxWidth { parts.append("maxWidth \(maxWidth)") }
        if let maxHeight = effectiveMaxHeight { parts.append("maxHeight \(maxHeight)") }
        if let maxArea { parts.append("maxArea \(maxArea)") }
        return parts.isEmpty ? "none" : parts.joined(separator: ", ")
    }
}
