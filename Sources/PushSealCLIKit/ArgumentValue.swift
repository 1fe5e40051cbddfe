/// A type an option or positional argument can be read as: ``Option``, ``Argument``.
///
/// Conformances: `String`, `Int`, `Int64`, ``FilePath``, and every `String`-backed enum that is
/// `CaseIterable` (its raw values are the accepted words, listed in help as `(values: …)` and
/// checked by the parser). A value that needs more than its type (an integer range, a key's
/// length) is declared with a parse function or a range on the ``Option`` instead.
package protocol ArgumentValue: Sendable {
    /// The value written as `argument` on the command line; a ``ValueError`` becomes the usage
    /// error `The value 'x' is invalid for '--name <value>': <reason>`.
    init(argument: String) throws(ValueError)

    /// The only accepted words, when the values are a closed set (an enum); empty otherwise.
    static var allValueStrings: [String] { get }

    /// How the value is written in help, as in `(default: 256)`.
    var argumentDescription: String { get }
}

extension ArgumentValue {
    /// Any word is accepted by default.
    package static var allValueStrings: [String] { [] }
}

extension ArgumentValue where Self: CustomStringConvertible {
    /// The value's description.
    package var argumentDescription: String { description }
}

extension ArgumentValue where Self: CaseIterable & RawRepresentable, RawValue == String {
    /// The case whose raw value is `argument`.
    package init(argument: String) throws(ValueError) {
        guard let value = Self(rawValue: argument) else {
            throw ValueError("expected one of \(UsageError.quotedList(Self.allValueStrings))")
        }
        self = value
    }

    /// Every case's raw value, in declaration order.
    package static var allValueStrings: [String] { allCases.map(\.rawValue) }

    /// The raw value.
    package var argumentDescription: String { rawValue }
}

extension String: ArgumentValue {
    /// The argument as given.
    package init(argument: String) {
        self = argument
    }
}

extension Int64: ArgumentValue {
    /// A plain decimal integer (``ValueError/parseInteger(_:in:)``).
    package init(argument: String) throws(ValueError) {
        self = try ValueError.parseInteger(argument, in: Int64.min...Int64.max)
    }
}

extension Int: ArgumentValue {
    /// A plain decimal integer (``ValueError/parseInteger(_:in:)``).
    package init(argument: String) throws(ValueError) {
        self = try ValueError.parseInteger(argument, in: Int.min...Int.max)
    }
}

/// A path on the command line: any text but the empty string (which names no file, and would
/// otherwise reach the file system as the current directory or an `ENOENT`).
package struct FilePath: ArgumentValue, Equatable, CustomStringConvertible {
    /// The path as given.
    package let path: String

    /// A non-empty path.
    package init(argument: String) throws(ValueError) {
        guard !argument.isEmpty else { throw ValueError("empty path") }
        path = argument
    }

    /// The path.
    package var description: String { path }
}

/// Why an option's value could not be converted; becomes a usage error naming the option.
package struct ValueError: Error, Sendable, Equatable {
    /// Shown after the option in the error message, e.g. `not a decimal integer`.
    package let reason: String

    /// A conversion failure.
    package init(_ reason: String) {
        self.reason = reason
    }

    /// Parses a plain decimal integer (optional leading `-`, no `+`, no spaces) in `range`.
    package static func parseInteger<Integer: FixedWidthInteger>(_ text: String, in range: ClosedRange<Integer>) throws(ValueError) -> Integer {
        guard let value = Integer(text), text.first != "+" else { throw ValueError("not a decimal integer") }
        guard range.contains(value) else {
            if range.upperBound == Integer.max { throw ValueError("must be at least \(range.lowerBound)") }
            if range.lowerBound == Integer.min { throw ValueError("must be at most \(range.upperBound)") }
            throw ValueError("must be between \(range.lowerBound) and \(range.upperBound)")
        }
        return value
    }
}
