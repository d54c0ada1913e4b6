import FuzzChecks
import FuzzSupport

// libFuzzer's entry points for `ServerCheck`; SwiftPM links `main` to `fuzz_server_main`.
@_cdecl("fuzz_server_main")
public func start(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt { FuzzEntry.main(argc, argv, fuzzOneInput) }
@_cdecl("LLVMFuzzerInitialize")
public func initialize(_ argc: UnsafeMutableRawPointer?, _ argv: UnsafeMutableRawPointer?) -> CInt { FuzzEntry.initialize(ServerCheck.self) }
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt { FuzzEntry.run(ServerCheck.self, data, size) }
