import NIOCore

/// The viewer's static files, kept as real files beside this one (`index.html`,
/// `zoom.html`, `viewer.css`, `app.js`, `zoom.js`, which editors and linters
/// understand) and embedded at build time (SwiftPM `.embedInCode`), so the
/// binary needs nothing beside it.
///
/// Plain HTML, CSS and ES2020 with no build step and no third-party code, so it
/// works offline. Tweet text reaches the page only through `textContent`, never
/// as markup: it comes from strangers. `app.js` is the tweet list (filters by
/// hashtag or user live in the URL query, so the back button works); `zoom.js`
/// the zoom view, a canvas Deep Zoom viewer that loads only the tiles in view and
/// reads the hash from the page's path (tests read `window.__zoom` and wait for
/// `document.body.dataset.ready == "1"`).
///
/// Each file's body and ETag are made once, when first served, not per request.
enum ViewerAssets {
    /// One compiled-in file, ready to serve.
    struct Asset: Sendable {
        let body: ByteBuffer
        let contentType: String
        /// A hash of the content, so a new build is picked up at once.
        let etag: String

        init(_ bytes: [UInt8], type: String) {
            body = ByteBuffer(bytes: bytes)
            contentType = type
            var hasher = FNV1a()
            hasher.add(bytes)
            etag = "\"v-\(String(hasher.value, radix: 16))\""
        }
    }

    /// The tweet list, served at `/`; `app.js` fills it from `/api/tweets`.
    static let index = Asset(PackageResources.index_html, type: "text/html; charset=utf-8")
    /// The zoom view, served at `/view/<sha256>`.
    static let zoom = Asset(PackageResources.zoom_html, type: "text/html; charset=utf-8")

    /// The operator's sign-in page, served at `/signin`, with `<!--message-->` where
    /// a fixed message of the server's goes (never a client's text).
    static let signIn = PackageResources.signin_html

    /// `/static/<name>`: both pages' styles and scripts.
    static func named(_ name: String) -> Asset? {
        switch name {
        case "viewer.css": css
        case "app.js": appJS
        case "zoom.js": zoomJS
        default: nil
        }
    }

    private static let css = Asset(PackageResources.viewer_css, type: "text/css; charset=utf-8")
    private static let appJS = Asset(PackageResources.app_js, type: "text/javascript; charset=utf-8")
    private static let zoomJS = Asset(PackageResources.zoom_js, type: "text/javascript; charset=utf-8")
}
