// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "PushSeal",
    platforms: [.macOS(.v13), .iOS(.v16)],
    products: [
        .library(name: "PushSealCore", targets: ["PushSealCore"]),
        .library(name: "PushSealProvider", targets: ["PushSealProvider"]),
        .executable(name: "pushseal", targets: ["pushseal"]),
    ],
    targets: [
        // C libraries from the system (Debian: libsodium-dev, libsqlite3-dev). Never part of the public API.
        .systemLibrary(
            name: "CSodium",
            pkgConfig: "libsodium",
            providers: [.apt(["libsodium-dev"]), .brew(["libsodium"])]
        ),
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"]), .brew(["sqlite"])]
        ),

        // Wire format v1 and the cryptography it is built from.
        .target(name: "PushSealCore", dependencies: ["CSodium"]),

        // The provider side: seal contents into APNs / FCM payloads that always fit.
        .target(name: "PushSealProvider", dependencies: ["PushSealCore"]),

        // Deterministic test vectors (Vectors/pushseal-v1.json).
        .target(name: "PushSealVectors", dependencies: ["PushSealCore"]),

        // The command-line tool.
        .executableTarget(name: "pushseal", dependencies: ["PushSealCore", "PushSealVectors"]),

        .testTarget(name: "PushSealCoreTests", dependencies: ["PushSealCore"]),
        .testTarget(name: "PushSealVectorsTests", dependencies: ["PushSealCore", "PushSealVectors"]),
        .testTarget(name: "PushSealProviderTests", dependencies: ["PushSealCore", "PushSealProvider"]),
    ],
    swiftLanguageModes: [.v6]
)
