import Foundation
import Testing
@testable import LiveSearch

@Suite struct BearerTokenTests {
    let secret = "AAAAAAAAAAAAAAAAAAAAAMLheAAAAAAA0%2BuSeid%2BULvsea4JtiGRiSDSJSI%3DEUifiRBkKG5E2XzMDjRfl76ZC9Ub0wnz4XsNiRVBChTYbJcE3F"

    @Test func comesFromTheEnvironment() throws {
        let token = try BearerToken.resolve(tokenFile: nil, environment: ["TWEETCACHE_BEARER_TOKEN": " \(secret)\n"])
        #expect(token.authorizationHeader.value == "Bearer \(secret)")
        #expect(token.source == .environment("TWEETCACHE_BEARER_TOKEN"))
    }

    @Test func aTokenFileIsTrimmedAndWinsOverTheEnvironment() throws {
        let dir = try temporaryDirectory()
        let file = dir.appendingPathComponent("token")
        try Data("\n  Bearer \(secret)  \r\n".utf8).write(to: file)
        let token = try BearerToken.resolve(tokenFile: file.path, environment: ["TWEETCACHE_BEARER_TOKEN": "other"])
        #expect(token.authorizationHeader.value == "Bearer \(secret)")
        #expect(token.source == .file(file.path))
    }

    @Test func explainsWhatIsMissingOrWrongWithoutShowingIt() throws {
        #expect(throws: LiveSearchError.missingToken) { try BearerToken.resolve(tokenFile: nil, environment: [:]) }
        #expect(LiveSearchError.missingToken.description.contains("TWEETCACHE_BEARER_TOKEN"))
        // Says what is missing, not which flag of which front end gives it (the CLI adds that).
        #expect(!LiveSearchError.missingToken.description.contains("--"))

        let dir = try temporaryDirectory()
        let empty = dir.appendingPathComponent("empty")
        try Data("  \n".utf8).write(to: empty)
        #expect(throws: LiveSearchError.emptyToken(.file(empty.path))) {
            try BearerToken.resolve(tokenFile: empty.path, environment: [:])
        }
        let two = dir.appendingPathComponent("two")
        try Data("abc def-\(secret)".utf8).write(to: two)
        do {
            _ = try BearerToken.resolve(tokenFile: two.path, environment: [:])
            Issue.record("a token with a space was accepted")
        } catch {
            #expect(error == .malformedToken(.file(two.path)))
            #expect(!error.description.contains(secret))
            #expect(error.description.contains(two.path))
        }
        let missing = dir.appendingPathComponent("nope").path
        #expect(throws: LiveSearchError.self) { try BearerToken.resolve(tokenFile: missing, environment: [:]) }
    }

    @Test func neverPrintsItself() throws {
        let token = try BearerToken(secret, source: .environment("TWEETCACHE_BEARER_TOKEN"))
        #expect(!"\(token)".contains(secret))
        #expect(!String(reflecting: token).contains(secret))
        var dumped = ""
        dump(token, to: &dumped)
        #expect(!dumped.contains(secret))
    }
}
