/// The syntax of an absolute `http` or `https` URI (RFC 3986 §3, with the
/// schemes' rules of RFC 9110 §4.2): `scheme "://" authority path-abempty
/// [ "?" query ] [ "#" fragment ]`, a host that is not empty, a port of at
/// most 65535, percent-escapes of two hexadecimal digits, and no character
/// outside the URI's own (no space, no raw non-ASCII: percent-encode them).
///
/// The one normalisation stored is RFC 3986 §6.2.2.1's case normalisation
/// of the scheme and the host (`HTTPS://Swift.ORG/Doc` → `https://swift.org/Doc`),
/// so that a bookmark's unique URL does not depend on how they were typed;
/// the rest (path, query, percent-escapes, port) is kept as sent.
enum HTTPURL {
    /// Why a text is not such a URI.
    struct Refusal: Error {
        var reason: String
    }

    /// `text` with its scheme and host in lower case.
    ///
    /// - Throws: ``Refusal`` saying what is wrong.
    static func normalized(_ text: String) throws -> String {
        let bytes = Array(text.utf8)
        guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")) else { throw Refusal(reason: "it has no scheme") }
        let scheme = String(decoding: bytes[..<colon], as: UTF8.self).lowercased()
        guard scheme == "http" || scheme == "https" else { throw Refusal(reason: "its scheme is not http or https") }
        guard bytes[colon...].starts(with: Array("://".utf8)) else { throw Refusal(reason: "it has no '//' authority") }
        let authorityStart = colon + 3
        let authorityEnd = bytes[authorityStart...].firstIndex { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") } ?? bytes.endIndex
        let host = try authorityHost(bytes[authorityStart..<authorityEnd])
        try checkRest(bytes[authorityEnd...])
        var result = Array((scheme + "://").utf8)
        result += bytes[authorityStart..<host.lowerBound]
        result += bytes[host].map { (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) ? $0 + 32 : $0 }
        result += bytes[host.upperBound...]
        return String(decoding: result, as: UTF8.self)
    }

    /// The range of the host in `authority` (`[userinfo "@"] host [":" port]`).
    static func authorityHost(_ authority: ArraySlice<UInt8>) throws -> Range<Int> {
        var start = authority.startIndex
        if let at = authority.lastIndex(of: UInt8(ascii: "@")) {
            try checkCharacters(authority[..<at], allowing: ":", what: "user information")
            start = at + 1
        }
        var end = authority.endIndex
        if authority[start...].first == UInt8(ascii: "[") {
            // IP-literal: an IPv6 address or IPvFuture; hexadecimal digits,
            // ':' and '.' (and IPvFuture's 'v' and sub-delims) up to ']'.
            guard let close = authority[start...].firstIndex(of: UInt8(ascii: "]")), close > start + 1 else {
                throw Refusal(reason: "its IP literal has no closing ']'")
            }
            try checkCharacters(authority[(start + 1)..<close], allowing: ":", what: "IP literal")
            end = close + 1
        } else {
            end = authority[start...].firstIndex(of: UInt8(ascii: ":")) ?? authority.endIndex
            guard end > start else { throw Refusal(reason: "its host is empty") }
            try checkCharacters(authority[start..<end], allowing: "", what: "host")
        }
        if end < authority.endIndex {
            guard authority[end] == UInt8(ascii: ":") else { throw Refusal(reason: "its host is followed by something other than a port") }
            let digits = authority[(end + 1)...]
            guard !digits.isEmpty, digits.count <= 5, digits.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
                  let port = Int(String(decoding: digits, as: UTF8.self)), port <= 65535
            else {
                throw Refusal(reason: "its port is not a number from 0 to 65535")
            }
        }
        return start..<end
    }

    /// Path, query and fragment: `pchar`, `/` and `?` (one `#` at most).
    static func checkRest(_ rest: ArraySlice<UInt8>) throws {
        var fragment = false
        var index = rest.startIndex
        while index < rest.endIndex {
            if rest[index] == UInt8(ascii: "#") {
                guard !fragment else { throw Refusal(reason: "it has a second '#'") }
                fragment = true
                index += 1
                continue
            }
            let end = rest[index...].firstIndex(of: UInt8(ascii: "#")) ?? rest.endIndex
            try checkCharacters(rest[index..<end], allowing: ":@/?", what: "path, query or fragment")
            index = end
        }
    }

    /// Unreserved characters, sub-delims, `%XX` and the `extra` ASCII ones.
    static func checkCharacters(_ part: ArraySlice<UInt8>, allowing extra: String, what: String) throws {
        let allowed = Array(extra.utf8)
        var index = part.startIndex
        while index < part.endIndex {
            let byte = part[index]
            if byte == UInt8(ascii: "%") {
                guard index + 2 < part.endIndex, isHex(part[index + 1]), isHex(part[index + 2])
                else {
                    throw Refusal(reason: "its \(what) has a '%' not followed by two hexadecimal digits")
                }
                index += 3
                continue
            }
            guard isUnreserved(byte) || isSubDelimiter(byte) || allowed.contains(byte) else {
                let shown = byte < 0x80 ? "'\(Character(Unicode.Scalar(byte)))'" : "a non-ASCII character (percent-encode it)"
                throw Refusal(reason: "its \(what) has \(byte == 0x20 ? "a space" : shown)")
            }
            index += 1
        }
    }

    static func isHex(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
            || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(byte)
    }

    /// `ALPHA / DIGIT / "-" / "." / "_" / "~"`
    static func isUnreserved(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
            || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || "-._~".utf8.contains(byte)
    }

    /// `"!" / "$" / "&" / "'" / "(" / ")" / "*" / "+" / "," / ";" / "="`
    static func isSubDelimiter(_ byte: UInt8) -> Bool {
        "!$&'()*+,;=".utf8.contains(byte)
    }
}
