struct PortraitPainter: ScenePainter {
    let width: Int
    let height: Int
    let texture: NoiseSpec
    let background: (Color, Color)
    let skin: Color
    let hair: Color
    let shirt: Color
    let iris: Color
    let headWidth: Float
    let hairLength: Float

    init(width: Int, height: Int, seed: UInt64) {
        var seeds = SplitMix64(seed: seed ^ 0x504F_5254)
        self.width = width
        self.height = height
        texture = NoiseSpec(seeds: &seeds, coarsest: NoiseSpec.coarsestShift(size: max(width, height), fraction: 0.2))
        background = (seeds.color(0.2...0.9, 0.2...0.9, 0.2...0.9), seeds.color(0.1...0.6, 0.1...0.6, 0.1...0.6))
        let tone = seeds.float(0...1)
        skin = mix(Color(0.96, 0.80, 0.68), Color(0.42, 0.28, 0.20), tone)
        hair = seeds.color(0.05...0.6, 0.03...0.4, 0.02...0.3)
        shirt = seeds.color(0.1...0.9, 0.1...0.9, 0.1...0.9)
        iris = seeds.color(0.1...0.5, 0.2...0.6, 0.2...0.7)
        headWidth = seeds.float(0.36...0.44)
        hairLength = seeds.float(-0.05...0.45)
    }

    func paint(rows: Range<Int>, into canvas: Canvas) {
        var noise = RowNoise(texture, width: width)
        let sx = 2 / Float(width)
        let sy = 2 / Float(height)
        for y in rows {
            noise.fill(row: y)
            let v = Float(y) * sy - 1
            noise.values.withUnsafeBufferPointer { t in
                for x in 0..<width {
                    canvas.set(x, y, pixel(u: Float(x) * sx - 1, v: v, n: t[x]))
                }
            }
        }
    }

    /// Squared elliptical distance: below 1 inside the ellipse.
    @inline(__always)
    private func inside(_ u: Float, _ v: Float, cx: Float, cy: Float, rx: Float, ry: Float) -> Float {
        let du = (u - cx) * (1 / rx)
        let dv = (v - cy) * (1 / ry)
        return du * du + dv * dv
    }

    @inline(__always)
    private func pixel(u: Float, v: Float, n: Float) -> Color {
        let grain = 0.85 + 0.3 * n
        let head = inside(u, v, cx: 0, cy: -0.08, rx: headWidth, ry: 0.52)
        let hairShape = inside(u, v, cx: 0, cy: -0.2, rx: headWidth + 0.07, ry: 0.55)
        let hairline = -0.38 + 0.06 * (u * u) * 8
        // Eyes and mouth sit on the face, above everything else.
        if head < 1 {
            let eyeX: Float = u < 0 ? -0.16 : 0.16
            if inside(u, v, cx: eyeX, cy: -0.06, rx: 0.075, ry: 0.042) < 1 {
                let pupil = inside(u, v, cx: eyeX, cy: -0.06, rx: 0.032, ry: 0.032)
                if pupil < 0.3 { return Color(0.03, 0.03, 0.04) }
                if pupil < 1 { return iris * grain }
                return Color(0.95, 0.95, 0.93) * (0.92 + 0.1 * n)
            }
            let mouth = inside(u, v, cx: 0, cy: 0.24, rx: 0.16, ry: 0.05)
            if mouth < 1, v > 0.235 { return Color(0.65, 0.25, 0.28) * grain }
            if v < hairline, hairShape < 1 { return hair * (0.6 + 0.8 * n) }
            let light = 1.05 - 0.45 * clamp01(((u + 0.35) * (u + 0.35) + (v + 0.4) * (v + 0.4)) * 0.8)
            return skin * light * (0.93 + 0.14 * n)
        }
        if hairShape < 1, v < hairLength { return hair * (0.55 + 0.9 * n) }
        let body = inside(u, v, cx: 0, cy: 1.25, rx: 0.95, ry: 0.62)
        if body < 1 {
            if abs(u) * 1.8 < 0.72 - v { return skin * 0.8 * grain }   // the collar's V
            return shirt * (0.7 + 0.4 * n - 0.2 * body)
        }
        if abs(u) < 0.15, v > 0.2 { return skin * 0.78 * grain }
        let g = clamp01((v + 1) * 0.5)
        return mix(background.0, background.1, g) * (0.8 + 0.4 * n)
    }
}
