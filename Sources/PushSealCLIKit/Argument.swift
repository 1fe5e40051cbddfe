/// A declared positional argument of a command: what ``CommandSpec`` lists.
package protocol CommandArgument: Sendable {
    /// The argument's untyped description.
    var spec: ArgumentSpec { get }
}

/// A positional argument declared once with its type, read as that type:
/// `try context.arguments[Self.file]`. As for ``Option``, the type says how it behaves when
/// absent: `Argument<T?>` may be left out (reads `nil`), `Argument<T>` must be given,
/// `Argument<[T]>` takes every remaining positional value.
package struct Argument<Value: Sendable>: CommandArgument {
    /// The untyped description the parser and help use.
    package let spec: ArgumentSpec
    /// The positional values given (none when absent) → value.
    let convert: @Sendable ([String]) throws(ValueError) -> Value
}

extension Argument {
    /// An argument that may be left out: `nil` when absent.
    package init<Wrapped: ArgumentValue>(_ valueName: String, abstract: String, discussion: String = "") where Value == Wrapped? {
        spec = ArgumentSpec(valueName: valueName, abstract: abstract, discussion: discussion, isOptional: true)
        convert = { (texts) throws(ValueError) -> Wrapped? in
            guard let text = texts.first else { return nil }
            return try Wrapped(argument: text)
        }
    }

    /// An argument that must be given.
    package init(_ valueName: String, abstract: String, discussion: String = "") where Value: ArgumentValue {
        spec = ArgumentSpec(valueName: valueName, abstract: abstract, discussion: discussion, isOptional: false)
        convert = { (texts) throws(ValueError) -> Value in try Value(argument: texts[0]) }
    }

    /// An argument that takes every remaining positional value (declare it last); with
    /// `required`, at least one must be given.
    package init<Element: ArgumentValue>(
        _ valueName: String, abstract: String, discussion: String = "", required: Bool = false
    ) where Value == [Element] {
        spec = ArgumentSpec(valueName: valueName, abstract: abstract, discussion: discussion, isOptional: !required, isRepeating: true)
        convert = { (texts) throws(ValueError) -> [Element] in
            var values: [Element] = []
            values.reserveCapacity(texts.count)
            for text in texts { values.append(try Element(argument: text)) }
            return values
        }
    }
}
