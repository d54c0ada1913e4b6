// Summarises how TweetModel parses saved API responses (X, Mastodon, Bluesky), and checks that every entity
// range slices to the text it names. Compiled together with Sources/TweetModel by
// check-realworld-parse.sh; takes the files to check as arguments.
import Foundation

var failures = 0
for path in CommandLine.arguments.dropFirst() {
    guard let data = FileManager.default.contents(atPath: path) else {
        print("\(path): cannot read"); failures += 1; continue
    }
    let started = Date()
    let results = ResultsParser.parse(data, source: (path as NSString).lastPathComponent)
    let elapsed = Date().timeIntervalSince(started)
    let all = results.pages.flatMap { $0.tweets + $0.includedTweets }
    var kinds: [MediaKind: Int] = [:]
    for item in all.flatMap(\.media) { kinds[item.type, default: 0] += 1 }
    var checked = 0, mismatched: [String] = []
    for tweet in all {
        // Mastodon mentions show `@user` for `user@host`; Bluesky and Mastodon links show
        // their display text, X's their t.co URL.
        let mentionShown = { (name: String) in tweet.network == .mastodon ? String(name.prefix { $0 != "@" }) : name }
        let expected: [(TextRange, String)] =
            tweet.entities.hashtags.map { ($0.range, "#" + $0.tag) }
            + tweet.entities.cashtags.map { ($0.range, "$" + $0.tag) }
            + tweet.entities.mentions.map { ($0.range, "@" + mentionShown($0.username)) }
            + tweet.entities.urls.map { ($0.range, tweet.network == .x ? $0.url : ($0.displayURL ?? $0.url)) }
        for (range, text) in expected {
            checked += 1
            let slice = tweet.text.substring(codePoints: range).map(String.init)
            if slice?.lowercased() != text.lowercased() {
                mismatched.append("\(tweet.id) \(range): \(slice.debugDescription) ≠ \(text.debugDescription)")
            }
        }
    }
    print("\(path) (\(String(format: "%.3f", elapsed)) s)")
    for page in results.pages {
        print("  page \(page.format.rawValue): \(page.tweets.count) tweets, \(page.includedTweets.count) included, "
            + "query \(page.query.debugDescription), next \(page.nextToken.debugDescription)")
    }
    print("  media: " + MediaKind.allCases.map { "\($0.rawValue) \(kinds[$0, default: 0])" }.joined(separator: ", "))
    print("  with videoURL: \(all.flatMap(\.media).filter { $0.videoURL != nil }.count), "
        + "dated: \(all.filter { $0.createdAt != nil }.count)/\(all.count), "
        + "avatars: \(Set(all.compactMap(\.author.avatarURL)).count) distinct")
    print("  entity ranges checked: \(checked), mismatched: \(mismatched.count)")
    for line in mismatched.prefix(10) { print("    " + line) }
    for problem in results.allProblems.prefix(10) { print("  problem: \(problem)") }
    if let sample = all.flatMap(\.media).first(where: { $0.type == .photo }) {
        print("  sample photo: \(sample.sourceURL ?? "-") → \(sample.imageURL ?? "-")")
    }
    if let sample = all.first(where: { $0.author.profileImageURL != nil })?.author {
        print("  sample avatar: \(sample.profileImageURL ?? "-") → \(sample.avatarURL ?? "-")")
    }
    failures += mismatched.count
}
exit(failures == 0 ? 0 : 1)
