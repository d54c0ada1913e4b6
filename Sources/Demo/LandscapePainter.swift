struct LandscapePainter: ScenePainter {
    let width: Int
    let height: Int
    let texture: NoiseSpec
    /// Per range (far to near): the y of its ridge line at every column.
    let ridges: [[Float]]
    let rangeColors: [Color]
    let haze: [Float]
    let skyTop: Color
    let skyHorizon: Color
    let sunColor: Color
    let cloudColor: Color
    let sunX: Float
    let sunY: Float
    let sunRadius: Float
    let horizonY: Float

    init(width: Int, height: Int, seed: UInt64) {
        var seeds = SplitMix64(seed: seed ^ 0x4C41_4E44)
        self.width = width
        self.height = height
        let h = Float(height)
        texture = NoiseSpec(seeds: &seeds, coarsest: NoiseSpec.coarsestShift(size: max(width, height), fraction: 0.12))
        let dusk = seeds.float(0...1)
        skyTop = mix(Color(0.14, 0.34, 0.75), Color(0.10, 0.10, 0.32), dusk)
        skyHorizon = mix(Color(0.70, 0.82, 0.95), Color(0.98, 0.62, 0.40), dusk)
        sunColor = mix(Color(1.0, 0.96, 0.80), Color(1.0, 0.80, 0.50), dusk)
        cloudColor = mix(Color(0.97, 0.97, 1.0), Color(0.95, 0.65, 0.58), dusk)
        sunX = seeds.float(0.15...0.85) * Float(width)
        sunY = seeds.float(0.10...0.30) * h
        sunRadius = max(2, 0.04 * Float(min(width, height)))
        horizonY = h * 0.58
        let rock = seeds.color(0.36...0.48, 0.36...0.46, 0.40...0.52)
        rangeColors = [rock, rock * Color(0.72, 0.78, 0.70), seeds.color(0.16...0.26, 0.30...0.40, 0.12...0.18)]
        haze = [0.45, 0.22, 0.04]

        // Ridge lines: 1-D noise with little fine tile, so they are jagged but not spiky.
        let ridgeSpec = NoiseSpec(seeds: &seeds, coarsest: NoiseSpec.coarsestShift(size: width, fraction: 0.3),
                                  persistence: 0.55, fineAmplitude: 0.02)
        var line = RowNoise(ridgeSpec, width: width)
        var ridges: [[Float]] = []
        for range in 0..<3 {
            line.fill(row: range * 9_973)
            let baseY = h * (0.58 + 0.11 * Float(range))
            let amplitude = h * [0.42, 0.26, 0.12][range]
            ridges.append(line.values.map { v in
                let m = clamp01((v - 0.22) * 1.8)
                return baseY - amplitude * (range == 0 ? m * m * (3 - 2 * m) : m)
            })
        }
        self.ridges = ridges
    }

    func paint(rows: Range<Int>, into canvas: Canvas) {
        var noise = RowNoise(texture, width: width)
        let invHorizon = 1 / horizonY
        let invSun2 = 1 / (sunRadius * sunRadius)
        let invHeight = 1 / Float(height)
        ridges[0].withUnsafeBufferPointer { far in
            ridges[1].withUnsafeBufferPointer { mid in
                ridges[2].withUnsafeBufferPointer { near in
                    for y in rows {
                        noise.fill(row: y)
                        let fy = Float(y)
                        let v = clamp01(fy * invHorizon)
                        let sky = mix(skyTop, skyHorizon, v * v)
                        let cloudiness = 1 - 0.8 * v
                        noise.values.withUnsafeBufferPointer { t in
                            for x in 0..<width {
                                let n = t[x]
                                let c: Color
                                if fy >= near[x] {
                                    c = ground(range: 2, depth: (fy - near[x]) * invHeight, n: n)
                                } else if fy >= mid[x] {
                                    c = ground(range: 1, depth: (fy - mid[x]) * invHeight, n: n)
                                } else if fy >= far[x] {
                                    c = ground(range: 0, depth: (fy - far[x]) * invHeight, n: n,
                                               altitude: 1 - fy * invHeight)
                                } else {
                                    c = skyPixel(x: Float(x), y: fy, base: sky, cloudiness: cloudiness, n: n,
                                                 invSun2: invSun2)
                                }
                                canvas.set(x, y, c)
                            }
                        }
                    }
                }
            }
        }
    }

    @inline(__always)
    private func skyPixel(x: Float, y: Float, base: Color, cloudiness: Float, n: Float, invSun2: Float) -> Color {
        let dx = x - sunX
        let dy = y - sunY
        let d2 = (dx * dx + dy * dy) * invSun2
        if d2 < 1 { return sunColor * 1.1 }
        let c = base + sunColor * (0.6 / (1 + d2 * 0.15))
        let cloud = clamp01((n - 0.52) * 5.5) * cloudiness
        return mix(c, cloudColor * (0.75 + 0.5 * n), cloud)
    }

    /// Rock or grass lit from above, darker further below the ridge, snow-capped
    /// high up (`altitude` 0 at the bottom edge, 1 at the top), faded by haze with distance.
    @inline(__always)
    private func ground(range: Int, depth: Float, n: Float, altitude: Float = 0) -> Color {
        var c = rangeColors[range] * (0.45 + 1.1 * n - min(depth, 0.3))
        if altitude + 0.25 * (n - 0.5) > 0.66 {
            c = mix(c, Color(0.96, 0.97, 1.0) * (0.8 + 0.4 * n), 0.85)   // snow on the high peaks
        }
        return mix(c, skyHorizon, haze[range])
    }
}
