import PushSealCLIKit
import PushSealProvider

extension CommandContext {
    /// The input named by a `[<file>]` argument (the file, or standard input when `path` is nil
    /// or `-`) as JSON lines read in bounded memory: lines longer than `maximumLineByteCount`
    /// come out as ``JSONLine/tooLong(byteCount:)``, never held whole.
    func inputLines(from path: String?, what: String, maximumLineByteCount: Int) throws(CLIError) -> JSONLineReader<CLIError> {
        let stream = try inputStream(from: path, what: what)
        return JSONLineReader(maximumLineByteCount: maximumLineByteCount) { (buffer) throws(CLIError) -> Int in
            try stream.read(into: buffer)
        }
    }
}
