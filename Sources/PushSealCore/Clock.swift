internal import PushSealPlatform

/// A source of the current time in whole seconds since 1970 (UTC). Injected wherever time
/// matters (freshness, expiry, the duplicate log) so tests control it.
public typealias SecondsClock = @Sendable () -> Int64

/// The system's wall clock.
public let systemClock: SecondsClock = { Int64(time(nil)) }
