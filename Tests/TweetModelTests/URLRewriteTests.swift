import Testing
@testable import TweetModel

@Suite("Image URL rewrites")
struct URLRewriteTests {
    @Test(arguments: [
        ("https://pbs.twimg.com/media/FzX1aB2cD3eF4gH.jpg", "https://pbs.twimg.com/media/FzX1aB2cD3eF4gH?format=jpg&name=orig"),
        ("https://pbs.twimg.com/media/FzX1aB2cD3eF4gH.png", "https://pbs.twimg.com/media/FzX1aB2cD3eF4gH?format=png&name=orig"),
        ("http://pbs.twimg.com/media/FzX1aB2cD3eF4gH.jpg", "http://pbs.twimg.com/media/FzX1aB2cD3eF4gH?format=jpg&name=orig"),
        ("https://pbs.twimg.com/media/FzX1aB2cD3eF4gH.jpg:large", "https://pbs.twimg.com/media/FzX1aB2cD3eF4gH?format=jpg&name=orig"),
        ("https://pbs.twimg.com/media/FzX1aB2cD3eF4gH?format=jpg&name=small", "https://pbs.twimg.com/media/FzX1aB2cD3eF4gH?format=jpg&name=orig"),
        ("https://pbs.twimg.com/media/FzX1aB2cD3eF4gH?format=webp", "https://pbs.twimg.com/media/FzX1aB2cD3eF4gH?format=webp&name=orig"),
        ("https://pbs.twimg.com/media/FzX1aB2cD3eF4gH.jpg?name=900x900", "https://pbs.twimg.com/media/FzX1aB2cD3eF4gH?format=jpg&name=orig"),
        ("https://PBS.twimg.com/media/FzX1aB2cD3eF4gH.jpg", "https://PBS.twimg.com/media/FzX1aB2cD3eF4gH?format=jpg&name=orig"),
        // Left alone: not a pbs media URL, or no format to ask for.
        ("https://pbs.twimg.com/media/FzX1aB2cD3eF4gH", "https://pbs.twimg.com/media/FzX1aB2cD3eF4gH"),
        ("https://pbs.twimg.com/ext_tw_video_thumb/1/pu/img/p.jpg", "https://pbs.twimg.com/ext_tw_video_thumb/1/pu/img/p.jpg"),
        ("https://example.com/media/FzX1aB2cD3eF4gH.jpg", "https://example.com/media/FzX1aB2cD3eF4gH.jpg"),
        ("https://pbs.twimg.com/media/a/b.jpg", "https://pbs.twimg.com/media/a/b.jpg"),
        ("https://pbs.twimg.com/media/.jpg", "https://pbs.twimg.com/media/.jpg"),
        ("not a url", "not a url"),
        ("", ""),
    ])
    func photoOriginal(_ input: String, _ expected: String) {
        #expect(TwimgURL.original(input) == expected)
    }

    @Test(arguments: [
        ("https://pbs.twimg.com/profile_images/1480684936671764484/lFOQQOfG_normal.jpg",
         "https://pbs.twimg.com/profile_images/1480684936671764484/lFOQQOfG_400x400.jpg"),
        ("https://pbs.twimg.com/profile_images/1/alice_bigger.png", "https://pbs.twimg.com/profile_images/1/alice_400x400.png"),
        ("https://pbs.twimg.com/profile_images/1/alice_mini.jpeg", "https://pbs.twimg.com/profile_images/1/alice_400x400.jpeg"),
        ("https://pbs.twimg.com/profile_images/1/alice_normal", "https://pbs.twimg.com/profile_images/1/alice_400x400"),
        ("https://abs.twimg.com/sticky/default_profile_images/default_profile_normal.png",
         "https://abs.twimg.com/sticky/default_profile_images/default_profile_400x400.png"),
        // Unchanged: already large, suffix not at the end of the stem, or in a folder name.
        ("https://pbs.twimg.com/profile_images/1/alice_400x400.jpg", "https://pbs.twimg.com/profile_images/1/alice_400x400.jpg"),
        ("https://pbs.twimg.com/profile_images/1/alice.jpg", "https://pbs.twimg.com/profile_images/1/alice.jpg"),
        ("https://pbs.twimg.com/x_normal/alice.jpg", "https://pbs.twimg.com/x_normal/alice.jpg"),
        ("https://pbs.twimg.com/profile_images/1/_normal.jpg", "https://pbs.twimg.com/profile_images/1/_normal.jpg"),
        ("https://pbs.twimg.com/profile_images/1/a_normal.jpg?x=1", "https://pbs.twimg.com/profile_images/1/a_400x400.jpg?x=1"),
    ])
    func avatar400(_ input: String, _ expected: String) {
        #expect(TwimgURL.avatar400(input) == expected)
        #expect(Author(id: "1", screenName: "a", name: "A", profileImageURL: input).avatarURL == expected)
    }
}
