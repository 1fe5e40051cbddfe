import PushSealCore

// The fixed world of FuzzBundle: the device and provider key pairs of
// Vectors/pushseal-v1-bundles.json, and the inputs of every bundle in that file that the pinned
// provider sealed to this device (the cases whose HPKE opens). At start-up the target seals them
// itself (`sealedByProvider`), so the seed corpus (the vector bundles) reaches every step after
// authentication. If the vectors are regenerated differently, a seed that opens is no longer one
// of these and the target traps at once ("opened a bundle the provider never sealed"): regenerate
// this table from the vector file then.

/// The device's key pair (`deviceKeyPair`) and its device key id, as the vectors give it.
let devicePrivateKey = "bb94cfaea2d8e2d485755e4819a34a7eff2fdfadb334f51970eb49cfef805bb4"
let expectedDeviceKeyID = "642109a4869bd8b993717f4c4a889246"
/// The pinned provider's key pair (`providerKeyPair`) and its provider key id.
let providerPrivateKey = "2e3035692ce21e45fc8050ea161e791b4fcec85c1a710f8be270c4e88fe909b2"
let expectedProviderKeyID = "1930031c01110b6ef971477cbb180799"
/// The device clock: the vectors' `now` (every bundle in the table is live then).
let deviceNow: Int64 = 1764400000

/// What opening a bundle of the table gives on the device (SPEC §16.5 steps 4–9).
enum ExpectedOpening: Equatable {
    case opened
    case refused(KeyBundleReason)
}

/// One bundle the provider sealed: conversation key, sealed conversation id bytes (hex), header
/// fields and the ephemeral key's `DeriveKeyPair` input.
struct SealingInput {
    let tcId: Int
    let key: String
    let conversation: String
    let epoch: Int64
    let notAfter: Int64?
    let headerKeyID: String
    let ikmE: String
    let expected: ExpectedOpening
}

