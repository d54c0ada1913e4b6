import Foundation

/// A tweet text recipe and the language the API would detect for it.
struct Template {
    let segments: [Segment]
    let lang: String

    init(lang: String = "en", _ segments: Segment...) {
        self.segments = segments
        self.lang = lang
    }
}

extension SampleGenerator {
    /// The sample's authors: a university, its units and people around its campus.
    static let people: [(screenName: String, name: String, bio: String)] = [
        ("ucddublin", "University College Dublin", "Ireland's global university 🇮🇪 Belfield, Dublin 4."),
        ("ucdlibrary", "UCD Library", "Books, archives, study spaces & help. Open late in exam season 📚"),
        ("ucdscience", "UCD Science", "News from the O'Brien Centre for Science 🔬"),
        ("belfield_birds", "Belfield Birds", "Herons, egrets & the odd kingfisher on campus 🪶"),
        ("aoife_codes", "Aoife Ní Bhriain", "PhD student, computer science. Coffee > sleep ☕"),
        ("liffeyrunner", "Ciarán Walsh", "Running Dublin one bridge at a time 🏃"),
        ("quadphotos", "The Quad in Pictures", "Photos of campus life, every day 📷"),
        ("dublinbay_daily", "Dublin Bay Daily", "Sunrise, sea and sky over Dublin Bay 🌊"),
        ("niamh_writes", "Niamh Byrne", "English & Drama. Words, mostly ✍️"),
        ("ucdarchives", "UCD Archives", "Letters, photographs and papers from Ireland's past 🗂️"),
        ("sean_photog", "Seán Ó Murchú", "Photographer. Dublin ↔ Galway."),
        ("ucd_sport", "UCD Sport", "Clubs, fixtures & results 🏉⚽🏑"),
    ]

    static let altTexts = [
        "The lake at Belfield at sunrise, mist over the water",
        "Students on the steps of the Newman Building",
        "A grey heron standing in the shallows",
        "Cherry blossom along the path to the library",
        "Rugby players contesting a lineout in the rain",
    ]

    static let templates: [Template] = [
        Template(.text("Spring light over the lake at Belfield this morning ☀️ "), .hashtag("ucd"), .text(" "), .hashtag("Belfield")),
        Template(.text("Library open until midnight all week for exams 📚 good luck, everyone! "), .hashtag("ucd"), .text(" "), .mention),
        Template(.text("New paper from our lab on coastal erosion in Dublin Bay 🌊 "),
                 .link(expanded: "https://www.ucd.ie/research/news/coastal-erosion-2024/", display: "ucd.ie/research/news/…"),
                 .text(" "), .hashtag("ucd"), .text(" "), .hashtag("OpenScience")),
        Template(lang: "ga", .text("Seachtain na Gaeilge ar an gcampas! 🇮🇪 "), .hashtag("ucd"), .text(" "), .hashtag("SnaG24")),
        Template(.text("Caife & cáca in the Old Common Room ☕🍰 thanks "), .mention, .text(" "), .hashtag("ucd")),
        Template(.text("Graduation day 👩‍🎓👨‍🎓 congratulations to the class of 2024, from all of us at "), .mention, .text("! "),
                 .hashtag("ucd"), .text(" "), .hashtag("UCDGrad")),
        Template(.mention, .text(" the herons are back by the pond 🪶 "), .hashtag("ucd"), .text(" "), .hashtag("birdwatching")),
        Template(.text("Rugby at the Bowl tonight 🏉 UCD v Trinity, 7pm "), .hashtag("ucd"), .text(" "), .hashtag("ColoursMatch")),
        Template(.text("👩‍👩‍👧 Family day on campus: face painting, a bouncy castle & tours of the O'Brien Centre "), .hashtag("ucd")),
        Template(.text("Sunset from the Science Centre roof 🌅 "), .hashtag("ucd"), .text(" "), .hashtag("Dublin")),
        Template(.text("Reminder: essays < 3000 words, due Friday 17:00 ⏰ "), .hashtag("ucd"), .text(" "), .mention),
        Template(.text("Frost on the lake 🥶❄️ "), .hashtag("ucd"), .text(" "), .hashtag("winter")),
        Template(.text("Cherry blossom season 🌸 on the Belfield campus "), .hashtag("ucd"), .text(" cc "), .mention),
        Template(.text("Open day Saturday, tours every 30 min from the Global Lounge 🗺️ "),
                 .link(expanded: "https://www.ucd.ie/openday/", display: "ucd.ie/openday"),
                 .text(" "), .hashtag("ucd"), .text(" "), .hashtag("UCDOpenDay")),
        Template(.text("From the archive: the Belfield site in 1964 🗂️ "), .hashtag("ucd"), .text(" "), .hashtag("OnThisDay")),
        Template(.text("5k around the campus loop before lectures 🏃‍♀️ who's in tomorrow? "), .hashtag("ucd"), .text(" "), .mention),
        Template(.text("Cafe\u{301} society: the new espresso bar in the Student Centre is open ☕ "), .hashtag("ucd")),
        Template(.text("Night sky over the observatory 🔭✨ "),
                 .link(expanded: "https://www.ucd.ie/physics/news/first-light/", display: "ucd.ie/physics/news/…"),
                 .text(" "), .hashtag("ucd"), .text(" "), .hashtag("astronomy")),
    ]

    static let videoTemplate = Template(
        .text("Watch: a minute in the life of the campus, from sunrise to the last bus 🎬 "), .hashtag("ucd"), .text(" "), .mention
    )

    static let gifTemplate = Template(
        .text("When the library extends opening hours again 🎉 "), .hashtag("ucd")
    )
}
