// tc-colour-set: makes the files of bench/colour-vs-vips.sh's colour test set that
// the common tools cannot write. Not a user tool.
//
//   tc-colour-set profile p3|adobe|prophoto|srgb OUT.icc      an ICC profile by Little CMS
//   tc-colour-set cmyk RAW WIDTH HEIGHT ICC OUT.jpg [--ycck 1]   ink values (vips rawsave) as a CMYK/YCCK JPEG
//   tc-colour-set chrm IN.png adobe OUT.png                    IN's stored values with gAMA + cHRM instead of a profile

import Foundation
import Imaging
import ImagingFixtures

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("tc-colour-set: \(message)\n".utf8))
    exit(2)
}

let arguments = Array(CommandLine.arguments.dropFirst())
func space(_ name: String) -> ICCProfile.Space {
    switch name {
    case "p3": .displayP3
    case "adobe": .adobeRGB
    case "prophoto": .proPhoto
    case "srgb": .sRGB
    default: fail("unknown space \(name)")
    }
}

do {
    switch arguments.first {
    case "profile" where arguments.count == 3:
        try Data(try ICCProfile.make(space(arguments[1]))).write(to: URL(fileURLWithPath: arguments[2]))
    case "cmyk" where arguments.count >= 6:
        let ink = [UInt8](try Data(contentsOf: URL(fileURLWithPath: arguments[1])))
        guard let width = Int(arguments[2]), let height = Int(arguments[3]) else { fail("bad size") }
        let icc = [UInt8](try Data(contentsOf: URL(fileURLWithPath: arguments[4])))
        let ycck = arguments.count >= 8 && arguments[6] == "--ycck" && arguments[7] == "1"
        let jpeg = try JPEGEncoder.encodeCMYK(ink: ink, width: width, height: height, ycck: ycck, quality: 95, iccProfile: icc)
        try Data(jpeg).write(to: URL(fileURLWithPath: arguments[5]))
    case "chrm" where arguments.count == 4:
        let image = try ImageDecoder.decode(
            [UInt8](try Data(contentsOf: URL(fileURLWithPath: arguments[1]))), options: .init(convertToSRGB: false))
        let target = space(arguments[2])
        let gamma: Double = switch target.curve {
        case .gamma(let g): 1 / g
        case .sRGB, .pq, .hlg: 1 / 2.2
        }
        let png = try PNGEncoder.encode(image, gamma: gamma, chromaticities: target.xy)
        try Data(png).write(to: URL(fileURLWithPath: arguments[3]))
    default:
        fail("usage: tc-colour-set profile SPACE OUT | cmyk RAW W H ICC OUT [--ycck 1] | chrm IN.png SPACE OUT.png")
    }
} catch {
    fail("\(error)")
}
