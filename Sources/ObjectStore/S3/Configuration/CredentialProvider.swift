public import Foundation
import HTTPTypes
public import MediaFetch
import Synchronization

/// Current keys from a ``CredentialSource``: fetched when first asked for, kept, and
/// fetched again 5 minutes before temporary keys expire, so a request never goes out
/// signed with keys that lapse on the way. However many requests ask at once, one
/// fetch runs (one `credential_process`, one round of metadata requests) and they all
/// get its answer.
///
/// The answers read are those the AWS SDKs define: `credential_process` output
/// (`Version` 1; botocore `ProcessProvider`), the container endpoint's and instance
/// metadata's JSON (botocore `ContainerProvider`, `InstanceMetadataFetcher`; IMDSv2
/// only: no fall back to the token-less IMDSv1). HTTP is the caller's (`HTTPCall`), with
/// its own timeouts: a machine off EC2 must find out quickly that 169.254.169.254 is
/// not there.
public final class CredentialProvider: Sendable {
    /// One request: nil when nothing answered (refused, timed out).
    public typealias HTTPCall = @Sendable (_ request: APIRequest) async -> (status: Int, body: [UInt8])?

    public let source: CredentialSource
    private let http: HTTPCall
    private let now: @Sendable () -> Date
    private let processDeadline: Duration
    /// How long before `expiration` keys are fetched again.
    static let refreshWindow: TimeInterval = 5 * 60
    /// The most a credential process may write, or an endpoint answer.
    static let outputLimit = 64 << 10

    private struct State {
        var keys: AWSKeys?
        /// When `keys` are fetched again; nil for keys without an expiration.
        var refreshAt: Date?
        var refreshing: Task<Result<AWSKeys, AWSConfigurationError>, Never>?
    }

    private let state = Mutex(State())

    /// - Parameters:
    ///   - http: how container and instance-metadata requests are made.
    ///   - now: the clock expirations are compared with (tests move it).
    ///   - processDeadline: after this a `credential_process` is stopped and fails: a
    ///     helper waiting for a browser login must not hold requests forever.
    public init(
        source: CredentialSource,
        http: @escaping HTTPCall,
        now: @escaping @Sendable () -> Date = { Date() },
        processDeadline: Duration = .seconds(30)
    ) {
        self.source = source
        self.http = http
        self.now = now
        self.processDeadline = processDeadline
    }

    /// Where keys come from, for a debug line: `environment variables`,
    /// `profile dev in /home/u/.aws/credentials`, `credential_process of profile dev in …`,
    /// `container credentials endpoint`, `instance metadata (IMDSv2)`. Never a value.
    public var sourceDescription: String { source.description }

    /// Keys valid for at least the next few minutes (or long-lived ones).
    public func keys() async throws(AWSConfigurationError) -> AWSKeys {
        switch source {
        case let .keys(keys, _): return keys
        case .none:
            throw .noCredentials("none in the environment or the profile's files, and AWS_EC2_METADATA_DISABLED turns"
                + " instance metadata off")
        case .process, .container, .instanceMetadata: break
        }
        enum Next {
            case ready(AWSKeys)
            case wait(Task<Result<AWSKeys, AWSConfigurationError>, Never>)
        }
        let current = now()
        let next: Next = state.withLock { state in
            if let refreshing = state.refreshing { return .wait(refreshing) }
            if let keys = state.keys, state.refreshAt.map({ current < $0 }) ?? true { return .ready(keys) }
            // The fetch is a task of its own: a caller that is cancelled does not cancel
            // it for the others waiting, and its result is kept either way.
            let refreshing = Task { () -> Result<AWSKeys, AWSConfigurationError> in
                let result = await self.fetch()
                self.state.withLock { state in
                    state.refreshing = nil
                    if case let .success(keys) = result {
                        state.keys = keys
                        state.refreshAt = keys.expiration.map {
                            // Keys that arrive inside the window (or expired) are used for a
                            // little while rather than fetched again for every request.
                            max($0.addingTimeInterval(-Self.refreshWindow), self.now().addingTimeInterval(30))
                        }
                    }
                }
                return result
            }
            state.refreshing = refreshing
            return .wait(refreshing)
        }
        switch next {
        case let .ready(keys): return keys
        case let .wait(task): return try await task.value.get()
        }
    }

