/// An id that may arrive as a JSON string or a JSON integer.
///
/// v1.1 sends ids both ways (`id` as a number, `id_str` as a string) and some tools
/// keep only one. Integers are read as `UInt64`/`Int64`, never `Double`, so 64-bit ids
/// keep every digit.
package struct FlexibleID: Decodable {
    package let string: String

    package init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let text = try? container.decode(String.self) {
            string = text
        } else if let number = try? container.decode(UInt64.self) {
            string = String(number)
        } else {
            string = String(try container.decode(Int64.self))
        }
    }
}