let sealingInputs: [SealingInput] = [
    SealingInput(
        tcId: 1, key: "914e3b77df61e0c29898f2c35f1db4f50c9a944c1be2800da7bd141e6dfffed7", conversation: "636f6e766572736174696f6e2d31", epoch: 1,
        notAfter: 1764486400, headerKeyID: "1c63ec03154950fa04ecea199169169d", ikmE: "015fb78052c3be50e3917278072cbb48fa863822b9dabd24f217b3abcb97d939", expected: .opened),
    SealingInput(
        tcId: 2, key: "914e3b77df61e0c29898f2c35f1db4f50c9a944c1be2800da7bd141e6dfffed7", conversation: "636f6e766572736174696f6e2d31", epoch: 1,
        notAfter: nil, headerKeyID: "1c63ec03154950fa04ecea199169169d", ikmE: "35fc7f699771000343ccaab21eb709c835d8ac897bbb45bf5866eedd304a136f", expected: .opened),
    SealingInput(
        tcId: 3, key: "914e3b77df61e0c29898f2c35f1db4f50c9a944c1be2800da7bd141e6dfffed7", conversation: "636f6e766572736174696f6e2d31", epoch: 1,
        notAfter: 1764486400, headerKeyID: "1c63ec03154950fa04ecea199169169d", ikmE: "8c19ee0e8256ae291aecb97f429f4af22496ff8ce0c3e9259a3d3c357592f1b7", expected: .opened),
    SealingInput(
        tcId: 4, key: "7aa250c0ae69e967de5f73e46abe4acf3295f1292532bb082cc7ce0cb173303a", conversation: "636f6e766572736174696f6e2d31", epoch: 2,
        notAfter: 1764486400, headerKeyID: "d1c9f6ab10b45ba2edb307557edd2081", ikmE: "6171b4e1621c966a50ada471c5edb9d50df15330879b7d835673e5236c4f25cd", expected: .opened),
    SealingInput(
        tcId: 5, key: "914e3b77df61e0c29898f2c35f1db4f50c9a944c1be2800da7bd141e6dfffed7", conversation: "636f6e766572736174696f6e2d31", epoch: 1,
        notAfter: 1764486400, headerKeyID: "1c63ec03154950fa04ecea199169169d", ikmE: "81a0609873782c35f93e93e6298064a9149288306b18836fd9925a8c5fa65664", expected: .opened),
    SealingInput(
        tcId: 6, key: "914e3b77df61e0c29898f2c35f1db4f50c9a944c1be2800da7bd141e6dfffed7", conversation: "c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9", epoch: 1,
        notAfter: 1764486400, headerKeyID: "1c63ec03154950fa04ecea199169169d", ikmE: "34ec0d705dd760027f7372231475dd201b33e9289bcd649d748e7e200a32fe00", expected: .opened),
    SealingInput(
        tcId: 18, key: "914e3b77df61e0c29898f2c35f1db4f50c9a944c1be2800da7bd141e6dfffed7", conversation: "63ff31", epoch: 1,
        notAfter: 1764486400, headerKeyID: "1c63ec03154950fa04ecea199169169d", ikmE: "2b4f05377e1103587e4d7a8d4222f277ccedc979d31bd16ede54c27a13f4b4d5", expected: .refused(.malformedBundle)),
    SealingInput(
        tcId: 29, key: "914e3b77df61e0c29898f2c35f1db4f50c9a944c1be2800da7bd141e6dfffed7", conversation: "636f6e766572736174696f6e2d31", epoch: 1,
        notAfter: 1764486400, headerKeyID: "d1c9f6ab10b45ba2edb307557edd2081", ikmE: "eee5ca3c57136b962f0845d6e295eaaa96acebcc7bbd865eb546e3ebcde758d6", expected: .refused(.kidMismatch)),
    SealingInput(
        tcId: 30, key: "914e3b77df61e0c29898f2c35f1db4f50c9a944c1be2800da7bd141e6dfffed7", conversation: "636f6e766572736174696f6e2d31", epoch: 1,
        notAfter: 1764486400, headerKeyID: "1c63ec03154950fa04ecea199169169d", ikmE: "fd792257de235f23ef9d4e560a8a87710ee152e16fe3464874e757a282bd0c77", expected: .opened),
    SealingInput(
        tcId: 31, key: "914e3b77df61e0c29898f2c35f1db4f50c9a944c1be2800da7bd141e6dfffed7", conversation: "636f6e766572736174696f6e2d31", epoch: 1,
        notAfter: 1764486400, headerKeyID: "1c63ec03154950fa04ecea199169169d", ikmE: "e338895a855c156533975bdc3ae5cdfbc1330f73fe6104fb101e4c269b40f7f0", expected: .opened),
    SealingInput(
        tcId: 32, key: "914e3b77df61e0c29898f2c35f1db4f50c9a944c1be2800da7bd141e6dfffed7", conversation: "636f6e766572736174696f6e2d31", epoch: 1,
        notAfter: 1764486400, headerKeyID: "1c63ec03154950fa04ecea199169169d", ikmE: "937343ee32a95f6fdf3c920ec296497ae3ad16d0d13918a66320b99440911e00", expected: .opened),
    SealingInput(
        tcId: 33, key: "914e3b77df61e0c29898f2c35f1db4f50c9a944c1be2800da7bd141e6dfffed7", conversation: "636f6e766572736174696f6e2d31", epoch: 1,
        notAfter: 1764486400, headerKeyID: "1c63ec03154950fa04ecea199169169d", ikmE: "2130aeee10b6048bb42709c83bb6459f1588d102c9b5f980e85e60244ed15c68", expected: .opened),
    SealingInput(
        tcId: 34, key: "914e3b77df61e0c29898f2c35f1db4f50c9a944c1be2800da7bd141e6dfffed7", conversation: "636f6e766572736174696f6e2d31", epoch: 1,
        notAfter: 1764486400, headerKeyID: "1c63ec03154950fa04ecea199169169d", ikmE: "712d630c185d0164aabb0207b6a646dabf1bdbafe278c5be69592884421bc624", expected: .opened),
]
