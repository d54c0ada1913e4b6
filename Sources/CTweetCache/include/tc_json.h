#ifndef TC_JSON_H
#define TC_JSON_H
#include <stddef.h>
#include <stdint.h>

/// Where the JSON object or array starting at `bytes[start]` (a `{` or `[`) ends: the
/// offset just past its closing bracket. -1 when it does not end within `count` bytes
/// or a bracket is closed by the other kind; -2 when it nests deeper than 64 levels
/// or the processor has no SSE2 (the caller's own walk takes those).
///
/// The same walk as TweetModel's `JSONStructureScanner.skipValue` (which stays the
/// reference, and the path for anything deeper): a quote outside a string opens one, a
/// backslash inside a string takes the next byte with it, every other byte outside
/// strings but brackets is passed over unjudged.
///
/// In C for one reason: SSE2's compare and byte-mask instructions, which Swift's SIMD
/// types do not expose. Sixty-four bytes are classified at once (quotes, backslashes,
/// opening and closing brackets), the bytes inside strings found from the quotes by a
/// running parity, and only brackets are then looked at one by one; a block holding a
/// backslash is walked byte by byte. The scan of a million posts' manifests (2 GB of
/// pretty-printed JSON) was their busiest single step, at about 2 ns a byte.
ptrdiff_t tc_json_container_end(const uint8_t *bytes, size_t count, size_t start);

#endif
