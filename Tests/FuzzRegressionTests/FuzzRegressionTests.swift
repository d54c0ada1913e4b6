import Foundation
import FuzzChecks
import Testing

/// Every input that once broke a fuzz target (`Fuzz/Regressions/<target>/`, saved with
/// its fix) and every seed goes through the same checks as under libFuzzer, on each
/// test run, without the fuzzer: a fixed finding stays fixed.
@Suite("Fuzz regressions")
struct FuzzRegressionTests {
    static let regressions = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fuzz/Regressions")

    static let names: [String] = allFuzzChecks.map { $0.name }

    static func inputs(of check: any FuzzCheck.Type) throws -> [(String, [UInt8])] {
        let folder = regressions.appendingPathComponent(check.name)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return try names.filter { !$0.hasPrefix(".") }.sorted().map { name in
            (name, Array(try Data(contentsOf: folder.appendingPathComponent(name))))
        }
    }

    @Test(arguments: FuzzRegressionTests.names)
    func seedsPass(_ name: String) throws {
        let check = try #require(allFuzzChecks.first { $0.name == name })
        let seeds = try check.seeds()
        #expect(seeds.count >= 4)
        for (seed, bytes) in seeds.sorted(by: { $0.key < $1.key }) {
            #expect(check.run(bytes) == nil, "seed \(seed)")
        }
    }

    @Test(arguments: FuzzRegressionTests.names)
    func savedFindingsStayFixed(_ name: String) throws {
        let check = try #require(allFuzzChecks.first { $0.name == name })
        for (file, bytes) in try Self.inputs(of: check) {
            #expect(check.run(bytes) == nil, "\(name)/\(file)")
        }
    }
}
