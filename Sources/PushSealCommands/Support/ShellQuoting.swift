/// Paths and ids quoted for a command line shown in a hint, so it can be pasted into a POSIX shell.
enum ShellQuoting {
    /// `text` unchanged when it only holds characters that need no quoting, otherwise in single
    /// quotes (with `'` written as `'\''`).
    static func quote(_ text: String) -> String {
        let safe = !text.isEmpty && text.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"):
                return true
            default:
                return "-_./=:,+@%".utf8.contains(byte)
            }
        }
        if safe { return text }
        var quoted = "'"
        for character in text {
            if character == "'" { quoted += "'\\''" } else { quoted.append(character) }
        }
        return quoted + "'"
    }
}
