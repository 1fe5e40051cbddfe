import FuzzSupport
import PushSealCore
import PushSealJSON

/// libFuzzer target: content parsing — `JSONParser` (strict RFC 8259, Docs/SPEC.md §5.2),
/// `NotificationContent(decoding:)` (schema, §5.1) and `Padding.unpaddedLength` (§6.4) — from
/// arbitrary bytes.
///
/// Properties checked on every input:
/// - the parser accepts only well-formed UTF-8, returns unique member names per object and
///   nesting within the limit, and its compact re-encoding parses back to an equal value
///   (and re-encodes to the same bytes);
/// - `init(decoding:)` (which takes a one-pass fast path for the usual shape) agrees exactly with
///   the general path, `JSONParser.parse` then `init(object:)`: same content, or the same error;
/// - an accepted content passes `validate()`, re-encodes (`encoded()` does not throw and is
///   exactly `encodedByteCount` bytes), and the encoding decodes back to a content with the same
///   encoding (byte comparison, not Unicode equivalence);
/// - a content rejected for its schema was strict JSON with an object at the top level, and one
///   rejected as JSON was rejected by the parser too;
/// - padding removal agrees with a reference (last non-zero byte must be 0x80).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzContentTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = UnsafeRawBufferPointer(start: size > 0 ? UnsafeRawPointer(data) : nil, count: size)
    let bytes = [UInt8](input)
    let parsed = checkParser(bytes)
    checkContent(bytes, parsed: parsed)
    checkPadding(input)
    return 0
}

let maximumDepth = NotificationContent.maximumNestingDepth

func checkParser(_ bytes: [UInt8]) -> JSONValue? {
    let value: JSONValue
    do {
        value = try JSONParser.parse(bytes, maximumDepth: maximumDepth)
    } catch {
        fuzzCheck(error.offset >= 0 && error.offset <= bytes.count, "error offset \(error.offset) outside the input")
        return nil
    }
    fuzzCheck(String(validating: bytes, as: UTF8.self) != nil, "parser accepted invalid UTF-8: \(fuzzHex(bytes))")
    fuzzCheck(bytes.first != 0xEF, "parser accepted a leading byte-order mark")
    checkStructure(value, depth: 0)
    let compact = Array(value.compactText.utf8)
    do {
        let reparsed = try JSONParser.parse(compact, maximumDepth: maximumDepth)
        fuzzCheck(reparsed == value, "compact re-encoding parses to a different value: \(fuzzHex(bytes))")
        fuzzCheck(Array(reparsed.compactText.utf8) == compact, "compact encoding is not idempotent")
    } catch {
        fuzzFail("compact re-encoding of an accepted value is rejected (\(error)): \(fuzzHex(compact))")
    }
    return value
}

/// Member names unique (by UTF-8 bytes, i.e. by code points) in every object; depth within the limit.
func checkStructure(_ value: JSONValue, depth: Int) {
    switch value {
    case let .array(elements):
        fuzzCheck(depth + 1 <= maximumDepth, "array nested deeper than \(maximumDepth)")
        for element in elements { checkStructure(element, depth: depth + 1) }
    case let .object(object):
        fuzzCheck(depth + 1 <= maximumDepth, "object nested deeper than \(maximumDepth)")
        var names = Set<[UInt8]>()
        for member in object.members {
            fuzzCheck(names.insert(Array(member.name.utf8)).inserted, "duplicate member name \(member.name) accepted")
            checkStructure(member.value, depth: depth + 1)
        }
    case let .number(literal):
        fuzzCheck(isGrammaticalNumber(Array(literal.utf8)), "number literal \(literal) does not match the RFC 8259 grammar")
    default:
        break
    }
}

/// `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`, written independently of the parser.
func isGrammaticalNumber(_ s: [UInt8]) -> Bool {
    func digit(_ c: UInt8) -> Bool { c >= 0x30 && c <= 0x39 }
    var i = 0
    if i < s.count, s[i] == UInt8(ascii: "-") { i += 1 }
    guard i < s.count, digit(s[i]) else { return false }
    if s[i] == 0x30 { i += 1 } else { while i < s.count, digit(s[i]) { i += 1 } }
    if i < s.count, s[i] == UInt8(ascii: ".") {
        i += 1
        guard i < s.count, digit(s[i]) else { return false }
        while i < s.count, digit(s[i]) { i += 1 }
    }
    if i < s.count, s[i] == UInt8(ascii: "e") || s[i] == UInt8(ascii: "E") {
        i += 1
        if i < s.count, s[i] == UInt8(ascii: "+") || s[i] == UInt8(ascii: "-") { i += 1 }
        guard i < s.count, digit(s[i]) else { return false }
        while i < s.count, digit(s[i]) { i += 1 }
    }
    return i == s.count
}

