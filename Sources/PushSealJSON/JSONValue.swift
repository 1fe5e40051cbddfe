/// A parsed JSON value. Numbers keep the exact literal, so integer-form checks and byte-exact
/// re-encoding are possible; objects keep member order.
package enum JSONValue: Sendable, Equatable {
    /// The literal `null`.
    case null
    /// The literal `true` or `false`.
    case bool(Bool)
    /// The number literal exactly as written (RFC 8259 grammar).
    case number(String)
    /// A string, unescaped.
    case string(String)
    /// An array, elements in document order.
    case array([JSONValue])
    /// An object, members in document order.
    case object(JSONObject)

    /// True for null, booleans, numbers and strings.
    package var isScalar: Bool {
        switch self {
        case .array, .object: false
        default: true
        }
    }

    /// The string, when this is a string.
    package var stringValue: String? {
        if case let .string(value) = self { return value }
        return nil
    }

    /// The object, when this is an object.
    package var objectValue: JSONObject? {
        if case let .object(value) = self { return value }
        return nil
    }

    /// The value as an integer when it is a number in integer form (`0` or `-?[1-9][0-9]*`,
    /// no fraction or exponent) that fits in `Int64`.
    package var integerValue: Int64? {
        guard case let .number(literal) = self else { return nil }
        return JSONValue.integer(fromLiteral: literal)
    }

    package static func integer(fromLiteral literal: String) -> Int64? {
        let utf8 = literal.utf8
        var index = utf8.startIndex
        let negative = utf8.first == UInt8(ascii: "-")
        if negative { index = utf8.index(after: index) }
        let digits = utf8[index...]
        guard let first = digits.first, first >= UInt8(ascii: "0"), first <= UInt8(ascii: "9") else { return nil }
        if first == UInt8(ascii: "0") && digits.count > 1 { return nil }
        var value: Int64 = 0
        for digit in digits {
            guard digit >= UInt8(ascii: "0"), digit <= UInt8(ascii: "9") else { return nil }
            let (shifted, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = shifted.addingReportingOverflow(Int64(digit - UInt8(ascii: "0")))
            guard !overflow1, !overflow2 else { return nil }
            value = sum
        }
        return negative ? -value : value
    }

    /// Compact JSON text of this value (member order preserved, strings escaped as in
    /// ``JSONWriter``).
    package var compactText: String {
        var writer = JSONWriter()
        writer.append(self)
        return writer.text
    }
}

/// A JSON object: members in document order, names unique (the parser rejects duplicates; only the
/// package-internal `JSONParser.parseKeepingDuplicateNames` keeps them, and the subscript returns the first).
package struct JSONObject: Sendable, Equatable {
    /// One `"name": value` pair.
    package struct Member: Sendable, Equatable {
        /// The member name, unescaped.
        package let name: String
        /// The member value.
        package let value: JSONValue
        /// A member with this name and value.
        package init(name: String, value: JSONValue) {
            self.name = name
            self.value = value
        }
    }

    /// The members in document order.
    package let members: [Member]

    /// Builds an object; names must be unique.
    package init(members: [Member]) {
        self.members = members
    }

    /// The value of the member whose name has exactly these UTF-8 bytes (no Unicode
    /// normalisation: `"é"` and `"e\u{301}"` are different names).
    package subscript(name: String) -> JSONValue? {
        for member in members where UTF8Bytes.equal(member.name, name) { return member.value }
        return nil
    }
}