    private func fetch() async -> Result<AWSKeys, AWSConfigurationError> {
        do throws(AWSConfigurationError) {
            switch source {
            case let .process(command, source): return .success(try await processKeys(command: command, source: source))
            case let .container(url, authorization, file): return .success(try await containerKeys(url, authorization, file))
            case let .instanceMetadata(endpoint): return .success(try await instanceMetadataKeys(endpoint))
            case .keys, .none: throw .noCredentials("nothing to fetch")
            }
        } catch {
            return .failure(error)
        }
    }

    // MARK: credential_process

    private func processKeys(command: String, source: String) async throws(AWSConfigurationError) -> AWSKeys {
        let outcome = await CredentialProcess.run(command: command, deadline: processDeadline, limit: Self.outputLimit)
        let output: [UInt8]
        switch outcome {
        case let .exited(0, bytes): output = bytes
        case let .exited(status, _): throw .credentialProcessFailed(source: source, reason: "exited with status \(status)")
        case let .signalled(signal): throw .credentialProcessFailed(source: source, reason: "was ended by signal \(signal)")
        case .timedOut:
            throw .credentialProcessFailed(source: source, reason: "did not finish within \(processDeadline) and was stopped")
        case .tooMuchOutput:
            throw .credentialProcessFailed(source: source, reason: "wrote more than \(Self.outputLimit) bytes and was stopped")
        case let .notStarted(reason): throw .credentialProcessFailed(source: source, reason: "could not be started: \(reason)")
        }
        let object = try Self.jsonObject(output, source: source)
        // botocore: "Unsupported version '…' for credential process provider, supported versions: 1".
        guard let version = object["Version"] as? Int, version == 1 else {
            throw .malformedCredentials(source: source, reason: object["Version"] == nil
                ? "its JSON has no Version (1 is understood)" : "its JSON has a Version other than 1, the only one understood")
        }
        return try Self.keys(object, tokenKey: "SessionToken", expirationRequired: false, source: source)
    }

    // MARK: Container endpoint

    private func containerKeys(_ url: String, _ authorization: String?, _ file: String?) async throws(AWSConfigurationError) -> AWSKeys {
        let source = "container credentials endpoint"
        var headers: HTTPFields = [.accept: "application/json"]
        // The file is read again each time: EKS Pod Identity rotates the token in it.
        if let file {
            headers[.authorization] = try AWSConfiguration.containerToken(file: file)
        } else if let authorization {
            headers[.authorization] = authorization
        }
        let body = try await get(url, headers: headers, source: source)
        return try Self.keys(Self.jsonObject(body, source: source), tokenKey: "Token", expirationRequired: true, source: source)
    }

    // MARK: Instance metadata (IMDSv2)

