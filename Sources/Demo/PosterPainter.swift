struct PosterPainter: ScenePainter {
    let width: Int
    let height: Int
    let texture: NoiseSpec
    let skyTop: Color
    let skyBottom: Color
    let sunTop: Color
    let sunBottom: Color
    let grid: Color
    let horizon: Float
    let sunRadius: Float
    let sunX: Float
    let speed: Float

    init(width: Int, height: Int, seed: UInt64) {
        var seeds = SplitMix64(seed: seed ^ 0x504F_5354)
        self.width = width
        self.height = height
        texture = NoiseSpec(seeds: &seeds, coarsest: NoiseSpec.coarsestShift(size: max(width, height), fraction: 0.15))
        skyTop = seeds.color(0.02...0.15, 0.0...0.1, 0.15...0.4)
        skyBottom = seeds.color(0.6...0.95, 0.15...0.4, 0.4...0.7)
        sunTop = Color(1.0, 0.9, 0.35)
        sunBottom = seeds.color(0.9...1.0, 0.2...0.4, 0.4...0.7)
        grid = seeds.color(0.3...1.0, 0.3...1.0, 0.8...1.0)
        horizon = seeds.float(0.55...0.68) * Float(height)
        sunRadius = seeds.float(0.22...0.32) * Float(min(width, height))
        sunX = seeds.float(0.35...0.65) * Float(width)
        speed = seeds.float(0...1)
    }

    func paint(rows: Range<Int>, into canvas: Canvas) {
        var noise = RowNoise(texture, width: width)
        let invH = 1 / Float(height)
        for y in rows {
            noise.fill(row: y)
            let fy = Float(y)
            noise.values.withUnsafeBufferPointer { t in
                if fy < horizon {
                    let sky = mix(skyTop, skyBottom, clamp01(fy / horizon))
                    let dy = fy - (horizon - sunRadius * 0.35)
                    let stripe = sunStripe(dy: dy)
                    for x in 0..<width {
                        let dx = Float(x) - sunX
                        var c = sky
                        if dx * dx + dy * dy < sunRadius * sunRadius, stripe {
                            c = mix(sunTop, sunBottom, clamp01((dy + sunRadius) / (2 * sunRadius)))
                        }
                        let star = t[x] > 0.78 ? (t[x] - 0.78) * 4 * clamp01(1 - fy / horizon) : 0
                        canvas.set(x, y, c * (0.92 + 0.16 * t[x]) + Color(star, star, star))
                    }
                } else {
                    let depth = max(fy - horizon, 0.5)
                    let z = Float(height) * 0.35 / depth + speed * 4
                    let zLine = abs(z - z.rounded()) < 0.035 * (1 + z * 0.15)
                    let fade = clamp01(depth * invH * 4)
                    for x in 0..<width {
                        let worldX = (Float(x) - sunX) / depth * 0.6
                        let xLine = abs(worldX - worldX.rounded()) < 0.03 * (1 + 1 / (depth * invH * 8 + 0.1))
                        let floor = skyTop * (0.6 + 0.5 * t[x])
                        let c = xLine || zLine ? mix(floor, grid, fade * 0.9 + 0.1) : floor
                        canvas.set(x, y, c)
                    }
                }
            }
        }
    }

    /// The retro sun's horizontal cut-outs, widening towards the horizon.
    @inline(__always)
    private func sunStripe(dy: Float) -> Bool {
        guard dy > -sunRadius * 0.1 else { return true }
        let band = sunRadius * 0.12
        let phase = (dy / band).truncatingRemainder(dividingBy: 1)
        return phase > clamp01(dy / sunRadius) * 0.6 + 0.1
    }
}
