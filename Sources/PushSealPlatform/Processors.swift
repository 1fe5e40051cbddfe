/// The machine's processors.
package enum Processors {
    /// Online processors (`nproc`), at least 1.
    package static var onlineCount: Int {
        max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))
    }
}
