/// `CLOCK_MONOTONIC`: time that only moves forward, unaffected by changes to the wall clock, for
/// deadlines, time-to-live checks and measurements.
package enum MonotonicClock {
    /// Nanoseconds since an arbitrary start (wrapping arithmetic: never traps).
    @inlinable
    package static func nanoseconds() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) &* 1_000_000_000 &+ UInt64(time.tv_nsec)
    }

    /// Whole milliseconds since an arbitrary start.
    @inlinable
    package static func milliseconds() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) * 1000 + UInt64(time.tv_nsec) / 1_000_000
    }

    /// Seconds since an arbitrary start, with the nanoseconds as the fraction.
    @inlinable
    package static func seconds() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    /// CPU time consumed by this process (all threads), in nanoseconds
    /// (`CLOCK_PROCESS_CPUTIME_ID`).
    @inlinable
    package static func processCPUNanoseconds() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time)
        return UInt64(time.tv_sec) &* 1_000_000_000 &+ UInt64(time.tv_nsec)
    }
}
