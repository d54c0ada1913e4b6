import FuzzChecks
import FuzzSupport

// libFuzzer's entry points for `PackCheck`; SwiftPM links `main` to `fuzz_pack_main`.
@_cdecl("fuzz_pack_main")
public func start(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt { FuzzEntry.main(argc, argv, fuzzOneInput) }
@_cdecl("LLVMFuzzerInitialize")
public func initialize(_ argc: UnsafeMutableRawPointer?, _ argv: UnsafeMutableRawPointer?) -> CInt { FuzzEntry.initialize(PackCheck.self) }
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt { FuzzEntry.run(PackCheck.self, data, size) }