    private func instanceMetadataKeys(_ endpoint: String) async throws(AWSConfigurationError) -> AWSKeys {
        let source = "instance metadata (IMDSv2) at \(endpoint)"
        guard let answer = await http(APIRequest(url: endpoint + "/latest/api/token", headers: [.metadataTokenTTL: "21600"], body: [],
                                                 maxBytes: Self.outputLimit, method: .put))
        else {
            throw .credentialsUnavailable(source: source, reason: "did not answer (not on EC2, or metadata is off:"
                + " set AWS_EC2_METADATA_DISABLED=true to skip it)")
        }
        guard answer.status == 200 else {
            throw .credentialsUnavailable(source: source, reason: "answered HTTP \(answer.status) to the session token request")
        }
        let token = String(decoding: answer.body.prefix(Self.outputLimit), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard !token.isEmpty, !token.contains(where: \.isNewline) else {
            throw .malformedCredentials(source: source, reason: "the session token is empty or more than one line")
        }
        let credentialsPath = endpoint + "/latest/meta-data/iam/security-credentials/"
        let headers: HTTPFields = [.metadataToken: token]
        guard let roles = await http(APIRequest(url: credentialsPath, headers: headers, maxBytes: Self.outputLimit)) else {
            throw .credentialsUnavailable(source: source, reason: "did not answer the role name request")
        }
        if roles.status == 404 {
            throw .credentialsUnavailable(source: source, reason: "has no IAM role for this instance (no instance profile attached)")
        }
        guard roles.status == 200 else {
            throw .credentialsUnavailable(source: source, reason: "answered HTTP \(roles.status) to the role name request")
        }
        let role = String(decoding: roles.body.prefix(Self.outputLimit), as: UTF8.self)
            .split(whereSeparator: \.isNewline).lazy.map { $0.trimmingCharacters(in: .whitespaces) }.first { !$0.isEmpty }
        // IAM role names: letters, digits and +=,.@_- (nothing a path needs to escape).
        let allowed = Set("+=,.@_-")
        guard let role, role.unicodeScalars.allSatisfy({ $0.isASCII && (CharacterSet.alphanumerics.contains($0) || allowed.contains(Character($0))) })
        else {
            throw .malformedCredentials(source: source, reason: "the role name is missing or not an IAM role name")
        }
        let body = try await get(credentialsPath + role, headers: headers, source: source)
        let object = try Self.jsonObject(body, source: source)
        if let code = object["Code"] as? String, code != "Success" {
            throw .credentialsUnavailable(source: source, reason: "answered Code \(code) for role \(role)")
        }
        return try Self.keys(object, tokenKey: "Token", expirationRequired: true, source: source)
    }

    // MARK: Answers

    private func get(_ url: String, headers: HTTPFields, source: String) async throws(AWSConfigurationError) -> [UInt8] {
        guard let answer = await http(APIRequest(url: url, headers: headers, maxBytes: Self.outputLimit)) else {
            throw .credentialsUnavailable(source: source, reason: "did not answer")
        }
        guard answer.status == 200 else {
            throw .credentialsUnavailable(source: source, reason: "answered HTTP \(answer.status)")
        }
        guard answer.body.count <= Self.outputLimit else {
            throw .malformedCredentials(source: source, reason: "the answer is larger than \(Self.outputLimit) bytes")
        }
        return answer.body
    }

    private static func jsonObject(_ bytes: [UInt8], source: String) throws(AWSConfigurationError) -> [String: Any] {
        guard let object = (try? JSONSerialization.jsonObject(with: Data(bytes))) as? [String: Any] else {
            // The text is not shown: it may be keys in a format not understood.
            throw .malformedCredentials(source: source, reason: "the answer is not a JSON object")
        }
        return object
    }

    /// `AccessKeyId`, `SecretAccessKey`, the token under `tokenKey`, `Expiration`.
    static func keys(
        _ object: [String: Any], tokenKey: String, expirationRequired: Bool, source: String
    ) throws(AWSConfigurationError) -> AWSKeys {
        func text(_ key: String) -> String? { (object[key] as? String).flatMap { $0.isEmpty ? nil : $0 } }
        guard let id = text("AccessKeyId") else { throw .malformedCredentials(source: source, reason: "AccessKeyId is missing") }
        guard let secret = text("SecretAccessKey") else {
            throw .malformedCredentials(source: source, reason: "SecretAccessKey is missing")
        }
        var expiration: Date?
        if let written = text("Expiration") {
            guard let date = parseTime(written) else {
                throw .malformedCredentials(source: source, reason: "Expiration '\(written)' is not an ISO 8601 time with a zone")
            }
            expiration = date
        } else if expirationRequired {
            throw .malformedCredentials(source: source, reason: "Expiration is missing")
        }
        return AWSKeys(accessKeyID: id, secretAccessKey: secret, sessionToken: text(tokenKey), expiration: expiration)
    }

    /// `2024-05-01T12:00:00Z`, with fractional seconds or an offset too.
    static func parseTime(_ text: String) -> Date? {
        (try? Date(text, strategy: Date.ISO8601FormatStyle()))
            ?? (try? Date(text, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true)))
    }
}

/// One run of a `credential_process` command: `/bin/sh -c COMMAND` (as the Java, Go and
/// Rust SDKs run it; botocore splits the line itself and runs no shell), stdin from
/// /dev/null, stderr discarded (helpers print prompts and tokens there), stdout read up
/// to a limit, the whole under a deadline after which the process group is stopped.
enum CredentialProcess {
    enum Outcome: Sendable, Equatable {
        case exited(Int32, [UInt8])
        case signalled(Int32)
        case timedOut
        case tooMuchOutput
        case notStarted(String)
    }

    static func run(command: String, deadline: Duration, limit: Int) async -> Outcome {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", command]
        process.standardInput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        let pipe = Pipe()
        process.standardOutput = pipe
        let output = pipe.fileHandleForReading
        let run = Run(limit: limit)
        return await withCheckedContinuation { continuation in
            run.start(continuation)
            process.terminationHandler = { process in
                run.exited(process.terminationReason == .uncaughtSignal ? .signalled(process.terminationStatus)
                    : .exited(process.terminationStatus, []))
            }
            do {
                try process.run()
            } catch {
                run.finish(.notStarted(error.localizedDescription))
                return
            }
            run.started(pid: process.processIdentifier, deadline: deadline)
            // A thread of its own reads stdout to its end: FileHandle's readabilityHandler
            // was seen to miss the end of output now and then on Linux. The thread ends at
            // the end of output, which stopping the process group brings about.
            Thread { run.read(output) }.start()
        }
    }

