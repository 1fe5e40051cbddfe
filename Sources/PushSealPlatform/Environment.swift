/// Environment variables.
package enum Environment {
    /// The value of `name`, or nil when it is not set.
    package static func value(_ name: String) -> String? {
        guard let value = getenv(name) else { return nil }
        return String(cString: value)
    }
}
