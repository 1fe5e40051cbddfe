/// The C library's error numbers, as values and as the system's text.
package enum Errno {
    /// The system's message for `code` (`strerror`), or "error N" when it has none.
    package static func message(_ code: Int32) -> String {
        guard let message = strerror(code) else { return "error \(code)" }
        return String(cString: message)
    }
}
