/// The on-disk format of a zoom pyramid.
public enum PyramidLayout: String, Sendable, Hashable, CaseIterable {
    /// Microsoft Deep Zoom: `NAME.dzi` plus `NAME_files/<level>/<column>_<row>.jpg`,
    /// read by OpenSeadragon and most zoom viewers.
    case deepZoom = "dz"
    /// IIIF Image API 3.0 level 0: `info.json` plus static
    /// `<region>/<size>/0/default.jpg` files, read by any IIIF viewer.
    case iiif3
}
