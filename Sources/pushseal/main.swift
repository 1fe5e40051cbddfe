import PushSealVectors

// Interim entry point until the full command line lands.
let arguments = CommandLine.arguments.dropFirst()
if Array(arguments) == ["vectors", "generate"] {
    print(VectorSuite.render(), terminator: "")
} else {
    print("usage: pushseal vectors generate")
}