func checkContent(_ bytes: [UInt8], parsed: JSONValue?) {
    let content: NotificationContent
    do {
        content = try NotificationContent(decoding: bytes)
    } catch {
        switch error {
        case .tooLarge:
            fuzzCheck(bytes.count > NotificationContent.maximumByteCount, "tooLarge for \(bytes.count) bytes")
        case .invalidJSON:
            fuzzCheck(parsed == nil, "content reported invalid JSON, the parser accepts it")
        case .notAnObject:
            fuzzCheck(parsed != nil && parsed?.objectValue == nil, "notAnObject for an object or a parse failure")
        case .missingField, .wrongType, .outOfRange:
            guard let object = parsed?.objectValue else { fuzzFail("schema error \(error) without a parsed object") }
            // The general path decides every error: the same one.
            do {
                _ = try NotificationContent(object: object)
                fuzzFail("init(decoding:) rejected (\(error)) what init(object:) accepts: \(fuzzHex(bytes))")
            } catch let general {
                fuzzCheck(general == error, "init(decoding:) threw \(error), init(object:) \(general)")
            }
        case .invalidPadding:
            fuzzFail("content decoding reported a padding error")
        }
        return
    }
    fuzzCheck(bytes.count <= NotificationContent.maximumByteCount, "accepted \(bytes.count) bytes")
    guard let object = parsed?.objectValue else { fuzzFail("content accepted, but the parser rejects it or it is not an object") }
    // `init(decoding:)` takes a one-pass fast path for the usual shape; the general path
    // (parse, then `init(object:)`) must agree with it exactly.
    do {
        let general = try NotificationContent(object: object)
        fuzzCheck(sameEncoding(general, content), "fast and general decoding differ for \(fuzzHex(bytes))")
    } catch {
        fuzzFail("init(decoding:) accepted what init(object:) rejects (\(error)): \(fuzzHex(bytes))")
    }
    // The decoded fields are the parsed members, byte for byte.
    fuzzCheck(object["cid"]?.stringValue?.utf8.elementsEqual(content.conversationID.utf8) == true, "cid differs from the parsed member")
    fuzzCheck(object["mid"]?.stringValue?.utf8.elementsEqual(content.messageID.utf8) == true, "mid differs from the parsed member")
    fuzzCheck(object["ts"] == .number(String(content.sentAt)), "ts differs from the parsed member")
    if let body = content.body {
        fuzzCheck(object["body"]?.stringValue?.utf8.elementsEqual(body.utf8) == true, "body differs from the parsed member")
    } else {
        fuzzCheck(object["body"] == nil, "body dropped")
    }
    do {
        try content.validate()
    } catch {
        fuzzFail("accepted content fails validate(): \(error)")
    }
    let encoded: [UInt8]
    do {
        encoded = try content.encoded()
    } catch {
        fuzzFail("accepted content does not re-encode: \(error); input \(fuzzHex(bytes))")
    }
    fuzzCheck(encoded.count == content.encodedByteCount, "encodedByteCount \(content.encodedByteCount) != \(encoded.count)")
    fuzzCheck(encoded.count <= bytes.count, "canonical encoding (\(encoded.count) bytes) longer than the input (\(bytes.count))")
    do {
        let again = try NotificationContent(decoding: encoded)
        let encodedAgain = try again.encoded()
        fuzzCheck(encodedAgain == encoded, "re-encoded content changes on a second round: \(fuzzHex(encoded))")
    } catch {
        fuzzFail("the encoding of an accepted content is rejected: \(error); encoding \(fuzzHex(encoded))")
    }
}

func checkPadding(_ input: UnsafeRawBufferPointer) {
    let lastNonZero = input.lastIndex { $0 != 0 }
    let expected: Int? = lastNonZero.flatMap { input[$0] == 0x80 ? $0 : nil }
    let actual = Padding.unpaddedLength(of: input)
    fuzzCheck(actual == expected, "unpaddedLength \(String(describing: actual)), reference \(String(describing: expected))")
    if let actual, actual < input.count {
        let content = [UInt8](input[0..<actual])
        fuzzCheck(Padding.pad(content, toLength: input.count).elementsEqual(input), "pad(unpad(P)) != P")
    }
}

/// Same deterministic encoding, byte for byte (not Unicode equivalence).
func sameEncoding(_ a: NotificationContent, _ b: NotificationContent) -> Bool {
    var x = JSONWriter(), y = JSONWriter()
    a.writeJSON(to: &x)
    b.writeJSON(to: &y)
    return x.bytes == y.bytes
}
