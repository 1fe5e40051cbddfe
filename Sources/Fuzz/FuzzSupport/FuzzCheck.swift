import PushSealPlatform

/// Checks a property of the code under fuzzing. On violation it prints `message` to stderr and
/// traps, so libFuzzer records the input as a crash (and the replay executable exits abnormally).
///
/// Unlike `precondition`, this is never compiled out by `-Ounchecked`.
@inline(__always)
package func fuzzCheck(
    _ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String,
    file: StaticString = #fileID, line: UInt = #line
) {
    if !condition() {
        fuzzFail(message(), file: file, line: line)
    }
}

/// Reports a property violation and traps.
package func fuzzFail(_ message: String, file: StaticString = #fileID, line: UInt = #line) -> Never {
    let text = "fuzz property violated at \(file):\(line): \(message)\n"
    writeStandardError(text)
    fatalError("fuzz property violated: \(message)")
}

/// Lowercase hex of `bytes`, for failure messages.
package func fuzzHex(_ bytes: some Sequence<UInt8>) -> String {
    let digits = Array("0123456789abcdef".utf8)
    var out: [UInt8] = []
    for byte in bytes {
        out.append(digits[Int(byte >> 4)])
        out.append(digits[Int(byte & 0x0F)])
    }
    return String(decoding: out, as: UTF8.self)
}

/// Writes `text` to file descriptor 2 (unbuffered, so it is out before a trap).
package func writeStandardError(_ text: String) {
    var text = text
    text.withUTF8 { buffer in
        var offset = 0
        while offset < buffer.count {
            let written = write(2, buffer.baseAddress! + offset, buffer.count - offset)
            if written <= 0 { return }
            offset += written
        }
    }
}
