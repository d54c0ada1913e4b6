@testable import TileServer

/// Runs `body` with the server `start` makes and stops it when `body` ends, however
/// it ends, before the test does: a server never outlives its test (an unstructured
/// `defer { Task { await server.stop() } }` could, holding its port and threads into
/// the next test), as HummingbirdTesting's `app.test` scopes its server.
func withServer(
    _ start: @autoclosure () async throws -> TileServer, _ body: (TileServer) async throws -> Void
) async throws {
    let server = try await start()
    do {
        try await body(server)
    } catch {
        await server.stop()
        throw error
    }
    await server.stop()
}
