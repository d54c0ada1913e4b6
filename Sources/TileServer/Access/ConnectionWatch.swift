import Synchronization

/// Whether the client of a connection is still there: set when it hangs up
/// (end of its input, or the connection closed), read by a render that has waited
/// for a slot, which is dropped when nobody wants it any more.
///
/// The server lets a client half-close (HTTP allows a request then a shutdown of
/// its sending side), so a hang-up shows as the end of input, not as an inactive
/// channel: ``HotResponseHandler``, on every connection, watches for both.
package final class ConnectionWatch: Sendable {
    private let hungUp = Atomic(false)

    var isConnected: Bool { !hungUp.load(ordering: .relaxed) }

    func clientLeft() { hungUp.store(true, ordering: .relaxed) }

    /// The watch of the connection whose requests the current task answers (set
    /// by ``TileServerChannel`` for each connection's task); nil in router tests.
    @TaskLocal static var current: ConnectionWatch?
}
