import FuzzChecks
import FuzzSupport

// libFuzzer's entry points for `ResultsCheck`; SwiftPM links `main` to `fuzz_results_main`.
@_cdecl("fuzz_results_main")
public func start(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt { FuzzEntry.main(argc, argv, fuzzOneInput) }
@_cdecl("LLVMFuzzerInitialize")
public func initialize(_ argc: UnsafeMutableRawPointer?, _ argv: UnsafeMutableRawPointer?) -> CInt { FuzzEntry.initialize(ResultsCheck.self) }
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt { FuzzEntry.run(ResultsCheck.self, data, size) }
