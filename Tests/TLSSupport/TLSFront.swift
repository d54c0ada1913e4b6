import Foundation
import Synchronization
import TestSupport

/// nginx on 127.0.0.1 as an HTTPS front (TLS 1.2+, HTTP/2 by ALPN, HTTP/1.1 otherwise,
/// WebSocket upgrades passed through) for a plain HTTP origin on another loopback port,
/// with a certificate signed by a throw-away CA of its own.
///
/// Each request reaches the origin with two fields of nginx's: the client connection's
/// number (``connectionField``) and the protocol it spoke (``protocolField``), so that
/// the origin can count connections and HTTP/2 requests as a TLS server of its own would.
public final class TLSFront: @unchecked Sendable {  // the Process is only read (isRunning) and stopped
    public static let connectionField = "X-TC-Connection"
    public static let protocolField = "X-TC-Protocol"

    public let port: Int
    /// The CA certificate (PEM) that signed the server's certificate.
    public let caFile: String
    public let directory: URL
    private let process: Process

    public var baseURL: String { "https://127.0.0.1:\(port)" }

    private init(port: Int, caFile: String, directory: URL, process: Process) {
        self.port = port
        self.caFile = caFile
        self.directory = directory
        self.process = process
    }

    /// Starts nginx in front of `http://127.0.0.1:backendPort`, and returns once it accepts
    /// connections (or throws, with its error log, if it did not start within 20 s).
    public static func start(backendPort: Int) async throws -> TLSFront {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tc-tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let (caFile, certFile, keyFile) = try makeCertificates(in: directory)
        var lastProblem = ""
        // A port found free may be taken before nginx binds it: then another one.
        for _ in 0..<5 {
            // A port the kernel just gave out, and let go again when the holder goes.
            let port = try ClosedPort().port
            let d = directory.path
            let conf = """
            daemon off;
            master_process off;
            error_log \(d)/error.log warn;
            pid \(d)/nginx.pid;
            events { worker_connections 512; }
            http {
                access_log off;
                client_body_temp_path \(d)/tmp-body;
                proxy_temp_path \(d)/tmp-proxy;
                fastcgi_temp_path \(d)/tmp-fastcgi;
                uwsgi_temp_path \(d)/tmp-uwsgi;
                scgi_temp_path \(d)/tmp-scgi;
                map $http_upgrade $connection_upgrade { default upgrade; '' ''; }
                server {
                    listen 127.0.0.1:\(port) ssl http2;
                    ssl_certificate \(certFile);
                    ssl_certificate_key \(keyFile);
                    ssl_protocols TLSv1.2 TLSv1.3;
                    http2_max_concurrent_streams 128;
                    location / {
                        proxy_pass http://127.0.0.1:\(backendPort);
                        proxy_http_version 1.1;
                        proxy_set_header Upgrade $http_upgrade;
                        proxy_set_header Connection $connection_upgrade;
                        proxy_set_header \(connectionField) $connection;
                        proxy_set_header \(protocolField) $server_protocol;
                        proxy_read_timeout 300s;
                        proxy_buffering off;
                    }
                }
            }
            """
            let confFile = "\(d)/nginx.conf"
            try conf.write(toFile: confFile, atomically: true, encoding: .utf8)
            let process = Process()
            process.executableURL = URL(fileURLWithPath: try nginxPath())
            process.arguments = ["-p", d, "-c", confFile, "-e", "\(d)/error.log"]
            process.standardInput = FileHandle.nullDevice
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            // Ready when it accepts a connection; gone when the port was taken (or the
            // configuration refused), which its error log says.
            let deadline = ContinuousClock.now + .seconds(20)
            while process.isRunning, ContinuousClock.now < deadline {
                // nginx writes its pid file once its port is bound: then a connection
                // accepted there is nginx's, not another test's listener that took the port.
                let pid = try? String(contentsOfFile: "\(d)/nginx.pid", encoding: .utf8)
                if pid?.trimmingCharacters(in: .whitespacesAndNewlines) == "\(process.processIdentifier)",
                   let fd = try? RawHTTPClient.connectLoopback(port: port, timeout: 5) {
                    close(fd)
                    return TLSFront(port: port, caFile: caFile, directory: directory, process: process)
                }
                try await Task.sleep(for: .milliseconds(5))
            }
            Self.kill(process)
            lastProblem = (try? String(contentsOfFile: "\(d)/error.log", encoding: .utf8)) ?? "no error log"
            if !lastProblem.contains("Address already in use") { break }
        }
        try? FileManager.default.removeItem(at: directory)
        throw CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: "nginx did not start: \(lastProblem)"])
    }

    public func stop() async {
        Self.kill(process)
        try? FileManager.default.removeItem(at: directory)
    }

    /// SIGKILL, not SIGTERM: a process started from a Swift program inherits the
    /// starting thread's blocked signals, and nginx without a master process never
    /// unblocks SIGTERM. Nothing of nginx's needs a graceful end here.
    private static func kill(_ process: Process) {
        if process.isRunning { _ = Glibc.kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }

    /// nginx from PATH or where Debian puts it (/usr/sbin is not on every user's PATH).
    static func nginxPath() throws -> String {
        let path = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map(String.init)
        for dir in path + ["/usr/sbin", "/usr/local/sbin", "/usr/local/nginx/sbin"]
        where FileManager.default.isExecutableFile(atPath: "\(dir)/nginx") {
            return "\(dir)/nginx"
        }
        throw CocoaError(.fileNoSuchFile, userInfo: [NSLocalizedDescriptionKey: "nginx is not installed (scripts/test.sh installs it)"])
    }

    /// A CA and a server certificate for IP 127.0.0.1 signed by it, made with the
    /// `openssl` command (P-256 keys, valid for a day).
    static func makeCertificates(in directory: URL) throws -> (ca: String, cert: String, key: String) {
        let d = directory.path
        let steps: [[String]] = [
            ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
             "-keyout", "\(d)/ca.key", "-out", "\(d)/ca.pem", "-days", "1", "-subj", "/CN=TweetCache test CA",
             "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign"],
            ["req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
             "-keyout", "\(d)/server.key", "-out", "\(d)/server.csr", "-subj", "/CN=127.0.0.1"],
            ["x509", "-req", "-in", "\(d)/server.csr", "-CA", "\(d)/ca.pem", "-CAkey", "\(d)/ca.key",
             "-CAcreateserial", "-out", "\(d)/server.pem", "-days", "1", "-extfile", "\(d)/ext.cnf"],
        ]
        try "subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth\n".write(
            toFile: "\(d)/ext.cnf", atomically: true, encoding: .utf8)
        for arguments in steps {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["openssl"] + arguments
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            process.waitUntilExit()
            guard process.terminationStatus == 0 else {
                throw CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: "openssl \(arguments[0]) failed"])
            }
        }
        return ("\(d)/ca.pem", "\(d)/server.pem", "\(d)/server.key")
    }
}