    /// The state one run's handlers share; the first outcome wins.
    final class Run: Sendable {
        private struct State {
            var continuation: CheckedContinuation<Outcome, Never>?
            var output: [UInt8] = []
            var endOfOutput = false
            var exit: Outcome?
            /// The child's pid, which is also its process group's ID.
            var group: Int32?
            var finished = false

            /// Something of the group may still run: the shell, or a child holding stdout.
            var running: Bool { exit == nil || !endOfOutput }
        }

        private let state = Mutex(State())
        private let limit: Int

        init(limit: Int) { self.limit = limit }

        func start(_ continuation: CheckedContinuation<Outcome, Never>) {
            state.withLock { $0.continuation = continuation }
        }

        func started(pid: Int32, deadline: Duration) {
            // On a dispatch queue, not a task: a task waits for a thread of the shared
            // pool, which work blocking its threads (two on a 2-core machine) can hold for
            // a minute past the deadline; a dispatch timer's queue gets a thread of its own.
            // It does nothing once the run has finished: the first outcome wins.
            state.withLock { $0.group = pid }
            DispatchQueue.global().asyncAfter(deadline: .now() + Self.interval(deadline)) { [self] in finish(.timedOut) }
        }

        /// Reads `output` until its end, or until the run is over.
        func read(_ output: FileHandle) {
            defer { try? output.close() }
            while true {
                let chunk = (try? output.read(upToCount: 16 << 10)) ?? nil
                let (outcome, done): (Outcome?, Bool) = state.withLock { state in
                    guard let chunk, !chunk.isEmpty else {
                        state.endOfOutput = true
                        return (state.finished ? nil : Self.complete(state), true)
                    }
                    guard !state.finished else { return (nil, true) }
                    state.output.append(contentsOf: chunk)
                    if state.output.count > limit { return (.tooMuchOutput, true) }
                    return (nil, false)
                }
                if let outcome { finish(outcome) }
                if done { return }
            }
        }

        func exited(_ outcome: Outcome) {
            let complete: Outcome? = state.withLock { state in
                state.exit = outcome
                return state.finished ? nil : Self.complete(state)
            }
            if let complete { finish(complete) }
        }

        /// The outcome once the process has exited and its output has ended.
        private static func complete(_ state: State) -> Outcome? {
            guard state.endOfOutput, let exit = state.exit else { return nil }
            if case let .exited(status, _) = exit { return .exited(status, state.output) }
            return exit
        }

        func finish(_ outcome: Outcome) {
            let taken: (CheckedContinuation<Outcome, Never>, Int32?)? = state.withLock { state in
                guard !state.finished, let continuation = state.continuation else { return nil }
                state.finished = true
                defer { state.continuation = nil }
                return (continuation, state.running ? state.group : nil)
            }
            guard let (continuation, group) = taken else { return }
            // A deadline or too much output: the whole group goes, so that a child of the
            // shell (`sleep` in `sleep 100; echo`) does not outlive it holding stdout.
            if let group { stop(group) }
            continuation.resume(returning: outcome)
        }

        /// SIGTERM to the process group (Foundation's Process starts the child in a group
        /// of its own), then SIGKILL two seconds later if something of it still runs.
        private func stop(_ group: Int32) {
            signal(group, SIGTERM)
            DispatchQueue.global().asyncAfter(deadline: .now() + .seconds(2)) { [self] in
                if state.withLock({ $0.running }) { signal(group, SIGKILL) }
            }
        }

        static func interval(_ duration: Duration) -> DispatchTimeInterval {
            let (seconds, attoseconds) = duration.components
            let nanoseconds = Double(seconds) * 1e9 + Double(attoseconds) / 1e9
            return .nanoseconds(Int(max(0, min(nanoseconds, Double(Int32.max) * 1e9))))
        }

        private func signal(_ group: Int32, _ number: Int32) {
            if kill(-group, number) != 0, state.withLock({ $0.exit == nil }) { _ = kill(group, number) }
        }
    }
}

extension HTTPField.Name {
    /// IMDSv2: how long the session token asked for lasts, and the token on each request.
    static let metadataTokenTTL = HTTPField.Name("X-aws-ec2-metadata-token-ttl-seconds")!
    static let metadataToken = HTTPField.Name("X-aws-ec2-metadata-token")!
}
