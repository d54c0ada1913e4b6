import FuzzChecks
import FuzzSupport

// libFuzzer's entry points for `DecodeCheck`; SwiftPM links `main` to `fuzz_decode_main`.
@_cdecl("fuzz_decode_main")
public func start(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt { FuzzEntry.main(argc, argv, fuzzOneInput) }
@_cdecl("LLVMFuzzerInitialize")
public func initialize(_ argc: UnsafeMutableRawPointer?, _ argv: UnsafeMutableRawPointer?) -> CInt { FuzzEntry.initialize(DecodeCheck.self) }
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt { FuzzEntry.run(DecodeCheck.self, data, size) }
